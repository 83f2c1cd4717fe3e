"""The master's compiled rollouts (``kseri.fast.rollouts``) play and score exactly as the
sampled worlds' state records played on card by card through the step (``kseri.fast.play``)
with the Python expert's rating (``Tactics.value``) from public memory choosing each card, or
greedy's order (``GreedyAgent``) at the seats the rollouts give to greedy; the loose expert's
plays are a softmax over the compiled expert's ratings."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kseri import PRESETS, Match, Rules
from kseri.agents.expert import Tactics
from kseri.agents.sampler import Sampler
from kseri.cards import JACK, RANK_OF
from kseri.fast import play, rollouts
from kseri.fast.flat import COUNTS, EXPERT, GIVEN, GREEDY, LOOSE, POINTS, RANDOM, flatten
from kseri.fast.kernels import LOOSE_TEMPERATURE, expert_choice, loose_choice, stream
from kseri.rules import MajorityTie

VARIANTS = {
    **{name: Rules.preset(name) for name in PRESETS},
    "greek-house-rules": Rules.preset(
        "greek", jacks_table_bonus=10, last_capture_bonus=10, two_clubs_match_bonus=5, double_kseri=20,
        kseri_on_last_card=False, jack_kseri=25,
    ),
    "classic-tied-majority": Rules.preset("classic", majority_tie=MajorityTie.EVERY_TIED_SIDE),
    "children-no-jack-kseri": Rules.preset("children", jack_kseri=None),
}


def public_choice(rules: Rules, tactics: Tactics, states: np.ndarray) -> int:
    """The expert's play for the seat to play in ``states[0]``, from what every seat has seen."""
    state = states[0]
    seat = int(state["turn"])
    hand = state["hands"][seat, : state["lengths"][seat]].tolist()
    if len(hand) == 1:
        return int(hand[0])
    unseen = [4 * rules.decks - count for count in state["public_rank"].tolist()]
    for card in hand:
        unseen[RANK_OF[card]] -= 1
    pool = rules.deck_size - int(state["public_count"]) - len(hand)
    opp_hand = int(state["lengths"][(seat + 1) % rules.players])
    pile_len = int(state["pile_len"])
    top_rank = RANK_OF[int(state["pile"][pile_len - 1])] if pile_len else -1
    left = rules.deck_size - rules.centre_size - int(state["index"])
    best, best_value = hand[0], -1e9
    for card in hand:
        worth = tactics.value(card, top_rank, pile_len, int(state["pile_points"]), unseen, pool, opp_hand,
                              left)
        if worth > best_value:
            best, best_value = card, worth
    return int(best)


def greedy_choice(rules: Rules, states: np.ndarray) -> int:
    """``GreedyAgent``'s play for the seat to play in ``states[0]``: the most points now, then a
    capture, then not a Jack, then the fewest points; the first such card of the hand."""
    state = states[0]
    seat = int(state["turn"])
    hand = state["hands"][seat, : state["lengths"][seat]].tolist()
    table = rules.points_table
    pile_len = int(state["pile_len"])
    top_rank = RANK_OF[int(state["pile"][pile_len - 1])] if pile_len else -1
    left = rules.deck_size - rules.centre_size - int(state["index"])

    def key(card: int) -> tuple[int, int, int, int]:
        rank = RANK_OF[card]
        takes = bool(pile_len) and (rank == top_rank or (rank == JACK and rules.jacks_capture_all))
        gain = 0
        if takes:
            gain = table[card] + int(state["pile_points"])
            if pile_len == 1 and rank == top_rank and (left != 1 or rules.kseri_on_last_card):
                gain += (rules.jack_kseri or 0) if rank == JACK else rules.kseri_value
        return gain, int(takes), -int(rank == JACK), -table[card]

    return int(max(hand, key=key))


def reference_rollout(rules: Rules, world: np.ndarray, card: int, tactics: Tactics,
                      to_end: bool, greedy_seats: frozenset[int] = frozenset()) -> tuple[list[float], bool]:
    """The master's rollout card by card: play ``card``, then the expert at every seat (greedy
    at ``greedy_seats``) to the horizon (the round's end with ``to_end``; else the current
    batch's end, or the next one's when at most a card a seat is left)."""
    states = world.copy()
    play(rules, states, card)
    total = rules.deck_size - rules.centre_size
    per_batch = rules.players * rules.batch_size
    left = total - int(states[0]["index"])
    horizon = left - left % per_batch
    if left - horizon <= rules.players:
        horizon = max(0, horizon - per_batch)
    if to_end:
        horizon = 0
    while total - int(states[0]["index"]) > horizon:
        greedy = int(states[0]["turn"]) in greedy_seats
        play(rules, states, greedy_choice(rules, states) if greedy else public_choice(rules, tactics, states))
    per_side = states[0]["per_side"]
    if states[0]["turn"] < 0:
        return [float(p) for p in per_side[POINTS, : rules.sides].tolist()], True
    points = per_side[POINTS, : rules.sides].tolist()
    counts = per_side[COUNTS, : rules.sides].tolist()
    return [p + tactics.card_weight * c for p, c in zip(points, counts, strict=True)], False


@pytest.mark.parametrize(("to_end", "others"), [(False, "expert"), (True, "expert"), (True, "greedy")])
@pytest.mark.parametrize("name", list(VARIANTS))
def test_compiled_rollouts_equal_the_python_ones(name: str, to_end: bool, others: str) -> None:
    rules = VARIANTS[name]
    tactics = Tactics(rules)
    rng = random.Random(name)
    checked = 0
    for seed in range(6):
        match = Match(rules, seed=seed)
        while match.turn is not None:
            view = match.view(match.turn)
            sampler = Sampler(view)
            pools = sampler.pools(rng, 3)
            worlds = sampler.states(pools)
            candidates = sorted(set(view.hand))
            policies = np.full((len(pools), rules.players), GREEDY if others == "greedy" else EXPERT)
            policies[:, view.seat] = EXPERT
            greedy_seats = frozenset(int(seat) for seat in np.flatnonzero(policies[0] == GREEDY))
            finals, over = rollouts(rules, sampler.positions(pools), candidates, to_end=to_end,
                                    policies=policies)
            for row in range(len(pools)):
                for column, card in enumerate(candidates):
                    expected, ended = reference_rollout(rules, worlds[row : row + 1], card, tactics, to_end,
                                                        greedy_seats)
                    assert finals[row, column].tolist() == expected, (name, seed, len(view.plays))
                    assert bool(over[row]) == ended
                    checked += 1
            match.play(rng.choice(match.legal_plays()))
    assert checked > 500
    assert np.isfinite(finals).all()


@pytest.mark.parametrize("others", [RANDOM, LOOSE])
def test_drawn_rollouts_follow_their_seed_and_deal_out_every_card(others: int) -> None:
    """With the other seats random or the loose expert, the rollouts are a function of the seed
    (and change with it), and every card of the round still ends with a side or in the centre."""
    rules = Rules.preset("pisti")
    match = Match(rules, seed=2)
    for _ in range(5):
        match.play(match.legal_plays()[0])
    view = match.view(match.turn)
    sampler = Sampler(view)
    pools = sampler.pools(random.Random(1), 32)
    policies = np.full((32, rules.players), others)
    policies[:, view.seat] = EXPERT
    candidates = sorted(set(view.hand))
    positions = sampler.positions(pools)
    first, over = rollouts(rules, positions, candidates, to_end=True, policies=policies, seed=5)
    again, _ = rollouts(rules, positions, candidates, to_end=True, policies=policies, seed=5)
    other, _ = rollouts(rules, positions, candidates, to_end=True, policies=policies, seed=6)
    expert, _ = rollouts(rules, positions, candidates, to_end=True)
    assert over.all()
    assert (first == again).all()
    assert not (first == other).all()
    assert not (first == expert).all()


@pytest.mark.parametrize("preset", ["greek", "pisti"])
def test_the_loose_expert_draws_from_a_softmax_over_the_experts_ratings(preset: str) -> None:
    """Each card's share of the loose expert's plays, over many draws in one position, is the
    softmax of the compiled expert's ratings at ``LOOSE_TEMPERATURE`` points (within 4.5
    standard errors), and the draws leave the position as it was."""
    rules = Rules.preset(preset)
    packed = flatten(rules).packed
    checked = 0
    for seed in range(3):
        match = Match(rules, seed=seed)
        for _ in range(2 * rules.players + 1):
            match.play(match.legal_plays()[-1])
        sampler = Sampler(match.view(match.turn))
        state = sampler.states(sampler.pools(random.Random(seed), 1))[0]
        before = state.copy()
        expert_choice(packed, state, False)
        length = int(state["lengths"][state["turn"]])
        ratings = state["ratings"][:length].copy()
        expected = np.exp((ratings - ratings.max()) / LOOSE_TEMPERATURE)
        expected /= expected.sum()
        draws = 6000
        counts = np.zeros(length)
        for index in range(draws):
            _, position = loose_choice(packed, state, False, np.uint64(stream(np.uint64(seed), index)))
            counts[position] += 1
        error = np.sqrt(expected * (1 - expected) / draws)
        assert (np.abs(counts / draws - expected) <= 4.5 * error + 1e-12).all(), (preset, seed, counts)
        assert state["hands"].tolist() == before["hands"].tolist() and state["turn"] == before["turn"]
        checked += expected.max() < 0.99
    assert checked >= 2


def test_rollout_policies_are_checked() -> None:
    rules = Rules.preset("greek")
    match = Match(rules, seed=1)
    sampler = Sampler(match.view(match.turn))
    positions = sampler.positions(sampler.pools(random.Random(0), 2))
    with pytest.raises(ValueError, match="one per position and seat"):
        rollouts(rules, positions, [match.legal_plays()[0]], policies=np.zeros((3, 2), np.int64))
    with pytest.raises(ValueError, match="random, greedy, expert or loose"):
        rollouts(rules, positions, [match.legal_plays()[0]], policies=np.full((2, 2), GIVEN, np.int64))
