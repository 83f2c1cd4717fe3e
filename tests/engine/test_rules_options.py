"""Rule sets: every validation error's message, spec strings, options round trips, presets."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kseri import PRESETS, Card, Rules, RulesError
from kseri.rules import OPTION_NAMES, PRESET_SOURCES, CentreDeal, TargetRule, match_winner


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 1}, "players must be 2 to 6, not 1"),
        ({"players": 7}, "players must be 2 to 6, not 7"),
        ({"players": 3, "partnerships": True, "batch_size": 4}, "partnerships need 4 or 6 players, not 3"),
        ({"decks": 3}, "decks must be 1 to 2, not 3"),
        ({"batch_size": 0}, "batch_size must be 1 to 26, not 0"),
        ({"centre_size": 0}, "centre_size must be 1 to 8, not 0"),
        ({"centre_size": 1, "centre_deal": CentreDeal.PISTI}, "centre_size must be 2 to 8 with pisti, not 1"),
        ({"players": 5}, r"the stock of 48 cards.*cannot be dealt in equal batches of 6 cards to "
                         r"5 players \(30 a batch\).*\(5 players need decks=2\)"),
        ({"batch_size": 5}, "the stock of 48 cards"),
        ({"batch_size": 24}, "one batch of 24 cards to 2 players leaves 0 cards in the stock"),
        ({"batch_size": 24, "centre_deal": CentreDeal.PISTI}, "leaves 0 cards in the stock"),
        ({"kseri_value": -1}, "kseri_value must be 0 to 100, not -1"),
        ({"majority_bonus": -3}, "majority_bonus must be 0 to 100, not -3"),
        ({"last_capture_bonus": -1}, "last_capture_bonus must be 0 to 100, not -1"),
        ({"jack_kseri": -5}, r"jack_kseri must be 0 to 100 \(or none to switch it off\), not -5"),
        ({"double_kseri": -1}, "double_kseri must be 0 to 100"),
        ({"target": 0}, "target must be 1 to 10000, not 0"),
        ({"target": 10**23}, "target must be 1 to 10000, not 1"),
        ({"target": 2600}, "target 2600 is out of reach: a round puts 25 points in play"),
        ({"card_points": (), "majority_bonus": 0}, "no round could score"),
        ({"card_points": (("A", -1),)}, "card_points entry 'A' must be worth 0 to 100 points, not -1"),
        ({"card_points": (("A", 10**21),)}, "card_points entry 'A' must be worth 0 to 100 points"),
        ({"card_points": (("A", 1.5),)}, "card_points entries are"),
        ({"players": 2.0}, "players must be a whole number, not 2.0"),
        ({"batch_size": 6.0}, "batch_size must be a whole number, not 6.0"),
        ({"majority_bonus": 0.5}, "majority_bonus must be a whole number, not 0.5"),
        ({"target": 1e308}, "target must be a whole number, not 1e"),
        ({"players": True}, "players must be a whole number, not True"),
        ({"partnerships": 1}, "partnerships must be true or false, not 1"),
        ({"name": "x" * 41}, "name must be 1 to 40 printable characters"),
        ({"name": ""}, "name must be 1 to 40 printable characters"),
        ({"escalation": 0}, "escalation must be 1 to 10000, not 0"),
        ({"centre_deal": "redeal"}, "centre_deal must be a CentreDeal, not 'redeal'"),
        ({"target_rule": "escalate"}, "target_rule must be a TargetRule"),
        ({"card_points": (("ZZ", 1),)}, "card_points entry 'ZZ' is neither a rank"),
    ],
)
def test_impossible_rules_are_refused_with_the_reason(options: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesError, match=message) as refused:
        Rules(**options)
    if len(options) == 1 and "the stock of" not in message:  # a combination names no option
        assert refused.value.option in options


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"players": "2"}, "players"),
        ({"card_points": "TD:2"}, "card_points"),
        ({"card_points": [["TD"]]}, "card_points"),
        ({"card_points": [["TD", 2.0]]}, "card_points"),
        ({"centre_deal": "sideways"}, "centre_deal"),
        ({"jack_kseri": None, "double_kseri": 1.0}, "double_kseri"),
    ],
)
def test_options_from_outside_are_checked_as_types(options: dict[str, Any], option: str) -> None:
    with pytest.raises(RulesError) as refused:
        Rules.from_options(options)
    assert refused.value.option == option
    assert option in str(refused.value)


def _settle_by_steps(rules: Rules, totals: tuple[int, ...], target: int) -> tuple[int | None, int]:
    """The match rule as the guides state it, one escalation at a time."""
    reached = [side for side, total in enumerate(totals) if total >= target]
    if len(reached) < 2:
        return (reached[0] if reached else None), target
    if rules.target_rule is TargetRule.ESCALATE:
        while len(reached) > 1:
            target += rules.escalation
            reached = [side for side in reached if totals[side] >= target]
        return (reached[0] if reached else None), target
    best = max(totals[side] for side in reached)
    leaders = [side for side in reached if totals[side] == best]
    return (leaders[0] if len(leaders) == 1 else None), target


@given(st.sampled_from(["greek", "pisti", "three-player"]), st.integers(1, 100),
       st.lists(st.integers(0, 5000), min_size=2, max_size=3), st.integers(1, 2000))
def test_the_match_rule_in_one_step_agrees_with_escalating_step_by_step(
        preset: str, escalation: int, totals: list[int], target: int) -> None:
    rules = Rules.preset(preset, escalation=escalation)
    totals = totals[: rules.sides] + [0] * (rules.sides - len(totals))
    assert match_winner(rules, tuple(totals), target) == _settle_by_steps(rules, tuple(totals), target)


def test_the_match_rule_for_the_master_s_rollouts() -> None:
    greek = Rules.preset("greek")
    assert match_winner(greek, (152, 103), 151) == (0, 151)
    assert match_winner(greek, (152, 153), 151) == (None, 251)  # both reach: 251
    assert match_winner(greek, (255, 152), 151) == (0, 251)  # 255 ≥ 251 alone
    assert match_winner(greek, (10**9, 10**9 - 1), 151)[1] == 1_000_000_051  # one step, no loop
    pisti = Rules.preset("pisti")
    assert match_winner(pisti, (152, 153), 151) == (1, 151)  # the higher total wins
    assert match_winner(pisti, (152, 152), 151) == (None, 151)


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
    with pytest.raises(RulesError, match="unknown option 'colour'; the options are: name, players"):
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
