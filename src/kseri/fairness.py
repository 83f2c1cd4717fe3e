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
