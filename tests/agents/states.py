"""Helpers for the tests that play state records of the compiled core (``kseri.fast.flat.STATE``)
through its one step (``kseri.fast.play``)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from kseri import Rules
from kseri.engine import Deal
from kseri.fast import Positions, world_states
from kseri.fast.flat import POINTS


def dealt_state(rules: Rules, deal: Deal, turn: int) -> NDArray[np.void]:
    """The round of ``deal`` at its first play as one state record (every card known)."""
    future = np.array([deal.hands[1:]], np.int8).reshape(1, len(deal.hands) - 1, rules.players,
                                                          rules.batch_size)
    return world_states(rules, Positions(
        hands=np.array([deal.hands[0]], np.int8),
        lengths=np.full((1, rules.players), rules.batch_size, np.int64), future=future,
        centre=np.array([deal.centre], np.int8), centre_len=np.full(1, len(deal.centre), np.int64),
        numbers=np.array([[sum(rules.points_table[c] for c in deal.centre), turn,
                           rules.deck_size - rules.centre_size, -1, 0, 0]], np.int64),
        points=np.zeros((1, rules.sides), np.int64), counts=np.zeros((1, rules.sides), np.int64),
        seen=np.zeros((1, 13), np.int64)))


def hand(states: NDArray[np.void]) -> list[int]:
    """The hand of the seat to play in ``states[0]``."""
    turn = states[0]["turn"]
    cards: list[int] = states[0]["hands"][turn, : states[0]["lengths"][turn]].tolist()
    return cards


def left(rules: Rules, states: NDArray[np.void]) -> int:
    """The cards still to play in ``states[0]``'s round."""
    return rules.deck_size - rules.centre_size - int(states[0]["index"])


def final_points(rules: Rules, states: NDArray[np.void]) -> tuple[int, ...]:
    """Each side's round points in ``states[0]``, its round over."""
    assert states[0]["turn"] == -1
    return tuple(states[0]["per_side"][POINTS, : rules.sides].tolist())
