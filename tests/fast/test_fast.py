"""The fast core plays exactly as the engine: the same deals and plays give the same captures,
kseris and points (a differential test over every preset and every option), its policies make
the same choices as the agents, and its own deals and results hold the game's invariants."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_differential import VARIANTS as ENGINE_VARIANTS

from kseri import PRESETS, Deal, Match, Rules
from kseri.agents import ExpertAgent, GreedyAgent, expert
from kseri.bench.duplicate import play_round
from kseri.cards import ALL_CARDS, JACK, RANK_OF
from kseri.engine import KSERI_KINDS
from kseri.fast import Deals, Rounds, flatten, kernels, play_matches, play_rounds
from kseri.rules import CentreDeal, MajorityTie, TargetRule, match_winner

VARIANTS = {
    **ENGINE_VARIANTS,  # every preset and the option variants the engine's differential test plays
    "faro-every-tied-side": Rules.preset("faro", majority_tie=MajorityTie.EVERY_TIED_SIDE, majority_bonus=5),
}
PRESET_ROUNDS = 10_000
"""Rounds of each preset replayed through ``Match`` (about 80 µs each)."""
VARIANT_ROUNDS = 2_000


def face_down(rules: Rules) -> int:
    return rules.centre_size - 1 if rules.centre_deal is CentreDeal.PISTI else 0


def engine_deal(rules: Rules, deals: Deals, index: int) -> Deal:
    """Row ``index`` of ``deals`` as the engine's :class:`Deal`."""
    dealer = int(deals.dealer[index])
    hands = tuple(tuple(tuple(ALL_CARDS[c] for c in hand) for hand in batch)
                  for batch in deals.hands[index].tolist())
    shown = hands[-1][dealer][-1] if rules.centre_deal is CentreDeal.PISTI else None
    centre = tuple(ALL_CARDS[c] for c in deals.centre[index].tolist())
    return Deal(dealer, centre, face_down(rules), hands, shown)


def replay(rules: Rules, deal: Deal, plays: list[int]) -> tuple[Match, list[int], list[int]]:
    """The round played through ``Match``: the match, each card's owner side, kseris per side."""
    match = Match(rules, deal=deal)
    for card in plays:
        match.play(ALL_CARDS[card])
    result = match.round_results[-1]
    owners = [-1] * rules.deck_size
    for side, cards in enumerate(result.captured):
        for card in cards:
            owners[card] = side
    kseris = [0] * rules.sides
    for play in match.plays[-1]:
        kseris[rules.side_of(play.seat)] += sum(1 for mark in play.marks if mark.kind in KSERI_KINDS)
    return match, owners, kseris


def assert_same_as_engine(rules: Rules, rounds: Rounds) -> None:
    """Every round of ``rounds`` (deals and plays kept) replayed through ``Match`` scores the same."""
    assert rounds.deals is not None and rounds.plays is not None and rounds.owners is not None
    points, kseri, kseris, owners, last = [], [], [], [], []
    for index in range(len(rounds)):
        match, owner, kseri_count = replay(rules, engine_deal(rules, rounds.deals, index),
                                           rounds.plays[index].tolist())
        result = match.round_results[-1]
        points.append(result.points)
        kseri.append(result.kseri)
        kseris.append(kseri_count)
        owners.append(owner)
        last.append(-1 if result.last_capturer is None else result.last_capturer)
    np.testing.assert_array_equal(rounds.points, points)
    np.testing.assert_array_equal(rounds.kseri, kseri)
    np.testing.assert_array_equal(rounds.kseris, kseris)
    np.testing.assert_array_equal(rounds.owners, owners)
    np.testing.assert_array_equal(rounds.last_capturer, last)
    np.testing.assert_array_equal(rounds.captured, [[row.count(side) for side in range(rules.sides)]
                                                    for row in owners])


@pytest.mark.parametrize("name", list(PRESETS))
def test_random_rounds_of_every_preset_score_as_in_the_engine(name: str) -> None:
    rules = VARIANTS[name]
    rounds = play_rounds(rules, PRESET_ROUNDS, seed=name, keep_plays=True, keep_owners=True, keep_deals=True)
    assert_same_as_engine(rules, rounds)


@pytest.mark.parametrize("name", [name for name in VARIANTS if name not in PRESETS])
def test_random_rounds_of_every_option_score_as_in_the_engine(name: str) -> None:
    rules = VARIANTS[name]
    rounds = play_rounds(rules, VARIANT_ROUNDS, seed=name, keep_plays=True, keep_owners=True, keep_deals=True)
    assert_same_as_engine(rules, rounds)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_engine_deals_and_given_plays_score_as_in_the_engine(name: str) -> None:
    """Deals shuffled by the engine (SHA-512) and plays chosen outside: the kernel follows them."""
    rules = VARIANTS[name]
    deals = [Deal.shuffle(rules, index % rules.players, f"fast:{name}:{index}") for index in range(300)]
    arrays = Deals.from_deals(rules, deals)
    rng = random.Random(name)
    plays = []
    for deal in deals:
        match = Match(rules, deal=deal)
        while match.turn is not None:
            match.play(rng.choice(match.legal_plays()))
        plays.append([play.card for play in match.plays[-1]])
    rounds = play_rounds(rules, arrays, plays=np.array(plays), keep_plays=True, keep_owners=True)
    np.testing.assert_array_equal(rounds.plays, plays)
    assert_same_as_engine(rules, rounds)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_greedy_and_expert_policies_choose_as_the_agents(name: str) -> None:
    rules = VARIANTS[name]
    count = 40
    deals = [Deal.shuffle(rules, index % rules.players, f"policies:{name}:{index}") for index in range(count)]
    arrays = Deals.from_deals(rules, deals)
    for order in (("expert", "greedy"), ("greedy", "expert")):
        policies = [order[seat % 2] for seat in range(rules.players)]
        rounds = play_rounds(rules, arrays, policies=policies, keep_plays=True)
        assert rounds.plays is not None
        for index, deal in enumerate(deals):
            agents = [ExpertAgent() if policy == "expert" else GreedyAgent() for policy in policies]
            match = Match(rules, deal=deal)
            while (seat := match.turn) is not None:
                match.play(agents[seat].choose(match.view(seat)))
            assert [play.card for play in match.plays[-1]] == rounds.plays[index].tolist(), (name, index)
            assert match.round_results[-1].points == tuple(rounds.points[index])


def test_the_expert_policy_matches_the_agent_over_many_greek_and_pisti_rounds() -> None:
    for preset in ("greek", "pisti"):
        rules = Rules.preset(preset)
        deals = [Deal.shuffle(rules, index % 2, f"expert:{index}") for index in range(150)]
        rounds = play_rounds(rules, Deals.from_deals(rules, deals), policies="expert")
        agents = [ExpertAgent(), ExpertAgent()]
        expected = [play_round(rules, deal, agents).points for deal in deals]
        np.testing.assert_array_equal(rounds.points, expected)


def test_the_expert_policy_uses_the_agents_constants() -> None:
    assert (kernels.JACK_HOLD, kernels.TEMPO, kernels.SHED_COST) == (
        expert.JACK_HOLD, expert.TEMPO, expert.SHED_COST)


# -- properties of the fast core on its own --------------------------------------------------


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_card_ends_in_one_place_and_points_add_up(name: str) -> None:
    rules = VARIANTS[name]
    rounds = play_rounds(rules, 3000, seed=1, policies="random", keep_owners=True, keep_deals=True)
    assert rounds.owners is not None and rounds.deals is not None
    captured_any = rounds.last_capturer >= 0
    # every card either captured by exactly one side or (nobody captured) left in the centre
    counts = np.stack([(rounds.owners == side).sum(axis=1) for side in range(rules.sides)], axis=1)
    np.testing.assert_array_equal(counts, rounds.captured)
    np.testing.assert_array_equal(rounds.captured.sum(axis=1), np.where(captured_any, rules.deck_size, 0))
    table = np.array(rules.points_table)
    card_points = np.stack([(table * (rounds.owners == side)).sum(axis=1) for side in range(rules.sides)],
                           axis=1)
    most = rounds.captured.max(axis=1, keepdims=True)
    leaders = (rounds.captured == most) & (most > 0)
    if rules.majority_tie is MajorityTie.NOBODY:
        leaders &= leaders.sum(axis=1, keepdims=True) == 1
    last_side = np.array([rules.side_of(seat) for seat in range(rules.players)])[rounds.last_capturer]
    last_bonus = (np.arange(rules.sides) == last_side[:, None]) & captured_any[:, None]
    bonuses = rules.majority_bonus * leaders + rules.last_capture_bonus * last_bonus
    expected = card_points + rounds.kseri + bonuses
    if not rules.jacks_table_bonus and not rules.two_clubs_match_bonus:
        np.testing.assert_array_equal(rounds.points, expected)
    else:
        assert (rounds.points >= expected).all()
    assert (rounds.kseri >= rounds.kseris * min(v for v in (rules.kseri_value, rules.jack_kseri,
                                                            rules.double_kseri) if v is not None)).all()


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_fast_deals_follow_the_centre_procedure(name: str) -> None:
    rules = VARIANTS[name]
    count = 5000
    deals = play_rounds(rules, count, seed=2, keep_deals=True).deals
    assert deals is not None
    deals.check(rules)  # every card exactly once
    np.testing.assert_array_equal(deals.dealer, np.arange(count) % rules.players)
    ranks = np.array(RANK_OF)[deals.centre.astype(np.int64)]
    if rules.centre_deal is CentreDeal.REDEAL:
        assert (ranks[:, -1] != JACK).all()
        if rules.centre_size > 1:
            assert (ranks[:, -1] != ranks[:, -2]).all()
    else:
        assert (ranks[:, face_down(rules):] != JACK).all()
    # each seat's first card is any card of the deck, about uniformly
    first = deals.hands[:, 0, 0, 0].astype(np.int64)
    assert len(set(first.tolist())) == rules.deck_size
    assert abs(first.mean() - (rules.deck_size - 1) / 2) < 0.05 * rules.deck_size


def test_rounds_are_reproducible_and_independent_of_the_batch() -> None:
    rules = Rules.preset("pisti")
    whole = play_rounds(rules, 200, seed="same", keep_plays=True)
    again = play_rounds(rules, 200, seed="same", keep_plays=True)
    part = play_rounds(rules, 50, seed="same", keep_plays=True)
    assert whole.plays is not None and again.plays is not None and part.plays is not None
    np.testing.assert_array_equal(whole.plays, again.plays)
    np.testing.assert_array_equal(whole.plays[:50], part.plays)
    other = play_rounds(rules, 200, seed="other", keep_plays=True)
    assert other.plays is not None and (other.plays != whole.plays).any()


@pytest.mark.parametrize("preset", ["greek", "pisti"])
def test_the_loose_expert_slips_and_loses_to_the_expert(preset: str) -> None:
    """The loose expert plays the expert's card often but not always, follows its
    seed, and scores less than the expert against the same opponent on the same deals."""
    rules = Rules.preset(preset)
    deals = play_rounds(rules, 600, seed="deals", keep_deals=True).deals
    assert deals is not None
    loose = play_rounds(rules, deals, seed=3, policies=("loose", "greedy"), keep_plays=True)
    again = play_rounds(rules, deals, seed=3, policies=("loose", "greedy"), keep_plays=True)
    expert = play_rounds(rules, deals, seed=3, policies=("expert", "greedy"), keep_plays=True)
    assert loose.plays is not None and again.plays is not None and expert.plays is not None
    np.testing.assert_array_equal(loose.plays, again.plays)
    # the round's first two plays: one of the loose seat's own, from the same position
    agree = (loose.plays[:, :2] == expert.plays[:, :2]).all(axis=1).mean()
    assert 0.1 < agree < 0.9
    gaps = (expert.points[:, 0] - expert.points[:, 1]) - (loose.points[:, 0] - loose.points[:, 1])
    assert gaps.mean() > 3 * gaps.std() / len(gaps) ** 0.5


@pytest.mark.parametrize("name", list(VARIANTS))
def test_matches_end_by_the_target_rule(name: str) -> None:
    rules = VARIANTS[name]
    matches = play_matches(rules, 500, seed=3)
    assert (matches.rounds >= 1).all()
    winners = matches.totals[np.arange(len(matches)), matches.winner]
    assert (winners >= matches.target).all()
    others = matches.totals.copy()
    others[np.arange(len(matches)), matches.winner] = -1
    if rules.target_rule is TargetRule.ESCALATE:
        assert (others.max(axis=1) < matches.target).all()
        assert ((matches.target - rules.target) % rules.escalation == 0).all()
    else:
        assert (others.max(axis=1) < winners).all()
        assert (matches.target == rules.target).all()
    assert (matches.kseris >= 0).all()


@pytest.mark.parametrize("name", ["greek", "classic", "faro", "greek-house-rules"])
def test_settle_decides_as_the_match_rule(name: str) -> None:
    rules = VARIANTS[name]
    compiled_options = flatten(rules).options
    rng = random.Random(name)
    for _ in range(3000):
        high = rules.target + 3 * rules.escalation
        totals = [rng.randrange(rules.target - 30, high) for _ in range(rules.sides)]
        target = rules.target + rng.randrange(2) * rules.escalation
        winner, new_target = kernels.settle(compiled_options, np.array(totals, np.int64), target)
        expected, expected_target = match_winner(rules, totals, target)
        assert (None if winner < 0 else winner) == expected
        assert new_target == expected_target


# -- bad input ------------------------------------------------------------------------------


def test_a_given_card_not_in_the_hand_is_refused_by_name() -> None:
    rules = Rules.preset("greek")
    rounds = play_rounds(rules, 3, keep_plays=True, keep_deals=True)
    assert rounds.plays is not None and rounds.deals is not None
    plays = rounds.plays.copy()
    plays[2, [5, 6]] = plays[2, [6, 5]]
    seat = (int(rounds.deals.dealer[2]) + 6) % 2
    with pytest.raises(ValueError, match=rf"round 2, play 5: \w\w is not in the hand of seat {seat}"):
        play_rounds(rules, rounds.deals, plays=plays)


@pytest.mark.parametrize(("options", "message"), [
    ({"policies": "wizard"}, "unknown policy 'wizard'"),
    ({"policies": ("random",) * 3}, "2 players need 2 policies, not 3"),
    ({"policies": "given"}, "no plays were given"),
    ({"plays": np.zeros((4, 48), np.int8), "policies": "random"}, "no seat plays them"),
    ({"plays": np.zeros((3, 48), np.int8)}, r"shape \(3, 48\); 4 rounds need \(4, 48\)"),
    ({"plays": np.full((4, 48), 60)}, "card numbers 0 to 51"),
])
def test_bad_options_are_refused_with_the_reason(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        play_rounds(Rules(), 4, **options)  # type: ignore[arg-type]


def test_bad_deals_are_refused_with_the_reason() -> None:
    rules = Rules.preset("greek")
    deals = play_rounds(rules, 3, keep_deals=True).deals
    assert deals is not None
    broken = Deals(deals.dealer, deals.centre.copy(), deals.hands)
    broken.centre[1, 0] = broken.centre[1, 1]
    with pytest.raises(ValueError, match="deal 1 must hold every card of the 52-card deck exactly once"):
        play_rounds(rules, broken)
    with pytest.raises(ValueError, match=r"hands has the shape \(3, 4, 2, 6\); these rules need \(3, 6"):
        play_rounds(Rules.preset("pisti"), deals)
    wrong_dealer = Deals(np.array([0, 2, 1], np.int8), deals.centre, deals.hands)
    with pytest.raises(ValueError, match="deal 1: the dealer must be seat 0 to 1, not 2"):
        play_rounds(rules, wrong_dealer)
    with pytest.raises(ValueError, match=r"hands has the shape \(1, 6, 2, 4\); these rules need \(1, 4"):
        Deals.from_deals(rules, [Deal.shuffle(Rules.preset("pisti"), 0, "x")])
    with pytest.raises(ValueError, match="every deal must have a centre of 4 cards and 4 batches"):
        Deals.from_deals(rules, [Deal.shuffle(rules, 0, "y"), Deal.shuffle(Rules.preset("pisti"), 0, "x")])
