"""Provably fair deals: a secret seed committed by hash, the cutter's entropy, the deal seed.

Before a round the dealer (the server) publishes ``commitment(secret)``; the player who cuts
may add ``cut`` text of their own; the round is shuffled from ``deal_seed(secret, cut)``. When
the round ends the secret is revealed and anyone can check both steps.

>>> secret = "4f1c2a"
>>> verify_deal_seed(commitment(secret), secret, "my cut", deal_seed(secret, "my cut"))
True
"""

from __future__ import annotations

import hashlib
import secrets


def new_secret() -> str:
    """A fresh 256-bit secret, as hex."""
    return secrets.token_hex(32)


def commitment(secret: str) -> str:
    """The published hash of a round's secret (SHA-256, hex)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def deal_seed(secret: str, cut: str = "") -> str:
    """The shuffle seed of a round: SHA-256 of the secret and the cutter's entropy."""
    return hashlib.sha256(f"{secret}\n{cut}".encode()).hexdigest()


def verify_deal_seed(commitment_hex: str, secret: str, cut: str, seed: str) -> bool:
    """Whether ``secret`` matches the commitment and ``seed`` follows from it and ``cut``."""
    return commitment(secret) == commitment_hex and deal_seed(secret, cut) == seed


def dealt_secret(key: str, index: int) -> str:
    """Round ``index``'s secret at a table dealt from ``key`` (a tournament round's deal key):
    every table given the same key deals the same cards, round after round.

    >>> dealt_secret("k", 0) == dealt_secret("k", 0) != dealt_secret("k", 1)
    True
    """
    return hashlib.sha256(f"dealt:{key}:{index}".encode()).hexdigest()


def daily_cut(day: str, rules: str, index: int) -> str:
    """The public cut of a daily deal: the day (``2026-12-02``), the rule family, the round."""
    return f"daily:{day}:{rules}:{index}"


def daily_seeds(secret: str, day: str, rules: str, rounds: int = 3) -> list[str]:
    """The day's deal seeds: the server commits to ``secret`` when the day opens, reveals it
    when the day closes; each seed is ``deal_seed(secret, daily_cut(day, rules, i))``.

    >>> s = daily_seeds("abc", "2026-12-02", "greek")
    >>> len(s), verify_daily_seed(commitment("abc"), "abc", "2026-12-02", "greek", 1, s[1])
    (3, True)
    """
    return [deal_seed(secret, daily_cut(day, rules, i)) for i in range(rounds)]


def verify_daily_seed(
    commitment_hex: str, secret: str, day: str, rules: str, index: int, seed: str
) -> bool:
    """Whether a daily record's seed follows from the revealed secret committed to."""
    return verify_deal_seed(commitment_hex, secret, daily_cut(day, rules, index), seed)
