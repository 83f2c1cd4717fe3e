"""The fast engine against the plain reference implementation, play by play.

Random matches of every preset (and of rule sets that switch every option on) are played
through both; after every play, every undo and every round, the views of all seats, the
round results, the totals, the target and the winner must be the same.
"""

from __future__ import annotations

import random

import pytest
import reference

from kseri import PRESETS, Match, Rules
from kseri.rules import MajorityTie

VARIANTS = {
    **{name: Rules.preset(name) for name in PRESETS},
    "greek-house-rules": Rules.preset(
        "greek", jacks_table_bonus=10, last_capture_bonus=10, two_clubs_match_bonus=5, double_kseri=20,
        kseri_on_last_card=False, jack_kseri=25,
    ),
    "classic-tied-majority": Rules.preset("classic", majority_tie=MajorityTie.EVERY_TIED_SIDE, target=60),
    "pisti-lone-centre": Rules.preset("pisti", centre_size=2, batch_size=5, two_clubs_match_bonus=3),
    "three-one-card-batches": Rules.preset("greek", players=3, centre_size=1, batch_size=1, double_kseri=30),
    "six-partners": Rules.preset("partnership", players=6, centre_size=4),
    "children-no-jack-kseri": Rules.preset("children", jack_kseri=None, target=80),
    "children-jacks-table": Rules.preset("children", jacks_table_bonus=10, target=60),
    "greek-small-escalation": Rules.preset("greek", target=30, escalation=3),
}


MAX_ROUNDS = 8
"""Rounds played per match at most (small targets above make most matches end sooner)."""


def assert_same(fast: Match, plain: reference.Match) -> None:
    """Everything any seat may know, and the match's standing, is the same in both."""
    for seat in range(fast.rules.players):
        assert fast.view(seat) == plain.view(seat), f"seat {seat} sees something else"
    assert fast.turn == plain.turn
    assert fast.legal_plays() == plain.legal_plays()
    assert fast.round_results == tuple(plain.results)
    assert fast.totals == tuple(plain.totals)
    assert (fast.target, fast.winner, fast.phase) == (plain.target, plain.winner, plain.phase)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_engine_plays_exactly_like_the_reference(variant: str) -> None:
    rules = VARIANTS[variant]
    for seed in range(4):
        fast, plain = Match(rules, seed=seed), reference.Match(rules, seed=seed)
        rng = random.Random(f"{variant}:{seed}")
        while True:
            assert fast.deals[-1] == plain.deal
            assert_same(fast, plain)
            while fast.turn is not None:
                card = rng.choice(fast.legal_plays())
                fast.play(card)
                plain.play(card)
                assert_same(fast, plain)
                if rng.random() < 0.05:
                    assert fast.undo() == plain.undo() == card
                    assert_same(fast, plain)
                    fast.play(card)
                    plain.play(card)
            if rng.random() < 0.3:  # undo the round's last play: the result and totals go back too
                assert fast.undo() == plain.undo()
                assert_same(fast, plain)
                card = fast.legal_plays()[0]
                fast.play(card)
                plain.play(card)
                assert_same(fast, plain)
            if fast.is_over() or fast.round_index == MAX_ROUNDS - 1:
                break
            fast.next_round()
            plain.next_round()


@pytest.mark.parametrize("preset", list(PRESETS))
def test_shuffle_matches_the_reference_shuffle(preset: str) -> None:
    rules = Rules.preset(preset)
    for index in range(40):
        seed = f"shuffle:{index}"
        assert Match(rules, seed=seed).deals[0] == reference.Match(rules, seed=seed).deal
