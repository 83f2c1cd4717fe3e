"""Replay the golden rounds (``golden/rounds.json``) and compare every expected score.

Seeded rounds also pin the shuffle: their seed must still give their deal. Every round is
replayed through the engine and through the reference implementation.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import reference

from kseri import Deal, Match, Rules

sys.path.insert(0, str(Path(__file__).with_name("golden")))
from make_golden import MARK_KINDS, cards_text, result_to_json, text_card

GOLDEN_FILE = Path(__file__).with_name("golden") / "rounds.json"
ROUNDS: list[dict[str, Any]] = json.loads(GOLDEN_FILE.read_text())["rounds"]


def deal_from_json(data: dict[str, Any]) -> Deal:
    return Deal(
        dealer=data["dealer"],
        centre=tuple(text_card(text) for text in data["centre"].split()),
        face_down=data["face_down"],
        hands=tuple(
            tuple(tuple(map(text_card, hand.split())) for hand in batch) for batch in data["hands"]
        ),
        shown=None if data["shown"] is None else text_card(data["shown"]),
    )


def test_the_golden_file_covers_every_preset_and_hand_checked_rounds() -> None:
    assert len(ROUNDS) >= 30
    assert {r["rules"]["name"] for r in ROUNDS} >= {"greek", "classic", "pisti", "partnership", "faro"}
    assert sum("checked_by_hand" in r for r in ROUNDS) >= 5
    assert {kind for r in ROUNDS for marks in r["expected"]["marks"] for m in marks
            for kind in [m.split()[0]]} <= set(MARK_KINDS)


@pytest.mark.parametrize("golden", ROUNDS, ids=[r["name"] for r in ROUNDS])
def test_golden_round(golden: dict[str, Any]) -> None:
    rules = Rules.from_options(golden["rules"])
    deal = deal_from_json(golden["deal"])
    if golden["seed"] is not None:
        assert Match(rules, seed=golden["seed"]).deals[0] == deal, "the shuffle changed"
    plays = [text_card(text) for text in golden["plays"].split()]
    match, plain = Match(rules, deal=deal), reference.Match(rules, deal=deal)
    for card in plays:
        match.play(card)
        plain.play(card)
    assert match.is_round_over() and cards_text(p.card for p in match.plays[0]) == golden["plays"]
    assert result_to_json(match.round_results[0], match.centre_left) == golden["expected"]
    assert match.round_results == tuple(plain.results)
