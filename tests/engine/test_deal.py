"""Shuffles, deals and each preset's centre procedure; dealer rotation and who plays first."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from builders import cards, no_capture_order, play_first_cards, scripted_deal

from kseri import PRESETS, Card, Deal, IllegalPlayError, Match, Rules
from kseri.cards import ALL_CARDS, JACK
from kseri.engine import shuffled, uniform_below
from kseri.rules import CentreDeal

SEEDS = range(300)


def first_deals(rules: Rules) -> list[Deal]:
    return [Match(rules, seed=f"deal:{seed}").deals[0] for seed in SEEDS]


def test_greek_centre_never_has_a_jack_or_a_pair_on_top() -> None:
    rules = Rules.preset("greek")
    for deal in first_deals(rules):
        top, below = deal.centre[-1], deal.centre[-2]
        assert top.rank != JACK and top.rank != below.rank
        assert len(deal.centre) == 4 and deal.face_down == 0 and deal.shown is None
    view = Match(rules, seed=1).view(0)
    assert view.stock_size == 36 and None not in view.centre_dealt


def test_greek_redeal_shuffles_the_undealt_stock_again_and_keeps_the_hands() -> None:
    rules = Rules.preset("greek")
    redeals = 0
    for seed in SEEDS:
        deck, draw = shuffled(ALL_CARDS[:52], f"{seed}:0", 0)
        deal = Deal.shuffle(rules, 0, f"{seed}:0")
        assert deal.hands[0] == (tuple(deck[6:12]), tuple(deck[:6]))  # seat 1 first, the dealer second
        stock = deck[12:]
        while stock[3].rank == JACK or stock[3].rank == stock[2].rank:
            stock, draw = shuffled(stock, f"{seed}:0", draw)  # the 4 go back, the stock is shuffled
        redeals += stock != deck[12:]
        assert deal.centre == tuple(stock[:4])
        assert [card for batch in deal.hands[1:] for seat in (1, 0) for card in batch[seat]] == stock[4:]
    assert redeals > 10


def test_guide_003_centre_has_no_jack_and_a_jack_goes_into_the_middle_of_the_stock() -> None:
    rules = Rules.preset("classic")
    replaced = 0
    for seed in SEEDS:
        deck = shuffled(ALL_CARDS[:52], f"{seed}:0", 0)[0]
        deal = Deal.shuffle(rules, 0, f"{seed}:0")
        assert all(card.rank != JACK for card in deal.centre) and deal.face_down == 0
        jacks = [card for card in deck[8:12] if card.rank == JACK]
        stock = [card for batch in deal.hands[1:] for seat in (1, 0) for card in batch[seat]]
        if len(jacks) == 1 and deck[12].rank != JACK:
            replaced += 1
            assert stock.index(jacks[0]) == len(stock) // 2 - 1  # the middle, then one card drawn
    assert replaced > 10


def test_pisti_centre_three_face_down_top_no_jack_and_the_dealers_last_card_shown() -> None:
    rules = Rules.preset("pisti")
    for deal in first_deals(rules):
        assert deal.face_down == 3 and deal.centre[-1].rank != JACK
        assert deal.shown == deal.hands[-1][deal.dealer][-1]
    match = Match(rules, seed=4)
    deal = match.deals[0]
    for seat in range(2):
        view = match.view(seat)
        assert view.shown == deal.shown
        assert view.centre_dealt == (None, None, None, deal.centre[-1])
        assert view.centre_top == deal.centre[-1] and view.face_down == 3


def test_pisti_face_down_cards_may_include_jacks() -> None:
    deals = first_deals(Rules.preset("pisti"))
    assert any(card.rank == JACK for deal in deals for card in deal.centre[:3])


def test_each_seat_is_dealt_in_turn_starting_after_the_dealer() -> None:
    rules = Rules.preset("partnership")
    deck = shuffled(ALL_CARDS[:52], "order", 0)[0]
    deal = Deal.shuffle(rules, 2, "order")
    assert [deal.hands[0][seat] for seat in (3, 0, 1, 2)] == [tuple(deck[i : i + 4]) for i in range(0, 16, 4)]
    with pytest.raises(ValueError, match="the dealer must be seat 0 to 3, not 4"):
        Deal.shuffle(rules, 4, "order")


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_deal_holds_the_deck_once(preset: str) -> None:
    rules = Rules.preset(preset)
    for seed in range(20):
        Match(rules, seed=seed).deals[0].check(rules)


def test_shuffles_are_uniform_over_the_orders_of_three_cards() -> None:
    counts = Counter(tuple(shuffled(ALL_CARDS[:3], f"u{seed}", 0)[0]) for seed in range(6000))
    assert len(counts) == 6 and all(850 < count < 1150 for count in counts.values())


def test_uniform_below_stays_in_range_and_is_reproducible() -> None:
    for bound in (1, 2, 3, 5, 52, 2**64 + 1):
        values = [uniform_below(f"b{i}", 0, bound)[0] for i in range(200)]
        assert all(0 <= v < bound for v in values)
        assert values == [uniform_below(f"b{i}", 0, bound)[0] for i in range(200)]
    assert {uniform_below(f"s{i}", 0, 3)[0] for i in range(100)} == {0, 1, 2}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_first_dealer_is_drawn_among_all_seats(players: int) -> None:
    rules = Rules.preset("faro" if players == 5 else "classic", players=players)
    assert {Match(rules, seed=seed).dealer for seed in range(60)} == set(range(players))


@pytest.mark.parametrize("preset", ["greek", "pisti", "partnership", "three-player"])
def test_the_dealer_moves_on_each_round_and_the_next_seat_leads_every_batch(preset: str) -> None:
    rules = Rules.preset(preset)
    match, rng = Match(rules, seed=11), random.Random(11)
    per_batch = rules.players * rules.batch_size
    for round_index in range(4):
        dealer = match.dealer
        assert match.turn == (dealer + 1) % rules.players
        while match.turn is not None:
            match.play(rng.choice(match.legal_plays()))
        plays = match.plays[round_index]
        assert {plays[i].seat for i in range(0, len(plays), per_batch)} == {(dealer + 1) % rules.players}
        assert [p.seat for p in plays[:rules.players]] == [(dealer + 1 + i) % rules.players
                                                           for i in range(rules.players)]
        if match.is_over():
            break
        match.next_round()
        assert match.dealer == (dealer + 1) % rules.players


def test_same_seed_same_game() -> None:
    rules = Rules.preset("pisti")
    first, second = Match(rules, seed="same"), Match(rules, seed="same")
    rng1, rng2 = random.Random(3), random.Random(3)
    while first.turn is not None:
        first.play(rng1.choice(first.legal_plays()))
        second.play(rng2.choice(second.legal_plays()))
    first.next_round()
    second.next_round()
    assert first.deals == second.deals
    assert [first.view(s) for s in range(2)] == [second.view(s) for s in range(2)]
    assert Match(rules, seed="other").deals != first.deals[:1]


GREEK = Rules.preset("greek")
GOOD = scripted_deal(GREEK, 0, "2C 3C 4C 5C", no_capture_order(cards("2C 3C 4C 5C"), jacks=True))


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        (Deal(2, GOOD.centre, 0, GOOD.hands), "dealer must be seat 0 to 1, not 2"),
        (Deal(0, GOOD.centre, 0, GOOD.hands[:-1]), "must have 4 batches of 2 hands"),
        (Deal(0, GOOD.centre, 0, (*GOOD.hands[:-1], (GOOD.hands[-1][0][:5], GOOD.hands[-1][1]))),
         "every hand of the deal must hold 6 cards"),
        (Deal(0, GOOD.centre[:3], 0, GOOD.hands), "centre must hold 4 cards, not 3"),
        (Deal(0, GOOD.centre, 4, GOOD.hands), "top card face up"),
        (Deal(0, (*GOOD.centre[:3], GOOD.hands[0][0][0]), 0, GOOD.hands), "every card of the 52-card deck"),
        (Deal(0, (2, 3, 4, 5), 0, GOOD.hands), "must be Card objects"),  # type: ignore[arg-type]
        (Deal(0, GOOD.centre, 0, GOOD.hands, Card("AS")), "no card is shown with the redeal centre deal"),
    ],
)
def test_a_deal_that_does_not_fit_the_rules_is_refused(deal: Deal, message: str) -> None:
    with pytest.raises(IllegalPlayError, match=message):
        Match(GREEK, deal=deal)


def test_a_pisti_deal_shows_the_dealers_last_card() -> None:
    pisti = Rules.preset("pisti")
    good = scripted_deal(pisti, 0, "2C 3C 4C 5C", no_capture_order(cards("2C 3C 4C 5C"), jacks=True), 3)
    for shown in (None, good.hands[-1][1][-1]):
        with pytest.raises(IllegalPlayError, match="the shown card must be the dealer's last card"):
            Match(pisti, deal=Deal(0, good.centre, 3, good.hands, shown))


def test_next_round_checks_the_given_deal() -> None:
    match = Match(GREEK, deal=GOOD)
    with pytest.raises(IllegalPlayError, match="the round is still being played"):
        match.next_round()
    play_first_cards(match)
    with pytest.raises(IllegalPlayError, match="the next dealer is seat 1, not seat 0"):
        match.next_round(deal=GOOD)
    following = scripted_deal(GREEK, 1, "2C 3C 4C 5C", no_capture_order(cards("2C 3C 4C 5C"), jacks=True))
    match.next_round(deal=following)
    assert match.deals == (GOOD, following) and match.turn == 0


def test_the_deal_procedures_are_named_in_the_presets() -> None:
    assert {name: rules.centre_deal for name, rules in PRESETS.items()} == {
        "greek": CentreDeal.REDEAL, "classic": CentreDeal.REPLACE_JACKS, "pisti": CentreDeal.PISTI,
        "partnership": CentreDeal.REPLACE_JACKS, "three-player": CentreDeal.REPLACE_JACKS,
        "faro": CentreDeal.REPLACE_JACKS, "children": CentreDeal.REDEAL,
    }
