"""Helpers for the tests that hold a bot to its view: the views along a round of random plays,
and a twin of a view dealt with other hidden cards."""

from __future__ import annotations

import random

from kseri import Match, Rules
from kseri.agents.sampler import Sampler
from kseri.engine import View


def views_along(rules: Rules, seed: int, every: int = 1) -> list[View]:
    """The view of the seat to play at every ``every``-th play of a round of random plays."""
    match, rng, views = Match(rules, seed=seed), random.Random(seed), []
    while match.turn is not None:
        if len(match.plays[-1]) % every == 0:
            views.append(match.view(match.turn))
        match.play(rng.choice(match.legal_plays()))
    return views


def twin(view: View, seed: int) -> View:
    """The same view from a match whose hidden cards are another world of ``view``'s sampler:
    a bot that reads only its view chooses alike from both."""
    sampler = Sampler(view)
    other = Match(view.rules, deal=sampler.deal(sampler.sample(random.Random(seed))))
    for play in view.plays:
        other.play(play.card)
    same = other.view(view.seat)
    assert same == view
    return same
