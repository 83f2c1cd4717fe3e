"""Duplicate scoring: matchpoints per deal ("board"), totals and rankings with shared places.

A player's *result* on a deal is their points minus their opponents'. On each deal a player
earns 1 matchpoint per player whose result they beat and ½ per tie; with ``n`` players a deal
hands out ``n(n-1)/2`` matchpoints, and a player's percentage is theirs over ``n - 1``.

>>> board_matchpoints({"ann": 12, "bob": 4, "cy": 4})
{'ann': 2.0, 'bob': 0.5, 'cy': 0.5}
>>> percentages({"ann": 2.0, "bob": 0.5, "cy": 0.5})
{'ann': 100.0, 'bob': 25.0, 'cy': 25.0}
>>> rank({"ann": 3.0, "bob": 1.5, "cy": 1.5})
{'ann': 1, 'bob': 2, 'cy': 2}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def board_matchpoints(results: Mapping[str, float]) -> dict[str, float]:
    """Matchpoints on one deal: 1 per player beaten, ½ per tie."""
    return {
        p: sum(1.0 if r > s else 0.5 if r == s else 0.0 for q, s in results.items() if q != p)
        for p, r in results.items()
    }


def percentages(matchpoints: Mapping[str, float], players: int | None = None) -> dict[str, float]:
    """Matchpoints as a percentage of the maximum (``players - 1`` per deal)."""
    n = len(matchpoints) if players is None else players
    top = max(n - 1, 1)
    return {p: 100.0 * m / top for p, m in matchpoints.items()}


def total_matchpoints(boards: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Each player's matchpoints summed over the deals they played."""
    total: dict[str, float] = {}
    for board in boards:
        for p, m in board_matchpoints(board).items():
            total[p] = total.get(p, 0.0) + m
    return total


def difference_from_field(results: Mapping[str, float]) -> dict[str, float]:
    """The IMP-like alternative: each result minus the field's mean on that deal.

    >>> difference_from_field({"ann": 12, "bob": 4, "cy": 2})
    {'ann': 6.0, 'bob': -2.0, 'cy': -4.0}
    """
    mean = sum(results.values()) / len(results)
    return {p: r - mean for p, r in results.items()}


def rank(scores: Mapping[str, float]) -> dict[str, int]:
    """Places by score, highest first; equal scores share the best place ("1, 2, 2, 4")."""
    ordered = sorted(scores.values(), reverse=True)
    return {p: ordered.index(s) + 1 for p, s in scores.items()}


def place_label(player: str, scores: Mapping[str, float]) -> str:
    """``"#2 of 3"``, or ``"#2= of 3"`` for a shared place.

    >>> place_label("bob", {"ann": 3.0, "bob": 1.5, "cy": 1.5})
    '#2= of 3'
    """
    places = rank(scores)
    shared = sum(1 for q in places.values() if q == places[player]) > 1
    return f"#{places[player]}{'=' if shared else ''} of {len(scores)}"
