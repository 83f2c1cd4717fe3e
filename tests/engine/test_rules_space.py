"""Every valid rule set, however odd, plays a random match to its end in a bounded number of
rounds: matches that cannot end are refused when the rules are made."""

from __future__ import annotations

import itertools
import random
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kseri import Match, Rules, RulesError
from kseri.engine import random_round
from kseri.rules import MAX_ROUNDS_TO_TARGET, OPTION_RANGES, CentreDeal, MajorityTie, TargetRule


def _ranged(name: str) -> st.SearchStrategy[int]:
    low, high = OPTION_RANGES[name]
    return st.one_of(st.integers(low, min(high, low + 12)), st.integers(low, high))


_RANKS_AND_CARDS = ["A", "K", "Q", "J", "T", "9", "2", "TD", "2C", "AS", "JH"]

def _dealable() -> list[dict[str, Any]]:
    """Every table shape that deals out evenly."""
    shapes = []
    for players, partnerships, decks, deal, centre, batch in itertools.product(
            range(2, 7), (False, True), (1, 2), CentreDeal, range(1, 9), range(1, 27)):
        try:
            Rules(players=players, partnerships=partnerships, decks=decks, centre_deal=deal,
                  centre_size=centre, batch_size=batch)
        except RulesError:
            continue
        shapes.append({"players": players, "partnerships": partnerships, "decks": decks,
                       "centre_deal": deal, "centre_size": centre, "batch_size": batch})
    return shapes


SHAPES = _dealable()

OPTIONS: dict[str, st.SearchStrategy[Any]] = {
    "kseri_value": _ranged("kseri_value"),
    "jack_kseri": st.none() | _ranged("jack_kseri"),
    "kseri_on_last_card": st.booleans(),
    "double_kseri": st.none() | _ranged("double_kseri"),
    "jacks_capture_all": st.booleans(),
    "card_points": st.lists(st.tuples(st.sampled_from(_RANKS_AND_CARDS), _ranged("card_points")),
                            max_size=6).map(tuple),
    "majority_bonus": _ranged("majority_bonus"),
    "majority_tie": st.sampled_from(list(MajorityTie)),
    "jacks_table_bonus": _ranged("jacks_table_bonus"),
    "last_capture_bonus": _ranged("last_capture_bonus"),
    "two_clubs_match_bonus": _ranged("two_clubs_match_bonus"),
    "target": _ranged("target"),
    "target_rule": st.sampled_from(list(TargetRule)),
    "escalation": _ranged("escalation"),
}


@st.composite
def valid_rules(draw: st.DrawFn) -> Rules:
    """Any rule set the engine accepts, drawn over every option."""
    chosen = draw(st.sets(st.sampled_from(sorted(OPTIONS)), max_size=len(OPTIONS)))
    options = draw(st.sampled_from(SHAPES)) | {name: draw(OPTIONS[name]) for name in sorted(chosen)}
    try:
        return Rules(**options)
    except RulesError:
        assume(False)
        raise


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(valid_rules(), st.integers(0, 2**32))
def test_every_valid_rule_set_finishes_a_random_match_in_bounded_rounds(rules: Rules, seed: int) -> None:
    # target and escalation are each at most MAX_ROUNDS_TO_TARGET rounds' worth of points in play
    bound = 8 * rules.sides * MAX_ROUNDS_TO_TARGET + 20
    match = Match(rules, seed=seed)
    rng = random.Random(seed)
    rounds = 0
    while not match.is_over():
        random_round(match, rng)
        rounds += 1
        assert rounds <= bound, f"{rules!r} is still playing after {rounds} rounds"
        if not match.is_over():
            match.next_round()
    assert match.winner is not None
    assert max(match.totals) >= match.target
