"""Views survive the trip through JSON, at every point of matches of every preset."""

import json
import random

import pytest

from kseri import PRESETS, Match, Rules, View
from kseri.views import view_from_json, view_to_json


def assert_round_trip(view: View) -> None:
    """JSON text back to a view and to the same JSON; the same view where one deck is used
    (JSON names two-deck copies alike: they play alike)."""
    data = view_to_json(view)
    back = view_from_json(json.loads(json.dumps(data)))
    assert view_to_json(back) == data
    if view.rules.decks == 1:
        assert back == view


@pytest.mark.parametrize("preset", list(PRESETS))
def test_views_round_trip_through_json_text(preset: str) -> None:
    rules = Rules.preset(preset)
    match, rng = Match(rules, seed=preset), random.Random(preset)
    for _ in range(2):
        while match.turn is not None:
            for seat in range(rules.players):
                assert_round_trip(match.view(seat))
            match.play(rng.choice(match.legal_plays()))
        assert_round_trip(match.view(0))
        if match.is_over():
            break
        match.next_round()


def test_view_json_holds_only_the_seats_own_hand() -> None:
    match = Match(seed=11)
    data = view_to_json(match.view(0))
    other = {str(card) for card in match.view(1).hand}
    assert not other & set(data["hand"])
    assert data["hand_sizes"] == [6, 6]
    assert "stock" not in data and data["stock_size"] == 36
