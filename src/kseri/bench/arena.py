"""Arena pairing: whoever is waiting is paired at once with the closest score, no rematch.

Points per game: ``WIN`` 2, ``DRAW`` 1, ``LOSS`` 0; no streak bonus.

>>> pair_waiting({"ann": 6, "bob": 5, "cy": 0}, last_opponent={"ann": "bob"})
[('ann', 'cy')]
"""

from __future__ import annotations

from collections.abc import Mapping

WIN, DRAW, LOSS = 2, 1, 0


def pair_waiting(
    waiting: Mapping[str, int], last_opponent: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """Pairs of waiting players, best score first, each with the closest score not just met.

    Ties on the gap go to the higher score, then the name; a player left over keeps waiting.
    """
    last = last_opponent or {}
    left = sorted(waiting, key=lambda p: (-waiting[p], p))
    pairs: list[tuple[str, str]] = []
    while left:
        top = left.pop(0)
        options = [q for q in left if last.get(top) != q and last.get(q) != top]
        if not options:
            continue
        other = min(options, key=lambda q: (abs(waiting[top] - waiting[q]), -waiting[q], q))
        left.remove(other)
        pairs.append((top, other))
    return pairs
