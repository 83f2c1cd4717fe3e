"""Tournaments' standings as pure functions: Swiss points and Buchholz, duplicate matchpoints
(a mirrored round's two legs as one game), an arena's points, forfeits and shared places; the
server's tournament room (:mod:`kseri.server.tournaments`) ranks its stored games with them."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kseri.bench import arena, swiss
from kseri.bench.matchpoints import board_matchpoints

MATCHPOINTED = ("duplicate", "mirrored")
"""The formats ranked by matchpoints."""


@dataclass(frozen=True, slots=True)
class Result:
    """A game of a round: ``first`` sat at seat 0; ``score`` is first's (``None``: not over);
    ``points`` the match totals by seat; a bye has ``second`` ``None``."""

    round: int
    first: str
    second: str | None
    score: float | None = None
    points: tuple[int, int] | None = None
    forfeit: str | None = None
    """``first``, ``second`` or ``both``: who did not come (lost by forfeit, no points);
    ``closed``: a moderator closed the table (½ each, no points)."""


def standings(fmt: str, players: Sequence[str], results: Sequence[Result],
              seed: str = "") -> list[dict[str, Any]]:
    """The standings, best first: each player's ``score`` (game points), ``buchholz``,
    ``matchpoints`` (duplicate), ``forfeits`` (rounds lost by not coming) and ``place`` (equal
    on every tie-break: a shared place).

    Swiss orders by score, Buchholz, then a draw by ``seed``; duplicate by matchpoints, score,
    Buchholz, then the draw. Unfinished games count nothing. A forfeit is a loss (a win for the
    one who came); a double forfeit scores nothing for either and counts in no Buchholz.

    >>> rs = [Result(1, "a", "b", 1.0, (12, 4)), Result(1, "c", "d", 0.0, (3, 9))]
    >>> [(r["user"], r["score"], r["matchpoints"]) for r in standings("duplicate", "abcd", rs)]
    [('a', 1.0, 1.0), ('d', 1.0, 1.0), ('b', 0.0, 0.0), ('c', 0.0, 0.0)]
    >>> rs = [Result(1, "a", "b", 1.0, None, "second"), Result(1, "c", "d", 0.0, None, "both")]
    >>> [(r["user"], r["score"], r["forfeits"]) for r in standings("swiss", "abcd", rs, "s")]
    [('a', 1.0, 0), ('b', 0.0, 1), ('c', 0.0, 1), ('d', 0.0, 1)]
    """
    done = [r for r in results if r.second is None or r.score is not None]
    if fmt == "arena":
        return _arena_standings(players, done, seed)
    counted = mirrored_results(results) if fmt == "mirrored" else done
    played = [swiss.Game(r.first, r.second, r.score or 0.0) for r in counted if r.forfeit != "both"]
    score, buchholz = swiss.scores(players, played), swiss.buchholz(players, played)
    forfeits = dict.fromkeys(players, 0)
    for r in counted:
        for who in _forfeiters(r):
            forfeits[who] = forfeits.get(who, 0) + 1
    points = dict.fromkeys(players, 0.0)
    if fmt in MATCHPOINTED:
        points = _matchpoints(players, done)
    draw = {p: hashlib.sha256(f"{seed}:{p}".encode()).hexdigest() for p in players}

    def key(p: str) -> tuple[float, ...]:
        if fmt in MATCHPOINTED:
            return (-points[p], -score[p], -buchholz[p])
        return (-score[p], -buchholz[p])

    order = sorted(players, key=lambda p: (key(p), draw[p]))
    rows: list[dict[str, Any]] = []
    for index, p in enumerate(order):
        place = rows[-1]["place"] if rows and key(order[index - 1]) == key(p) else index + 1
        rows.append({"user": p, "score": score[p], "buchholz": buchholz[p],
                     "matchpoints": round(points[p], 2), "forfeits": forfeits[p], "place": place})
    return rows


def arena_points(players: Sequence[str], results: Sequence[Result]) -> dict[str, int]:
    """Each player's arena points: :data:`kseri.bench.arena.WIN` a win, ``DRAW`` a draw,
    ``LOSS`` a loss, over the games over.

    >>> arena_points("abc", [Result(1, "a", "b", 1.0), Result(1, "c", "a", 0.5), Result(1, "b", "c")])
    {'a': 3, 'b': 0, 'c': 1}
    """
    points = dict.fromkeys(players, 0)
    for r in results:
        if r.second is None or r.score is None:
            continue
        for who, score in ((r.first, r.score), (r.second, 1.0 - r.score)):
            points[who] = points.get(who, 0) + (arena.WIN if score == 1 else arena.DRAW if score == 0.5
                                                 else arena.LOSS)
    return points


def _arena_standings(players: Sequence[str], results: Sequence[Result], seed: str) -> list[dict[str, Any]]:
    """An arena's standings: by points (in ``score``), equal points sharing a place."""
    points = arena_points(players, results)
    draw = {p: hashlib.sha256(f"{seed}:{p}".encode()).hexdigest() for p in players}
    order = sorted(players, key=lambda p: (-points[p], draw[p]))
    rows: list[dict[str, Any]] = []
    for index, p in enumerate(order):
        place = rows[-1]["place"] if rows and points[order[index - 1]] == points[p] else index + 1
        rows.append({"user": p, "score": float(points[p]), "buchholz": 0.0, "matchpoints": 0.0,
                     "forfeits": 0, "place": place})
    return rows


def mirrored_results(results: Sequence[Result]) -> list[Result]:
    """A mirrored round's two legs of each pair as one game (the first leg's seats): the pair's
    points over both deals compared (the luck of the cards cancels: each held both hands), a
    forfeit in either leg the round's forfeit, a closed leg ½ each; byes as they are, a pair
    with a leg not over left out.

    >>> legs = [Result(1, "a", "b", 1.0, (12, 4)), Result(1, "b", "a", 1.0, (15, 5))]
    >>> mirrored_results(legs)  # a: 12 + 5, b: 4 + 15
    [Result(round=1, first='a', second='b', score=0.0, points=(17, 19), forfeit=None)]
    """
    legs: dict[tuple[int, frozenset[str]], list[Result]] = {}
    out: list[Result] = []
    for r in results:
        if r.second is None:
            out.append(r)
        else:
            legs.setdefault((r.round, frozenset((r.first, r.second))), []).append(r)
    for pair in legs.values():
        if len(pair) != 2 or any(r.score is None for r in pair):
            continue
        lead, back = pair
        a, b = lead.first, lead.second or ""
        forfeit = next((r for r in pair if r.forfeit is not None), None)
        if forfeit is not None:
            lost = _forfeiters(forfeit)
            which = "closed" if forfeit.forfeit == "closed" else "both" if len(lost) == 2 \
                else "first" if lost == [a] else "second"
            score = {"closed": 0.5, "both": 0.0, "first": 0.0, "second": 1.0}[which]
            out.append(Result(lead.round, a, b, score, None, which))
            continue
        mine = (lead.points or (0, 0))[0] + (back.points or (0, 0))[1]
        theirs = (lead.points or (0, 0))[1] + (back.points or (0, 0))[0]
        score = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        out.append(Result(lead.round, a, b, score, (mine, theirs)))
    return out


def _forfeiters(result: Result) -> list[str]:
    """Who lost this game by not coming."""
    if result.forfeit == "both":
        return [result.first, result.second or ""]
    if result.forfeit == "first":
        return [result.first]
    if result.forfeit == "second" and result.second is not None:
        return [result.second]
    return []


def _matchpoints(players: Sequence[str], results: Sequence[Result]) -> dict[str, float]:
    """Duplicate matchpoints: per round and seat, each result (own points minus the opponent's)
    against everyone's who held that seat. A bye, a forfeit won and a table a moderator closed
    (for both) score the round's average board: cards not played out are compared with nobody's;
    a forfeit lost scores nothing."""
    total = dict.fromkeys(players, 0.0)
    boards: dict[tuple[int, int], dict[str, float]] = {}
    averaged: list[tuple[int, str]] = []
    for r in results:
        if r.second is None or r.forfeit == "second":
            averaged.append((r.round, r.first))
        elif r.forfeit == "first":
            averaged.append((r.round, r.second))
        elif r.forfeit == "closed":
            averaged.extend([(r.round, r.first), (r.round, r.second)])
        elif r.points is not None and r.forfeit is None:
            first, second = r.points
            boards.setdefault((r.round, 0), {})[r.first] = first - second
            boards.setdefault((r.round, 1), {})[r.second] = second - first
    for board in boards.values():
        for p, m in board_matchpoints(board).items():
            total[p] += m
    for number, player in averaged:
        sizes = [len(b) for (rnd, _), b in boards.items() if rnd == number]
        total[player] += (sum(sizes) / len(sizes) - 1) / 2 if sizes else 0.0
    return total


__all__ = ["MATCHPOINTED", "Result", "arena_points", "mirrored_results", "standings"]
