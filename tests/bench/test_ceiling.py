"""The perfect-information ceiling reads the true world from the deal, and plays it."""

from __future__ import annotations

import random

import pytest

from kseri import PRESETS, Match, Rules
from kseri.agents import make_agent
from kseri.agents.sampler import Sampler
from kseri.bench.ceiling import CeilingBot, ceiling_duplicate_round, true_pool
from kseri.bench.duplicate import bench_deal, duplicate_round
from kseri.bench.gauntlet import paired_gain


def _sorted(hands: tuple[tuple[tuple[int, ...], ...], ...]) -> list[list[list[int]]]:
    return [[sorted(int(card) for card in hand) for hand in batch] for batch in hands]


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_true_pool_places_every_card_as_dealt(name: str) -> None:
    rules = Rules.preset(name)
    rng = random.Random(name)
    for index in range(3):
        deal = bench_deal(rules, "ceiling-test", index)
        match = Match(rules, deal=deal)
        while (seat := match.turn) is not None:
            view = match.view(seat)
            sampler = Sampler(view)
            pool = true_pool(view, deal, sampler)
            assert sorted(pool[0].tolist()) == sorted(sampler.unseen)
            placed = sampler.deal(sampler.world(pool[0].tolist()))
            assert placed.centre == deal.centre
            assert _sorted(placed.hands) == _sorted(deal.hands)
            match.play(rng.choice(match.legal_plays()))


def test_the_ceiling_plays_legal_cards_and_beats_the_expert() -> None:
    rules = Rules.preset("pisti")
    match = Match(rules, deal=bench_deal(rules, "ceiling-legal", 0))
    bot = CeilingBot()
    while (seat := match.turn) is not None:
        card = bot.choose(match.view(seat), match.deals[-1])
        assert card in match.legal_plays()
        match.play(card)
    diffs = [ceiling_duplicate_round(rules, bench_deal(rules, "ceiling-strength", i), make_agent("expert"))
             for i in range(40)]
    mean = sum(diffs) / len(diffs)
    spread = (sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)) ** 0.5
    assert mean - 1.96 * spread / len(diffs) ** 0.5 > 0


def test_the_ceiling_rolls_the_true_world_out_against_random_and_beats_the_expert_there() -> None:
    """Against random the rollouts draw, so the ceiling rolls the true world out several times;
    on the same deals, each with the same random player, it beats the expert's margin."""
    rules = Rules.preset("pisti")
    deals = [bench_deal(rules, "ceiling-random", index) for index in range(40)]
    ceiling = [ceiling_duplicate_round(rules, deal, make_agent("random", seed=index), iterations=32)
               for index, deal in enumerate(deals)]
    expert = [duplicate_round(rules, deal, [make_agent("expert"), make_agent("random", seed=index)])
              for index, deal in enumerate(deals)]
    gain = paired_gain(ceiling, expert)
    assert gain.low is not None and gain.low > 0, gain
