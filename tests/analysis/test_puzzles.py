"""Puzzles: answers proven, nothing hidden shown, themes on hand-made positions, ratings, bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import date
from typing import Any

import pytest
from builders import exact

from kseri.agents import make_agent
from kseri.analysis import analyse_record
from kseri.analysis.puzzles import (
    MIN_GAP,
    Puzzle,
    PuzzleError,
    Rating,
    daily_puzzle,
    mistake_puzzles,
    next_puzzle,
    puzzle_at,
    puzzles_from_record,
    rate_attempt,
    read_puzzles,
    starting_set,
)
from kseri.analysis.themes import Theme, themes
from kseri.cards import Card
from kseri.engine import Match, View
from kseri.records import RecordError, match_from_record, record_from_match
from kseri.rules import Rules

Position = Callable[..., View]
"""The ``position`` fixture: a hand-made Greek position's view (``conftest.greek_view``)."""


def expert_round(seed: int, plays: int | None = None) -> Match:
    """A Greek round between two experts, stopped after ``plays`` plays (default: its end)."""
    match = Match(seed=seed)
    bots = [make_agent("expert", seed=1), make_agent("expert", seed=2)]
    while not match.is_round_over() and (plays is None or len(match.plays[-1]) < plays):
        assert match.turn is not None
        match.play(bots[match.turn].choose(match.view(match.turn)))
    return match


@pytest.fixture(scope="module")
def game() -> tuple[dict[str, Any], list[Puzzle]]:
    record = record_from_match(expert_round(11))
    return record, puzzles_from_record(record, worlds=48)


def test_every_answer_is_the_best_card_by_the_solver_or_by_an_interval_above_zero(
        game: tuple[dict[str, Any], list[Puzzle]]) -> None:
    record, puzzles = game
    assert any(p.exact for p in puzzles) and any(not p.exact for p in puzzles)
    checked = 0
    for puzzle in puzzles:
        assert puzzle.answers[0] == puzzle.values[0][0] and puzzle.gap.estimate >= MIN_GAP
        if not puzzle.exact:
            assert puzzle.gap.low is not None and puzzle.gap.low > 0
            continue
        # the truth, by plain minimax through the engine on the real deal (small endgames only)
        if sum(puzzle.view.hand_sizes) > 8:
            continue
        _, index = puzzle.source
        match = match_from_record({**record, "rounds": [{**record["rounds"][0], "plays":
                                                          record["rounds"][0]["plays"][:index]}]})
        assert match.view(puzzle.view.seat) == puzzle.view
        truth = {}
        for card in match.legal_plays():
            after = match.copy()
            after.play(card)
            truth[card] = exact(after, puzzle.view.side)
        best = max(truth.values())
        assert all(truth[card] == best for card in puzzle.answers)
        others = [value for card, value in truth.items() if card not in puzzle.answers]
        assert best - max(others) == pytest.approx(puzzle.gap.estimate)
        assert len(puzzle.sequence) >= 2 and puzzle.sequence[0] in puzzle.answers
        checked += 1
    assert checked


def _swap_hidden(record: dict[str, Any], seat: int, plays: int) -> dict[str, Any]:
    """``record`` with a card the opponent of ``seat`` has not played by play ``plays`` swapped
    with a card of the last batch: the same game as ``seat`` saw it, other hidden cards."""
    other: dict[str, Any] = json.loads(json.dumps(record))
    hands = other["rounds"][0]["hands"]
    played = {card for _, card in other["rounds"][0]["plays"][:plays]}
    current = plays // 12
    opponent = hands[current][1 - seat]
    index = next(i for i, card in enumerate(opponent) if card not in played)
    opponent[index], hands[-1][0][0] = hands[-1][0][0], opponent[index]
    return other


def test_a_puzzle_never_shows_a_hidden_card_swapping_them_gives_the_same_puzzles() -> None:
    match = expert_round(7, plays=20)
    record = record_from_match(match)
    seat = match.turn or 0
    other = _swap_hidden(record, seat, 20)
    assert other != record
    first = puzzles_from_record(record, seats={seat}, worlds=32, min_gap=0.5)
    assert first
    assert puzzles_from_record(other, seats={seat}, worlds=32, min_gap=0.5) == first
    assert [p.to_json() for p in first] == [Puzzle.from_json(p.to_json()).to_json() for p in first]


def test_a_puzzle_round_trips_through_json_and_names_bad_input(
        game: tuple[dict[str, Any], list[Puzzle]]) -> None:
    puzzle = game[1][0]
    assert Puzzle.from_json(json.loads(json.dumps(puzzle.to_json()))) == puzzle
    assert puzzle.check(str(puzzle.answers[0]).lower())
    wrong = next(card for card in puzzle.view.hand if card not in puzzle.answers)
    assert not puzzle.check(wrong.pretty())
    with pytest.raises(PuzzleError, match="not a card"):
        puzzle.check("zz")
    absent = next(card for card in map(Card, ("2C", "3C", "4C", "5C", "6C", "7C", "8C"))
                  if card not in puzzle.view.hand)
    with pytest.raises(PuzzleError, match="not a card of the hand"):
        puzzle.check(str(absent))
    with pytest.raises(PuzzleError, match="line 2"):
        read_puzzles([json.dumps(puzzle.to_json()), '{"format": "kseri-puzzle/1", "id": "x"}'])
    with pytest.raises(PuzzleError, match="format"):
        read_puzzles(['{"format": "other"}'])


def test_a_record_that_does_not_replay_is_refused() -> None:
    record = record_from_match(expert_round(3, plays=6))
    record["rounds"][0]["plays"][1] = record["rounds"][0]["plays"][0]
    with pytest.raises(RecordError):
        puzzles_from_record(record)


def test_positions_without_a_clear_best_card_are_not_puzzles(position: Position) -> None:
    # every card alike: no puzzle; a lone 9C with the 9D in hand: the kseri, proven
    view = position(["5H 8H JH QH 9D 6C", "7C 7D KC KD 9C 6D"], ["2S", "3S", "4S", "5S"], ["5H", "9C"])
    puzzle = puzzle_at(view)
    assert puzzle is not None and puzzle.answers == (Card("9D"),) and Theme.KSERI in puzzle.themes
    assert puzzle_at(view, min_gap=100.0) is None


def test_the_themes_on_hand_made_positions(position: Position) -> None:
    opening = (["5H 8H JH QH 9D 6C", "7C 7D KC KD 9C 6D"], ["2S", "3S", "AS", "5S"])
    lone_nine = position(["5H 8H JH QH 9D 6C", "7C 7D KC KD 9C 6D"], ["2S", "3S", "4S", "5S"], ["5H", "9C"])
    assert themes(lone_nine, Card("9D")) == (Theme.KSERI,)
    lone_jack = position(["5H 8H JH QH 9D 6C", "7C 7D KC JD 9C 6D"], ["2S", "3S", "4S", "5S"], ["5H", "JD"])
    assert Theme.JACK_KSERI in themes(lone_jack, Card("JH"))
    view = position(*opening)
    assert Theme.JACK_TIMING in themes(view, Card("JH"))      # the Jack spent on the pile
    assert Theme.JACK_TIMING in themes(view, Card("5H"))      # the Jack kept, the 5 takes it
    last = replace(view, stock_size=0, hand=(Card("5H"), Card("8H")), hand_sizes=(2, 2))
    assert Theme.LAST_SWEEP in themes(last, Card("5H"))
    assert Theme.LAST_SWEEP not in themes(view, Card("5H"))
    near = replace(view, captured_sizes=(23, 10))
    assert Theme.MAJORITY in themes(near, Card("5H")) and Theme.MAJORITY not in themes(view, Card("5H"))
    # the 2s all seen: laid on a pile it is counting, on an empty centre it is defence too
    counted = position(["2H 2D 9H 8H 6H 7C", "7D KC KD QC 6D 6C"], ["2S", "2C", "4S", "3S"])
    assert themes(counted, Card("2H")) == (Theme.COUNTING,)
    empty = position(["2H 2D 2C 9H 8H 7C", "7D KC KD QC 6D 6C"], ["2S", "3S", "4S", "5S"], ["7C", "7D"])
    assert themes(empty, Card("2H")) == (Theme.COUNTING, Theme.DEFENCE)
    assert themes(empty, Card("9H")) == ()


def test_pistis_shown_card_is_a_theme() -> None:
    match = Match(Rules.preset("pisti"), seed=4)
    view = match.view(match.turn or 0)
    assert view.shown is not None
    same_rank = next((card for card in view.hand if card.rank == view.shown.rank), None)
    shown = replace(view, hand=(Card(view.shown.rank * 4 + (view.shown.suit + 1) % 4), *view.hand[1:]))
    card = same_rank or shown.hand[0]
    assert Theme.SHOWN_CARD in themes(shown if same_rank is None else view, card)


def test_ratings_move_both_ways_and_the_next_puzzle_is_near_the_player() -> None:
    start = Rating()
    won, beaten = rate_attempt(start, Rating(), solved=True)
    lost, unbeaten = rate_attempt(start, Rating(), solved=False)
    assert won.mu > start.mu > lost.mu and beaten.mu < start.mu < unbeaten.mu
    assert won.sigma < start.sigma
    puzzles = starting_set()
    assert len(puzzles) >= 20 and len({p.id for p in puzzles}) == len(puzzles)
    hard = replace(puzzles[0], id="hard", rating=Rating(40.0, 3.0))
    easy = replace(puzzles[1], id="easy", rating=Rating(10.0, 3.0))
    strong, weak = Rating(38.0, 2.0), Rating(12.0, 2.0)
    assert next_puzzle(strong, [hard, easy]) is hard and next_puzzle(weak, [hard, easy]) is easy
    assert next_puzzle(strong, [hard, easy], done={"hard"}) is easy
    assert next_puzzle(strong, [hard, easy], done={"hard", "easy"}) is None


def test_a_players_costliest_mistakes_become_their_puzzles() -> None:
    match = Match(seed=21)
    bots = [make_agent("random", seed=3), make_agent("expert", seed=4)]
    while not match.is_round_over():
        assert match.turn is not None
        match.play(bots[match.turn].choose(match.view(match.turn)))
    record = record_from_match(match)
    analysis = analyse_record(record, iterations=64)
    puzzles = mistake_puzzles(record, analysis, seat=0, worlds=48)
    assert puzzles and all(p.view.seat == 0 for p in puzzles)
    costly = {(r.round, r.play): r for r in analysis.reviews if r.seat == 0 and r.loss >= 1.0}
    assert all(p.source in costly and costly[p.source].card not in p.answers for p in puzzles)
    losses = [costly[p.source].loss for p in puzzles]
    assert losses == sorted(losses, reverse=True)


def test_the_daily_puzzle_depends_on_the_date_only() -> None:
    puzzles = starting_set()
    today = daily_puzzle(puzzles, date(2026, 12, 4))
    assert daily_puzzle(list(reversed(puzzles)), date(2026, 12, 4)) == today
    assert len({daily_puzzle(puzzles, date(2026, 12, d)).id for d in range(1, 31)}) > 10
    with pytest.raises(PuzzleError, match="no puzzle"):
        daily_puzzle([], date(2026, 12, 4))


def test_the_shipped_set_has_pisti_puzzles_and_the_next_one_keeps_to_a_family() -> None:
    puzzles = starting_set()
    families = {puzzle.family for puzzle in puzzles}
    assert families == {"greek", "pisti"}
    pisti = [puzzle for puzzle in puzzles if puzzle.family == "pisti"]
    assert len(pisti) >= 20 and all(puzzle.view.shown is not None for puzzle in pisti)
    assert any(Theme.SHOWN_CARD in puzzle.themes for puzzle in pisti)  # Pisti's shown card
    assert all(Theme.SHOWN_CARD not in puzzle.themes for puzzle in puzzles if puzzle.family == "greek")
    for family in families:
        chosen = next_puzzle(Rating(), puzzles, family=family)
        assert chosen is not None and chosen.family == family
    assert next_puzzle(Rating(), puzzles, family="faro") is None
