"""The master's compiled rollouts (``kseri.fast.rollouts``) play and score exactly as the
sampled worlds' state records played on card by card through the step (``kseri.fast.play``)
with the Python expert's rating (``Tactics.value``) from public memory choosing each card."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kseri import PRESETS, Match, Rules
from kseri.agents.expert import Tactics
from kseri.agents.sampler import Sampler
from kseri.cards import RANK_OF
from kseri.fast import play, rollouts
from kseri.fast.flat import COUNTS, POINTS
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


def reference_rollout(rules: Rules, world: np.ndarray, card: int, tactics: Tactics,
                      to_end: bool) -> tuple[list[float], bool]:
    """The master's rollout card by card: play ``card``, then the expert at every seat to
    the horizon (the round's end with ``to_end``; else the current batch's end, or the next
    one's when at most a card a seat is left)."""
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
        play(rules, states, public_choice(rules, tactics, states))
    per_side = states[0]["per_side"]
    if states[0]["turn"] < 0:
        return [float(p) for p in per_side[POINTS, : rules.sides].tolist()], True
    points = per_side[POINTS, : rules.sides].tolist()
    counts = per_side[COUNTS, : rules.sides].tolist()
    return [p + tactics.card_weight * c for p, c in zip(points, counts, strict=True)], False


@pytest.mark.parametrize("to_end", [False, True])
@pytest.mark.parametrize("name", list(VARIANTS))
def test_compiled_rollouts_equal_the_python_ones(name: str, to_end: bool) -> None:
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
            finals, over = rollouts(rules, sampler.positions(pools), candidates, to_end=to_end)
            for row in range(len(pools)):
                for column, card in enumerate(candidates):
                    expected, ended = reference_rollout(rules, worlds[row : row + 1], card, tactics, to_end)
                    assert finals[row, column].tolist() == expected, (name, seed, len(view.plays))
                    assert bool(over[row]) == ended
                    checked += 1
            match.play(rng.choice(match.legal_plays()))
    assert checked > 500
    assert np.isfinite(finals).all()
