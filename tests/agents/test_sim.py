"""The search state agrees with the engine, and sampled worlds agree with the view."""

import random
from collections.abc import Iterator

import numpy as np
import pytest

from kseri import PRESETS, Match, Rules, View
from kseri.agents.sampler import Sampler, World
from kseri.agents.sim import RoundSim, SimRules
from kseri.cards import JACK, RANK_OF
from kseri.fast.sampling import shuffled_pools


@pytest.mark.parametrize("preset", list(PRESETS))
def test_sim_scores_rounds_exactly_as_the_engine(preset: str) -> None:
    rules = Rules.preset(preset)
    sim_rules = SimRules(rules)
    for seed in range(15):
        match = Match(rules, seed=seed)
        deal = match.deals[0]
        sim = RoundSim(sim_rules, hands=deal.hands[0], future=deal.hands[1:], centre=deal.centre,
                       turn=match.turn or 0, left=rules.deck_size - rules.centre_size)
        rng = random.Random(seed)
        while match.turn is not None:
            assert sim.turn == match.turn
            assert sorted(sim.hands[sim.turn]) == sorted(match.legal_plays())
            card = rng.choice(match.legal_plays())
            match.play(card)
            sim.play(card)
            view = match.view(0)
            if match.turn is not None:
                assert len(sim.centre) == view.centre_size
                assert tuple(sim.counts) == view.captured_sizes
        assert tuple(sim.final_points()) == match.round_results[0].points


def _views_along_a_round(rules: Rules, seed: int) -> Iterator[View]:
    match = Match(rules, seed=seed)
    rng = random.Random(seed)
    while match.turn is not None:
        yield match.view(match.turn)
        match.play(rng.choice(match.legal_plays()))


@pytest.mark.parametrize("preset", list(PRESETS))
def test_sampled_worlds_agree_with_the_view(preset: str) -> None:
    rules = Rules.preset(preset)
    rng = random.Random(0)
    for seed in range(3):
        for view in _views_along_a_round(rules, seed):
            sampler = Sampler(view)
            world = sampler.sample(rng)
            assert [len(hand) for hand in world.hands] == list(view.hand_sizes)
            assert world.hands[view.seat] == view.hand
            placed = [c for hand in world.hands for c in hand]
            placed += [c for batch in world.future for hand in batch for c in hand]
            seen = {play.card for play in view.plays} | {c for c in view.centre_dealt if c is not None}
            assert not seen & set(placed) and not seen & set(world.face_down)
            assert sum(len(hand) for batch in world.future for hand in batch) == view.stock_size
            if view.shown is not None and view.stock_size:
                assert world.future[-1][view.dealer][-1] == view.shown
            if view.face_down_seen:
                assert world.face_down == view.face_down_seen
            assert len(world.face_down) == view.centre_dealt.count(None)
            # The deal the world implies replays the view's public history exactly.
            replay = Match(rules, deal=sampler.deal(world))
            for play in view.plays:
                replay.play(play.card)
            again = replay.view(view.seat)
            assert again.plays == view.plays and again.hand == view.hand
            assert again.centre_top == view.centre_top and again.hand_sizes == view.hand_sizes
            assert again.face_down_seen == view.face_down_seen
            # ... and the search state built from it is the engine's state.
            sim = sampler.sim(world)
            truth = replay.copy()
            while truth.turn is not None:
                card = truth.legal_plays()[0]
                truth.play(card)
                sim.play(card)
            assert tuple(sim.final_points()) == truth.round_results[0].points


def test_sampled_worlds_read_the_clue_of_a_pile_left_alone() -> None:
    """A player who left a pile they might have taken holds that rank less often in the worlds."""
    rules = Rules.preset("greek")
    checked = 0
    for seed in range(10):
        for view in _views_along_a_round(rules, seed):
            sampler = Sampler(view)
            left_alone = [(seat, rank) for seat, card, rank, pile, *_ in sampler._plays_read.clues.tolist()
                          if pile and RANK_OF[card] not in (rank, JACK)]
            if not left_alone:
                continue
            player, top_rank = left_alone[-1]
            if not any(RANK_OF[c] == top_rank for c in sampler.unseen):
                continue

            def holds(world: World, seat: int = player, rank: int = top_rank) -> bool:
                return any(RANK_OF[c] == rank for c in world.hands[seat])

            weighted = sum(holds(sampler.world(row)) for row in sampler.pools(random.Random(1), 300).tolist())
            uniform = sum(holds(sampler.world(row))
                          for row in shuffled_pools(np.array(sampler.unseen, np.int8), 300, seed=1).tolist())
            assert weighted < uniform
            checked += 1
            break
    assert checked >= 5


@pytest.mark.parametrize("preset", ["pisti", "partnership"])
def test_the_dealer_receives_the_stock_bottom_last(preset: str) -> None:
    rules = Rules.preset(preset, centre_deal="pisti", centre_size=4)
    for seed in range(8):
        deal = Match(rules, seed=seed).deals[0]
        assert deal.hands[-1][deal.dealer][-1] == deal.shown


def test_the_sampler_refuses_a_view_with_no_play_due() -> None:
    match = Match(seed=1)
    random_round = random.Random(1)
    while match.turn is not None:
        match.play(random_round.choice(match.legal_plays()))
    with pytest.raises(ValueError, match="no play is due"):
        Sampler(match.view(0))
