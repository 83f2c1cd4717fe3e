"""Swiss pairing as pure functions: by score, no repeat pairings, one bye each, seat balance.

A round pairs players in standing order (score, then Buchholz, then a draw by ``seed``),
each with the highest-placed player they have not met, backtracking when a pairing would
strand someone; only when no repeat-free pairing exists are repeats allowed. With an odd
field, the lowest-placed player without a bye sits out and scores ``BYE_POINTS``. Of a pair,
whoever has sat first fewer times sits first (like chess colours), the higher placed on a tie;
two players who both sat first (or second) twice more than the other way are not paired
while a repeat-free pairing without such a clash exists (and is found within
``SEARCH_BUDGET`` steps), so seats stay balanced within 2 unless only a clash avoids a repeat.

>>> games = [Game("ann", "bob", 1.0), Game("cy", "dee", 0.5)]
>>> pair_round(["ann", "bob", "cy", "dee"], games, seed="t")
[('ann', 'cy'), ('dee', 'bob')]
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

BYE_POINTS = 1.0
"""What a bye scores (a win)."""
SEARCH_BUDGET = 20_000
"""The most steps one try of a round's pairing may take before it gives up and the next,
looser try is made: a large field whose lowest placed all lean the same way (every table of a
duplicate round dealt the same cards and played alike) would otherwise search for hours."""


@dataclass(frozen=True)
class Game:
    """A finished game: ``first`` sat first; ``score`` is ``first``'s (1 win, ½ draw, 0 loss).

    A bye is a game with ``second`` ``None``, scoring ``BYE_POINTS``.
    """

    first: str
    second: str | None
    score: float = 0.0


def scores(players: Sequence[str], games: Sequence[Game]) -> dict[str, float]:
    """Each player's points (and those of anyone who played in ``games`` but is no longer in
    the field: a withdrawn player still counts in their opponents' Buchholz).

    >>> scores(["ann"], [Game("ann", "bob", 0.5)])
    {'ann': 0.5, 'bob': 0.5}
    """
    out = dict.fromkeys(players, 0.0)
    for g in games:
        if g.second is None:
            out[g.first] = out.get(g.first, 0.0) + BYE_POINTS
        else:
            out[g.first] = out.get(g.first, 0.0) + g.score
            out[g.second] = out.get(g.second, 0.0) + 1.0 - g.score
    return out


def buchholz(players: Sequence[str], games: Sequence[Game]) -> dict[str, float]:
    """The sum of each player's opponents' scores (byes count nothing)."""
    s = scores(players, games)
    out = dict.fromkeys(players, 0.0)
    for g in games:
        if g.second is not None:
            out[g.first] = out.get(g.first, 0.0) + s[g.second]
            out[g.second] = out.get(g.second, 0.0) + s[g.first]
    return out


def _draw(seed: str, player: str) -> str:
    return hashlib.sha256(f"{seed}:{player}".encode()).hexdigest()


def standings(players: Sequence[str], games: Sequence[Game], seed: str = "") -> list[str]:
    """Players best first: score, then Buchholz, then a deterministic draw by ``seed``."""
    s, b = scores(players, games), buchholz(players, games)
    return sorted(players, key=lambda p: (-s[p], -b[p], _draw(seed, p)))


def _pair(order: list[str], met: set[frozenset[str]], repeats: bool,
          leaning: dict[str, int] | None, dead: set[frozenset[str]], budget: list[int],
          ) -> list[tuple[str, str]] | None:
    """Pairs of ``order``, each player with the highest placed one left it may meet: not met
    before (unless ``repeats``), and, with ``leaning`` (each player's firsts minus seconds),
    not a player who leans the same way by 2 or more (one of them would lean by 3).

    ``dead`` remembers the sets of players left that could not be paired (``order`` keeps the
    standings' order, so the set decides the answer): the search tries each only once, where
    it would otherwise try the same dead end again after every other way of reaching it.
    ``budget`` holds how many more steps the search may take; spent, it gives up (``None``)."""
    if not order:
        return []
    left = frozenset(order)
    budget[0] -= 1
    if left in dead or budget[0] < 0:
        return None
    top, rest = order[0], order[1:]
    for i, other in enumerate(rest):
        if not repeats and frozenset((top, other)) in met:
            continue
        if leaning is not None and _clash(leaning[top], leaning[other]):
            continue
        tail = _pair(rest[:i] + rest[i + 1:], met, repeats, leaning, dead, budget)
        if tail is not None:
            return [(top, other), *tail]
    dead.add(left)
    return None


def _clash(one: int, other: int) -> bool:
    """Whether two players' leanings (firsts minus seconds) both reach 2 the same way."""
    return (one >= 2 and other >= 2) or (one <= -2 and other <= -2)


def pair_round(
    players: Sequence[str], games: Sequence[Game], seed: str = ""
) -> list[tuple[str, str]]:
    """The next round's pairs ``(sits first, sits second)``, and ``(player, "")`` for a bye last."""
    order = standings(players, games, seed)
    met = {frozenset((g.first, g.second)) for g in games if g.second is not None}
    had = {g.first for g in games if g.second is None}
    fresh: list[str | None] = [None]
    used: list[str | None] = []
    if len(order) % 2:
        # the lowest placed without a bye first; a second bye only when no first one pairs
        fresh = [p for p in reversed(order) if p not in had]
        used = [p for p in reversed(order) if p in had]
    firsts = {p: sum(1 for g in games if g.first == p and g.second) for p in players}
    seconds = {p: sum(1 for g in games if g.second == p) for p in players}
    leaning = {p: firsts[p] - seconds[p] for p in players}
    found: tuple[str | None, list[tuple[str, str]]] | None = None
    tries = ((fresh, False, leaning), (fresh, False, None), (fresh, True, None),
             (used, False, None), (used, True, None))
    for candidates, repeats, balance in tries:
        for bye in candidates:
            pairs = _pair([p for p in order if p != bye], met, repeats, balance, set(), [SEARCH_BUDGET])
            if pairs is not None:
                found = (bye, pairs)
                break
        if found is not None:
            break
    assert found is not None
    bye, pairs = found
    seated = []
    for a, b in pairs:
        if leaning[b] < leaning[a]:
            a, b = b, a
        seated.append((a, b))
    if bye is not None:
        seated.append((bye, ""))
    return seated
