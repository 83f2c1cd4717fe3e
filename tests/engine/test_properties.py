"""Properties of random matches of every preset (Hypothesis): card conservation, the Greek
25-point total, exact undo, independent copies, and views that hide what a seat may not know."""

from __future__ import annotations

import random
from collections.abc import Callable

from builders import snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kseri import PRESETS, Card, Match, Rules
from kseri.cards import ALL_CARDS
from kseri.engine import Phase

presets = st.sampled_from(sorted(PRESETS))
seeds = st.integers(min_value=0, max_value=2**32)
randoms = st.randoms(use_true_random=False)
PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def walk(match: Match, rng: random.Random, check: Callable[[Match], None], rounds: int = 2) -> None:
    """Play random rounds, calling ``check`` before the first play and after every play."""
    for _ in range(rounds):
        check(match)
        while match.turn is not None:
            match.play(rng.choice(match.legal_plays()))
            check(match)
        if match.is_over():
            return
        match.next_round()


def every_card_in_one_place(match: Match) -> None:
    """Stock, hands, centre and captures hold the deck, each card once (private state)."""
    deal = match._deal
    stock = [card for batch in deal.hands[match._batch :] for hand in batch for card in hand]
    hands = [card for hand in match._hands for card in hand]
    captured = [card for side in match._captured for card in side]
    assert sorted(stock + hands + match._centre + captured) == list(ALL_CARDS[: match.rules.deck_size])
    assert len(stock) == match.stock_size


@PROPERTY
@given(preset=presets, seed=seeds, rng=randoms)
def test_every_card_is_in_exactly_one_place_after_every_play(
    preset: str, seed: int, rng: random.Random
) -> None:
    walk(Match(Rules.preset(preset), seed=seed), rng, every_card_in_one_place)


CARD_TOTALS = {"greek": 22, "children": 22, "pisti": 13, "classic": 12, "partnership": 12}


@PROPERTY
@given(preset=st.sampled_from(sorted(CARD_TOTALS)), seed=seeds, rng=randoms)
def test_cards_give_25_a_greek_round_or_22_on_a_tied_count(
    preset: str, seed: int, rng: random.Random
) -> None:
    rules = Rules.preset(preset)
    match = Match(rules, seed=seed)
    walk(match, rng, lambda _: None, rounds=3)
    for result in match.round_results:
        counts = list(map(len, result.captured))
        if sum(counts) < 52:  # the centre went to nobody (children only): no fixed total
            continue
        tied = counts.count(max(counts)) > 1
        expected = CARD_TOTALS[preset] + (0 if tied else rules.majority_bonus)
        assert sum(result.points) - sum(result.kseri) == expected
        if preset == "greek":
            assert sum(result.points) - sum(result.kseri) in (22, 25)


@PROPERTY
@given(preset=presets, seed=seeds, rng=randoms)
def test_undo_restores_the_exact_state(preset: str, seed: int, rng: random.Random) -> None:
    def play_and_undo(match: Match) -> None:
        if match.turn is None or rng.random() > 0.3:
            return
        before = snapshot(match)
        card = rng.choice(match.legal_plays())
        match.play(card)
        assert match.undo() == card
        assert snapshot(match) == before

    walk(Match(Rules.preset(preset), seed=seed), rng, play_and_undo)


@PROPERTY
@given(preset=presets, seed=seeds, rng=randoms)
def test_a_copy_is_independent_of_its_original(preset: str, seed: int, rng: random.Random) -> None:
    def copy_and_play(match: Match) -> None:
        if match.turn is None or rng.random() > 0.1:
            return
        before = snapshot(match)
        twin = match.copy()
        assert snapshot(twin) == before
        for _ in range(rng.randrange(1, 30)):
            if twin.turn is None:
                break
            twin.play(rng.choice(twin.legal_plays()))
        if rng.random() < 0.5 and twin.round_results != match.round_results:
            twin.undo()
        assert snapshot(match) == before

    walk(Match(Rules.preset(preset), seed=seed), rng, copy_and_play)


def views_hide_secrets(match: Match) -> None:
    """During play, no view names a card in another hand, in the stock or face down unseen."""
    if match.phase is not Phase.PLAYING:
        return
    deal = match._deal
    stock = {card for batch in deal.hands[match._batch :] for hand in batch for card in hand}
    face_down = set(deal.centre[: deal.face_down]) & set(match._centre)
    for seat in range(match.rules.players):
        view = match.view(seat)
        assert list(view.hand) == match._hands[seat]
        others = {card for other, hand in enumerate(match._hands) if other != seat for card in hand}
        seen: set[Card | None] = {view.centre_top, view.shown, *view.centre_dealt, *view.face_down_seen}
        seen |= {play.card for play in view.plays}
        seen |= {mark.card for marks in view.marks for mark in marks}
        seen.discard(None)
        seen.discard(deal.shown)  # shown to everyone by the rules
        assert not seen & (others | stock), f"seat {seat} sees another hand or the stock"
        if match._first_capturer != seat:
            assert not seen & set(deal.centre[: deal.face_down]), f"seat {seat} sees face-down cards"
        assert not seen & face_down


@PROPERTY
@given(preset=presets, seed=seeds, rng=randoms)
def test_a_view_never_shows_what_its_seat_may_not_know(preset: str, seed: int, rng: random.Random) -> None:
    walk(Match(Rules.preset(preset), seed=seed), rng, views_hide_secrets)
