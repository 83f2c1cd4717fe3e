"""Rule sets: every validation error's message, spec strings, options round trips, presets."""

from __future__ import annotations

from typing import Any

import pytest

from kseri import PRESETS, Card, Rules, RulesError
from kseri.rules import OPTION_NAMES, PRESET_SOURCES, CentreDeal


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 1}, "players must be 2 to 6, not 1"),
        ({"players": 7}, "players must be 2 to 6, not 7"),
        ({"players": 3, "partnerships": True, "batch_size": 4}, "partnerships need 4 or 6 players, not 3"),
        ({"decks": 3}, "decks must be 1 or 2, not 3"),
        ({"batch_size": 0}, "batch_size must be at least 1, not 0"),
        ({"centre_size": 0}, "centre_size must be 1 to 8 with redeal, not 0"),
        ({"centre_size": 1, "centre_deal": CentreDeal.PISTI}, "centre_size must be 2 to 8 with pisti, not 1"),
        ({"players": 5}, r"cannot be dealt in equal batches of 6 cards to 5 players \(30 a batch\).*"
                         r"\(5 players need decks=2\)"),
        ({"batch_size": 5}, "the stock of 48 cards"),
        ({"kseri_value": -1}, r"kseri_value cannot be negative \(-1\)"),
        ({"majority_bonus": -3}, r"majority_bonus cannot be negative \(-3\)"),
        ({"last_capture_bonus": -1}, "last_capture_bonus cannot be negative"),
        ({"jack_kseri": -5}, r"jack_kseri cannot be negative \(-5\); use none to switch it off"),
        ({"double_kseri": -1}, "double_kseri cannot be negative"),
        ({"target": 0}, "target must be positive, not 0"),
        ({"escalation": 0}, "escalation must be positive, not 0"),
        ({"centre_deal": "redeal"}, "centre_deal must be a CentreDeal, not 'redeal'"),
        ({"target_rule": "escalate"}, "target_rule must be a TargetRule"),
        ({"card_points": (("ZZ", 1),)}, "card_points entry 'ZZ' is neither a rank"),
    ],
)
def test_impossible_rules_are_refused_with_the_reason(options: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules(**options)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nope", "unknown preset 'nope'; the presets are: greek, classic, pisti"),
        ("greek,jack_kseri", "option 'jack_kseri' needs a value, as in jack_kseri=25"),
        ("greek,colour=red", "unknown option 'colour'"),
        ("greek,target=many", "target must be a whole number, not 'many'"),
        ("greek,kseri_on_last_card=maybe", "kseri_on_last_card must be true or false, not 'maybe'"),
        ("greek,centre_deal=shuffle", "centre_deal must be one of redeal, replace-jacks, pisti, not 'shuf"),
        ("greek,card_points=TD", "card_points entries look like TD:2, not 'TD'"),
        ("greek,points_table=1", "unknown option 'points_table'"),
    ],
)
def test_bad_spec_strings_are_refused_with_the_reason(spec: str, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules.from_spec(spec)


def test_spec_strings_set_every_kind_of_option() -> None:
    rules = Rules.from_spec(
        "pisti, jack_kseri=none, kseri-on-last-card=yes, target=121, card_points=TD:3/2C:2/A:1/J:1/10:1,"
        " centre_deal=replace-jacks, majority_tie=every-tied-side"
    )
    assert rules.jack_kseri is None and rules.kseri_on_last_card and rules.target == 121
    assert rules.card_points == (("TD", 3), ("2C", 2), ("A", 1), ("J", 1), ("10", 1))
    assert rules.points_table[Card("TD")] == 4  # 10♦: 3 as a card and 1 as a ten
    assert rules.centre_deal is CentreDeal.REPLACE_JACKS
    assert Rules.from_spec("greek") is PRESETS["greek"]


def test_replace_refuses_unknown_options() -> None:
    with pytest.raises(RulesError, match="unknown option 'colour'; the options are: name, players"):
        Rules().replace(colour="red")


@pytest.mark.parametrize("preset", list(PRESETS))
def test_options_round_trip_for_every_preset(preset: str) -> None:
    rules = Rules.preset(preset)
    assert Rules.from_options(rules.options()) == rules
    assert list(rules.options()) == list(OPTION_NAMES)
    assert preset in PRESET_SOURCES and rules.name == preset


def test_from_options_refuses_unknown_names_and_values() -> None:
    with pytest.raises(RulesError, match="unknown option\\(s\\): colour"):
        Rules.from_options({"colour": "red"})
    with pytest.raises(RulesError, match="target_rule must be one of escalate, higher-wins"):
        Rules.from_options({"target_rule": "lowest"})


def test_the_presets_hold_the_guides_numbers() -> None:
    greek, classic, pisti = Rules.preset("greek"), Rules.preset("classic"), Rules.preset("pisti")
    assert (greek.batch_size, greek.kseri_value, greek.jack_kseri, greek.double_kseri) == (6, 10, 20, None)
    assert (greek.target, greek.escalation, greek.majority_bonus) == (151, 100, 3)
    assert greek.kseri_on_last_card and not pisti.kseri_on_last_card
    assert (classic.batch_size, classic.jack_kseri, classic.double_kseri) == (4, None, 20)
    assert (pisti.batch_size, pisti.jack_kseri, pisti.target, classic.target) == (4, 20, 151, 101)
    assert (Rules.preset("partnership").sides, Rules.preset("three-player").sides) == (2, 3)
    faro = Rules.preset("faro")
    assert (faro.decks, faro.players, faro.batches) == (2, 5, 5)
    assert not Rules.preset("children").jacks_capture_all
    assert [Rules.preset("partnership").side_of(seat) for seat in range(4)] == [0, 1, 0, 1]
    six = Rules(players=6, partnerships=True, batch_size=4)
    assert [six.side_of(seat) for seat in range(6)] == [0, 1, 2, 0, 1, 2]
