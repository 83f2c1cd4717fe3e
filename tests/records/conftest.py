"""Matches to record: played by random bots that each see only their own view."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from kseri import Match, Rules
from kseri.agents import make_agent

PlayMatch = Callable[..., Match]


def play_match(rules: Rules, seed: int | str, stop_after: int | None = None) -> Match:
    """A match between random bots, to its end or until ``stop_after`` plays in all."""
    match = Match(rules, seed=seed)
    bots = [make_agent("random", seed=random.Random(f"{seed}:{seat}").getrandbits(32))
            for seat in range(rules.players)]
    played = 0
    while True:
        while (seat := match.turn) is not None:
            if played == stop_after:
                return match
            match.play(bots[seat].choose(match.view(seat)))
            played += 1
        if match.is_over() or played == stop_after:
            return match
        match.next_round()


@pytest.fixture(name="play_match", scope="session")
def play_match_fixture() -> PlayMatch:
    """:func:`play_match`, for tests."""
    return play_match
