"""The master's compiled rollouts (``kseri.fast.rollouts``) play and score exactly as the
Python search state (``RoundSim``) with the expert's policy (``Tactics.choose_in``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kseri import PRESETS, Match, Rules
from kseri.agents.expert import Tactics
from kseri.agents.sampler import Sampler
from kseri.agents.sim import RoundSim
from kseri.fast import rollouts
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


def reference_rollout(sim: RoundSim, card: int, tactics: Tactics, to_end: bool) -> tuple[list[float], bool]:
    """The master's rollout in plain Python: play ``card``, then the expert at every seat to
    the horizon (the round's end with ``to_end``; else the current batch's end, or the next
    one's when at most a card a seat is left)."""
    sim = sim.copy()
    sim.play(card)
    per_batch = sim.r.per_batch
    horizon = sim.left - sim.left % per_batch
    if sim.left - horizon <= sim.r.players:
        horizon = max(0, horizon - per_batch)
    if to_end:
        horizon = 0
    while sim.left > horizon:
        sim.play(tactics.choose_in(sim))
    if not sim.left:
        return [float(p) for p in sim.final_points()], True
    return [p + tactics.card_weight * c for p, c in zip(sim.points, sim.counts, strict=True)], False


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
            sims = [sampler.sim(sampler.world(row)) for row in pools.tolist()]
            candidates = sorted(set(view.hand))
            finals, over = rollouts(rules, sampler.positions(pools), candidates, to_end=to_end)
            for row, sim in enumerate(sims):
                for column, card in enumerate(candidates):
                    expected, ended = reference_rollout(sim, card, tactics, to_end)
                    assert finals[row, column].tolist() == expected, (name, seed, len(view.plays))
                    assert bool(over[row]) == ended
                    checked += 1
            match.play(rng.choice(match.legal_plays()))
    assert checked > 500
    assert np.isfinite(finals).all()
