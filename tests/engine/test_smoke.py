"""Whole matches of every preset run to a winner with every card accounted for."""

import random

import pytest

from kseri import PRESETS, Match, Rules
from kseri.engine import random_round


@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_matches_finish_with_every_card_accounted_for(preset: str) -> None:
    rules = Rules.preset(preset)
    for seed in range(5):
        match, rng = Match(rules, seed=seed), random.Random(seed)
        while True:
            random_round(match, rng)
            result = match.round_results[-1]
            assert sum(map(len, result.captured)) + len(match.centre_left) == rules.deck_size
            if match.is_over():
                break
            match.next_round()
        assert match.winner is not None
        assert match.totals[match.winner] >= rules.target
