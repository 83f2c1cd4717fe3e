"""The compiled step on a state record agrees with the engine from any known position, and
sampled worlds agree with the view."""

import random

import numpy as np
import pytest
from states import dealt_state, final_points, hand
from viewkit import views_along

from kseri import PRESETS, Match, Rules
from kseri.agents.sampler import Sampler, World
from kseri.cards import JACK, RANK_OF
from kseri.fast import play as step
from kseri.fast.flat import COUNTS
from kseri.fast.sampling import shuffled_pools


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_compiled_step_scores_rounds_exactly_as_the_engine(preset: str) -> None:
    rules = Rules.preset(preset)
    for seed in range(15):
        match = Match(rules, seed=seed)
        states = dealt_state(rules, match.deals[0], match.turn or 0)
        state = states[0]
        rng = random.Random(seed)
        while match.turn is not None:
            assert state["turn"] == match.turn
            assert sorted(hand(states)) == sorted(match.legal_plays())
            card = rng.choice(match.legal_plays())
            match.play(card)
            step(rules, states, card)
            view = match.view(0)
            if match.turn is not None:
                assert state["pile_len"] == view.centre_size
                assert tuple(state["per_side"][COUNTS, : rules.sides].tolist()) == view.captured_sizes
        assert final_points(rules, states) == match.round_results[0].points


def test_the_step_refuses_a_card_not_in_hand() -> None:
    rules = Rules.preset("greek")
    match = Match(rules, seed=1)
    states = dealt_state(rules, match.deals[0], match.turn or 0)
    before = states.copy()
    absent = next(card for card in range(rules.deck_size) if card not in match.legal_plays())
    with pytest.raises(ValueError, match=f"card {absent} is not in the hand"):
        step(rules, states, absent)
    assert states.tobytes() == before.tobytes()


@pytest.mark.parametrize("preset", list(PRESETS))
def test_sampled_worlds_agree_with_the_view(preset: str) -> None:
    rules = Rules.preset(preset)
    rng = random.Random(0)
    for seed in range(3):
        for view in views_along(rules, seed):
            sampler = Sampler(view)
            pools = sampler.pools(rng, 1)
            world = sampler.world(pools[0].tolist())
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
            # ... and the state record loaded from it plays on as the engine's state.
            states = sampler.states(pools)
            truth = replay.copy()
            while truth.turn is not None:
                card = truth.legal_plays()[0]
                truth.play(card)
                step(rules, states, card)
            assert final_points(rules, states) == truth.round_results[0].points


def test_sampled_worlds_read_the_clue_of_a_pile_left_alone() -> None:
    """A player who left a pile they might have taken holds that rank less often in the worlds."""
    rules = Rules.preset("greek")
    checked = 0
    for seed in range(10):
        for view in views_along(rules, seed):
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
