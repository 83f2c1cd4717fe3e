"""A resigned match: the engine ends it, the record says so and still re-plays and verifies."""

from __future__ import annotations

import pytest

from kseri.engine import IllegalPlayError, Match
from kseri.records import record_from_match, replay_record, verify_record
from kseri.rules import Rules


def test_a_resignation_mid_round_ends_the_match_and_the_record_verifies() -> None:
    match = Match(Rules.from_spec("greek"), seed="resign")
    for _ in range(5):
        match.play(match.legal_plays()[0])
    loser = match.turn
    assert loser is not None
    match.resign(loser)
    assert match.is_over() and match.winner == 1 - loser and match.resigned == loser
    assert match.turn is None
    with pytest.raises(IllegalPlayError):
        match.resign(loser)
    with pytest.raises(IllegalPlayError):
        match.undo()
    record = record_from_match(match)
    assert record["resigned"] == loser and record["complete"] and record["winner"] == 1 - loser
    assert replay_record(record) == [] and verify_record(record) == []
    # a tampered resignation is caught by the re-play
    record["winner"] = loser
    assert [str(m) for m in replay_record(record)] == [f"winner: recorded {loser}, re-played {1 - loser}"]


def test_with_three_sides_the_leader_among_the_others_wins() -> None:
    match = Match(Rules.from_spec("three-player"), seed="three")
    while not match.is_round_over():
        match.play(match.legal_plays()[0])
    totals = match.totals
    if not match.is_over():
        match.next_round()
    match.resign(0)
    best = max(totals[1:])
    assert match.winner == [1, 2][[totals[1], totals[2]].index(best)]


def test_a_match_without_resignation_records_no_resigned_key() -> None:
    match = Match(Rules.from_spec("greek"), seed="plain")
    assert "resigned" not in record_from_match(match)
