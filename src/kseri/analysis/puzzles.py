"""Puzzles cut from finished games: positions where one card is clearly best, kept as the seat saw
them, with their themes, an optional short sequence, and ratings for puzzles and players.

A position of a record becomes a puzzle when the search ranks one kind of card above every other
by at least :data:`MIN_GAP` points, proven either by the exact endgame solver (the view leaves one
world: :func:`kseri.analysis.search.single_world`) or by an interval: over
:data:`~kseri.analysis.search.WORLDS` of the master's worlds the best card's lead has a 95%
interval above 0. A puzzle holds the seat's :class:`~kseri.engine.View` only, so two games that
differ only in cards the seat could not see give the same puzzle.

Ratings are OpenSkill's (Plackett-Luce): an attempt is a game between the player and the puzzle,
won by whoever the answer favours (:func:`rate_attempt`); :func:`next_puzzle` picks the untried
puzzle nearest the player's rating.

>>> player, puzzle = rate_attempt(Rating(), Rating(), solved=True)
>>> player.shown > Rating().shown > puzzle.shown
True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from importlib import resources
from typing import Any

from openskill.models import PlackettLuce

from kseri.agents import make_agent
from kseri.agents.endgame import solve
from kseri.agents.master import play_classes
from kseri.analysis.review import Analysis, record_plays
from kseri.analysis.search import WORLDS, Ranking, glance, rank, single_world
from kseri.analysis.themes import Theme, themes
from kseri.bench.stats import Interval
from kseri.cards import Card, CardError
from kseri.engine import Match, View
from kseri.records import record_from_match
from kseri.rules import Rules
from kseri.views import view_from_json, view_to_json

MIN_GAP = 1.0
"""A puzzle's best card leads the next kind of card by at least this many points."""
SCREEN_ITERATIONS = 64
"""Worlds of the quick search that picks the positions worth proving."""
FORMAT = "kseri-puzzle/1"
RATING_SCALE = 60.0
"""Shown rating points per OpenSkill ``mu`` point (the start, ``mu`` 25, shows as 1500)."""

_MODEL = PlackettLuce()


class PuzzleError(ValueError):
    """A puzzle that cannot be read, or an answer that is not a card of the puzzle's hand."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A puzzle's or a player's OpenSkill rating."""

    mu: float = _MODEL.mu
    sigma: float = _MODEL.sigma

    @property
    def shown(self) -> int:
        """The rating as players read it (1500 at the start)."""
        return round(self.mu * RATING_SCALE)


def rate_attempt(player: Rating, puzzle: Rating, *, solved: bool) -> tuple[Rating, Rating]:
    """The player's and the puzzle's ratings after one attempt (a solve is a win for the player)."""
    ours, theirs = _MODEL.rating(player.mu, player.sigma), _MODEL.rating(puzzle.mu, puzzle.sigma)
    [[new_player], [new_puzzle]] = _MODEL.rate([[ours], [theirs]], ranks=[0, 1] if solved else [1, 0])
    return Rating(new_player.mu, new_player.sigma), Rating(new_puzzle.mu, new_puzzle.sigma)


@dataclass(frozen=True, slots=True)
class Puzzle:
    """One position with a clearly best card, as its seat saw it."""

    id: str
    view: View
    answers: tuple[Card, ...]
    """The best card and the cards of the hand interchangeable with it: any of them solves it."""
    values: tuple[tuple[Card, float], ...]
    """Each card of the hand with its value (to a thousandth of a point), best first."""
    exact: bool
    """Proven by the exact endgame solver (else by the interval)."""
    gap: Interval
    """The best card's lead over the next kind of card, with its interval."""
    themes: tuple[Theme, ...]
    sequence: tuple[Card, ...] = ()
    """Exact puzzles: the answer, the opponent's best reply and the seat's best next card."""
    rating: Rating = field(default_factory=Rating)
    source: tuple[int, int] = (0, 0)
    """The round and play index of the game it was cut from."""

    @property
    def family(self) -> str:
        """The rule family the puzzle is played under (its rules' name: ``greek``, ``pisti``...)."""
        return self.view.rules.name

    def check(self, text: str) -> bool:
        """Whether the card named by ``text`` solves the puzzle; :class:`PuzzleError` when it is
        not a card of the hand."""
        try:
            card = Card(text.strip())
        except CardError as error:
            raise PuzzleError(str(error)) from None
        if card not in self.view.hand:
            hand = " ".join(c.pretty() for c in self.view.hand)
            raise PuzzleError(f"{card.pretty()} is not a card of the hand: {hand}")
        return card in self.answers

    def to_json(self) -> dict[str, Any]:
        """The puzzle as JSON (one line of a puzzles file)."""
        return {"format": FORMAT, "id": self.id, "view": view_to_json(self.view),
                "answers": [str(card) for card in self.answers],
                "values": [[str(card), value] for card, value in self.values],
                "exact": self.exact, "gap": [self.gap.estimate, self.gap.low, self.gap.high],
                "themes": [theme.value for theme in self.themes],
                "sequence": [str(card) for card in self.sequence],
                "rating": [self.rating.mu, self.rating.sigma], "source": list(self.source)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Puzzle:
        """A puzzle from :meth:`to_json`'s output; :class:`PuzzleError` naming what is wrong."""
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise PuzzleError(f"not a puzzle: the format must be {FORMAT!r}")
        try:
            estimate, low, high = data["gap"]
            round_index, play = data["source"]
            return cls(
                id=str(data["id"]), view=view_from_json(data["view"]),
                answers=tuple(Card(c) for c in data["answers"]),
                values=tuple((Card(c), float(v)) for c, v in data["values"]),
                exact=bool(data["exact"]), gap=Interval(float(estimate), low, high),
                themes=tuple(Theme(t) for t in data["themes"]),
                sequence=tuple(Card(c) for c in data["sequence"]),
                rating=Rating(*map(float, data["rating"])), source=(int(round_index), int(play)))
        except (KeyError, TypeError, ValueError) as error:
            raise PuzzleError(f"puzzle {data.get('id', '?')}: {error!r}") from None


def principal_line(view: View, best: Card, plies: int = 3) -> tuple[Card, ...]:
    """``best``, then each side's best answer by the exact solver, ``plies`` cards in all (fewer
    when the round ends), where the view leaves one world; else ``()``."""
    from kseri.fast import play
    worlds = single_world(view)
    if worlds is None:
        return ()
    rules = view.rules
    world = worlds[0]
    line = [best]
    play(rules, worlds, int(best))
    while len(line) < plies and world["turn"] >= 0:
        solved = solve(rules, world, rules.side_of(int(world["turn"])))
        card = max(solved, key=lambda c: (solved[c], -c))
        line.append(Card(card))
        play(rules, worlds, card)
    return tuple(line)


def puzzle_at(view: View, *, worlds: int = WORLDS, seed: int = 0,
              min_gap: float = MIN_GAP, source: tuple[int, int] = (0, 0),
              screen: Ranking | None = None) -> Puzzle | None:
    """The puzzle of ``view`` (the seat on its turn), or ``None`` when no card is clearly best;
    ``screen``, an exact ranking already made (:func:`~kseri.analysis.search.glance`), is used as it is."""
    if len(play_classes(view.hand, view.rules.points_table)) < 2:
        return None
    ranking = screen if screen is not None and screen.exact else rank(view, worlds=worlds, seed=seed)
    low = ranking.gap.low
    if ranking.gap.estimate < min_gap or low is None or low <= 0:
        return None
    best = ranking.best
    answers = ranking.equivalents(view)
    digest = hashlib.sha256(json.dumps([view_to_json(view), str(best)], sort_keys=True).encode())
    values = tuple((card, round(value, 3)) for card, value in ranking.values)
    low, high = (None if bound is None else round(bound, 3) for bound in (ranking.gap.low, ranking.gap.high))
    gap = Interval(round(ranking.gap.estimate, 3), low, high)
    return Puzzle(digest.hexdigest()[:12], view, answers, values, ranking.exact, gap,
                  themes(view, best), principal_line(view, best) if ranking.exact else (), Rating(), source)


def puzzles_from_record(record: Mapping[str, Any], *, seats: Collection[int] | None = None,
                        plays: Collection[tuple[int, int]] | None = None, worlds: int = WORLDS,
                        min_gap: float = MIN_GAP, seed: int = 0,
                        progress: Callable[[], None] | None = None) -> list[Puzzle]:
    """The puzzles of a finished game (:mod:`kseri.records`; a record that does not replay raises
    :class:`~kseri.records.RecordError`): every position of the ``seats`` (default all) and of the
    ``(round, play)`` indices in ``plays`` (default all; a player's mistakes, say) whose best card
    is clearly best."""
    found = []
    for view, _, round_index, index in record_plays(record):
        if progress is not None:
            progress()
        if seats is not None and view.seat not in seats:
            continue
        if plays is not None and (round_index, index) not in plays:
            continue
        if len(play_classes(view.hand, view.rules.points_table)) < 2:
            continue
        screen = glance(view, iterations=SCREEN_ITERATIONS, seed=seed)
        if screen.gap.estimate < min_gap:
            continue
        puzzle = puzzle_at(view, worlds=worlds, seed=seed, min_gap=min_gap,
                           source=(round_index, index), screen=screen)
        if puzzle is not None:
            found.append(puzzle)
    return found


def bot_records(games: int, level: str, rules: str | None, seed: int) -> list[dict[str, Any]]:
    """``games`` single-round games between bots of ``level`` at every seat, as records (deal
    seeds ``seed``, ``seed + 1``, ...; ``rules`` a spec, default the Greek game)."""
    chosen = Rules.from_spec(rules) if rules else None
    records = []
    for game in range(games):
        match = Match(chosen, seed=seed + game)
        bots = [make_agent(level, seed=seed + game * match.rules.players + seat)
                for seat in range(match.rules.players)]
        while match.turn is not None and not match.is_round_over():
            match.play(bots[match.turn].choose(match.view(match.turn)))
        records.append(record_from_match(match))
    return records


def mistake_puzzles(record: Mapping[str, Any], analysis: Analysis, seat: int, *, least: float = 1.0,
                    worlds: int = WORLDS, seed: int = 0) -> list[Puzzle]:
    """"Learn from your mistakes": the puzzles of the positions where ``seat`` lost at least
    ``least`` points in ``analysis`` (the review of ``record``) whose answer is not the card it
    played, costliest first."""
    mistakes = analysis.mistakes(len(analysis.reviews), least=least)
    played = {(review.round, review.play): review.card for review in mistakes if review.seat == seat}
    return puzzles_of_plays(record, played, seat, worlds=worlds, seed=seed)


def puzzles_of_plays(record: Mapping[str, Any], played: Mapping[tuple[int, int], Card], seat: int, *,
                     worlds: int = WORLDS, seed: int = 0) -> list[Puzzle]:
    """The puzzles of ``seat``'s positions ``(round, play)`` in ``played`` (in its order: costliest
    first, say) whose answer is not the card played there (a stored analysis's mistakes, read back
    from its JSON by a server)."""
    order = {where: rank for rank, where in enumerate(played)}
    found = puzzles_from_record(record, seats={seat}, plays=set(played), worlds=worlds, seed=seed)
    kept = [puzzle for puzzle in found if played[puzzle.source] not in puzzle.answers]
    return sorted(kept, key=lambda puzzle: order[puzzle.source])


def daily_puzzle(puzzles: Sequence[Puzzle], day: date) -> Puzzle:
    """The puzzle of ``day``: the same for everyone, drawn from ``puzzles`` by the date alone."""
    if not puzzles:
        raise PuzzleError("no puzzle to choose the daily puzzle from")
    digest = hashlib.sha256(f"kseri-daily:{day.isoformat()}".encode()).digest()
    ordered = sorted(puzzles, key=lambda puzzle: puzzle.id)
    return ordered[int.from_bytes(digest[:8], "big") % len(ordered)]


def read_puzzles(lines: Iterable[str]) -> list[Puzzle]:
    """Puzzles from JSON lines (blank lines skipped); :class:`PuzzleError` naming the bad line."""
    puzzles = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            puzzles.append(Puzzle.from_json(json.loads(line)))
        except (json.JSONDecodeError, PuzzleError) as error:
            raise PuzzleError(f"line {number}: {error}") from None
    return puzzles


@cache
def starting_set() -> tuple[Puzzle, ...]:
    """The puzzles shipped with the package (``analysis/puzzles.jsonl``, cut from bot games:
    ``docs/analysis.md`` says how)."""
    text = (resources.files("kseri.analysis") / "puzzles.jsonl").read_text(encoding="utf-8")
    return tuple(read_puzzles(text.splitlines()))


def next_puzzle(player: Rating, puzzles: Iterable[Puzzle], done: Collection[str] = (),
                family: str | None = None) -> Puzzle | None:
    """The puzzle not in ``done`` (ids), of ``family`` when one is named, whose rating is nearest
    the player's (``None``: none left)."""
    left = [puzzle for puzzle in puzzles
            if puzzle.id not in done and (family is None or puzzle.family == family)]
    if not left:
        return None
    return min(left, key=lambda puzzle: (abs(puzzle.rating.mu - player.mu), puzzle.id))


__all__ = [
    "FORMAT", "MIN_GAP", "Puzzle", "PuzzleError", "Rating", "bot_records", "daily_puzzle", "mistake_puzzles",
    "next_puzzle", "principal_line", "puzzle_at", "puzzles_from_record", "puzzles_of_plays", "rate_attempt",
    "read_puzzles", "starting_set",
]
