"""Win odds: the pure counting with intervals, the exact endgame, and views only."""

from __future__ import annotations

import json

import numpy as np
import pytest
from builders import exact

from kseri.agents import make_agent
from kseri.analysis.odds import match_odds, odds, round_odds, seat_views, spectator_odds
from kseri.engine import Match
from kseri.records import match_from_record, record_from_match
from kseri.rules import Rules

GREEK = Rules()


def test_round_odds_count_wins_and_share_ties_with_an_interval() -> None:
    outcomes = np.array([[10, 5], [3, 8], [6, 6], [9, 2]])
    chance = round_odds(outcomes, side=0)
    assert chance.estimate == 0.625 and chance.low is not None and chance.high is not None
    assert 0 < chance.low < 0.625 < chance.high < 1
    assert round_odds(outcomes, side=1).estimate == 0.375
    three = np.array([[5, 5, 5], [9, 1, 0]])
    assert round_odds(three, side=0).estimate == pytest.approx((1 / 3 + 1) / 2)
    certain = round_odds(np.array([[9, 1]] * 400), side=0)
    assert certain.estimate == 1.0 and certain.low is not None and certain.low > 0.99
    with pytest.raises(ValueError, match="no world"):
        round_odds(np.zeros((0, 2)), side=0)


def test_match_odds_follow_the_target_rule() -> None:
    pool = np.array([[10, 0], [0, 10]])
    # the round takes side 0 past 151: won whatever comes after
    won = match_odds(GREEK, (140, 20), 151, 0, np.array([[15, 0]] * 50), pool)
    assert won.estimate == 1.0 and won.low is not None and won.low > 0.9
    assert match_odds(GREEK, (140, 20), 151, 1, np.array([[15, 0]] * 50), pool).estimate == 0.0
    # even totals and a fair pool: about even, the interval holding one half
    even = match_odds(GREEK, (0, 0), 151, 0, np.zeros((400, 2)), pool, seed=3)
    assert even.low is not None and even.high is not None and even.low < 0.5 < even.high
    # both past 151 together: the Greek escalation plays on to 251, and a pool that only
    # side 1 scores in gives it the match
    escalated = match_odds(GREEK, (145, 145), 151, 0, np.array([[10, 10]] * 20), np.array([[0, 10]]))
    assert escalated.estimate == 0.0
    with pytest.raises(ValueError, match="no round"):
        match_odds(GREEK, (0, 0), 151, 0, np.zeros((1, 2)), np.zeros((0, 2), np.int64))


def test_in_the_last_batch_the_round_odds_are_the_exact_solvers() -> None:
    checked = 0
    for seed in range(12):
        match = Match(seed=seed)
        bots = [make_agent("expert", seed=1), make_agent("expert", seed=2)]
        while match.stock_size or sum(len(match.view(s).hand) for s in (0, 1)) > 7:
            assert match.turn is not None
            match.play(bots[match.turn].choose(match.view(match.turn)))
        assert match.turn is not None
        side = match.rules.side_of(match.turn)
        truth = exact(match, side)
        chance = odds(match.view(match.turn), worlds=32)
        assert chance.round.low == chance.round.high == chance.round.estimate
        assert chance.round.estimate == (1.0 if truth > 0 else 0.5 if truth == 0 else 0.0)
        assert chance.match.low is not None and chance.match.high is not None
        assert 0 <= chance.match.low <= chance.match.estimate <= chance.match.high <= 1
        checked += 1
    assert checked == 12


def test_the_odds_read_the_view_only() -> None:
    match = Match(seed=8)
    bots = [make_agent("greedy"), make_agent("greedy")]
    for _ in range(3):
        assert match.turn is not None
        match.play(bots[match.turn].choose(match.view(match.turn)))
    record = record_from_match(match)
    other = json.loads(json.dumps(record))
    hands = other["rounds"][0]["hands"]
    hands[1], hands[2] = hands[2], hands[1]
    swapped = match_from_record(other)
    assert match.turn is not None and swapped.deals != match.deals
    first, second = odds(match.view(match.turn), worlds=64), odds(swapped.view(match.turn), worlds=64)
    assert first == second
    assert first.round.low is not None and first.round.low < first.round.estimate


@pytest.mark.parametrize("spec", ["greek", "pisti"])
def test_a_spectators_odds_read_what_a_spectator_sees_only(spec: str) -> None:
    rules = Rules.from_spec(spec)
    match = Match(rules, seed=5)
    bots = [make_agent("greedy", seed=seat) for seat in range(rules.players)]
    for _ in range(5):
        assert match.turn is not None
        match.play(bots[match.turn].choose(match.view(match.turn)))
    record = record_from_match(match)
    other = json.loads(json.dumps(record))
    assert match.turn is not None
    batches = other["rounds"][0]["hands"]
    played = {str(play.card) for play in match.spectator_view().plays}
    mine = batches[0][match.turn]
    unplayed = [index for index, card in enumerate(mine) if card not in played]
    for index, place in zip(unplayed, range(len(unplayed)), strict=True):  # the seat to play's cards
        mine[index], batches[1][0][place] = batches[1][0][place], mine[index]  # swapped with the stock's
    face_down = [entry for entry in other["rounds"][0]["centre"] if entry["face_down"]]
    for place, entry in enumerate(face_down):  # and the face-down centre cards
        entry["card"], batches[1][1][place] = batches[1][1][place], entry["card"]
    swapped = match_from_record(other)
    assert swapped.spectator_view() == match.spectator_view() and swapped.deals != match.deals
    assert match.turn is not None and swapped.view(match.turn).hand != match.view(match.turn).hand
    first = spectator_odds(match.spectator_view(), worlds=64, seed=3)
    assert first == spectator_odds(swapped.spectator_view(), worlds=64, seed=3)
    assert first.worlds == 64 and first.round.low is not None and first.round.high is not None
    assert first.round.low < first.round.estimate < first.round.high
    views = seat_views(match.spectator_view(), 16, seed=3)
    assert {view.seat for view in views} == {match.turn}
    assert len({view.hand for view in views}) > 1  # hands drawn, not the seat's own
