"""The guides' worked examples and FAQ, the pitfalls RULES.md lists, and every open decision.

Positions are built with explicit deals (``builders.scripted_deal``): in the Greek game with
seat 0 dealing, seat 1 ("A") plays first and seat 0 ("B") answers.
"""

from __future__ import annotations

import pytest
from builders import cards, no_capture_order, play_first_cards, points_for, scripted_deal

from kseri import Card, Match, Rules
from kseri.engine import Mark, Phase, PublicPlay
from kseri.rules import MajorityTie, TargetRule

GREEK = Rules.preset("greek")
CENTRE = "2C 3C 4C 5C"
A, B = 1, 0


def round_starting_with(rules: Rules, opening: str, centre: str = CENTRE, face_down: int = 0) -> Match:
    """A round whose first plays are ``opening``; the rest follows in no-capture order, Jacks last."""
    first = cards(opening)
    used = cards(centre) + first
    jacks = [c for c in cards("JC JD JH JS") if c not in used]
    rest = no_capture_order(used) + jacks
    return Match(rules, deal=scripted_deal(rules, 0, centre, first + rest, face_down))


# -- section 07: the worked examples -----------------------------------------------------------


def test_ten_on_a_lone_ten_of_diamonds_scores_13() -> None:
    match = round_starting_with(GREEK, "7D JS TD TS")  # B's Jack empties the table, A leads 10♦
    play_first_cards(match, 4)
    assert match.view(A).plays[-1] == PublicPlay(B, Card("TS"), 2, (Mark("kseri", Card("TS"), 10),))
    play_first_cards(match)
    assert points_for(match.round_results[-1], B, cards("TD TS")) == 10 + 2 + 1


def test_jack_on_the_lone_ten_of_diamonds_scores_3_and_no_kseri() -> None:
    match = round_starting_with(GREEK, "7D JH TD JS")
    play_first_cards(match, 4)
    assert match.view(A).plays[-1] == PublicPlay(B, Card("JS"), 2, ())
    play_first_cards(match)
    assert points_for(match.round_results[-1], B, cards("TD JS")) == 2 + 1


def test_jack_on_a_lone_jack_is_a_jack_kseri_of_22() -> None:
    match = round_starting_with(GREEK, "7D JS JH JC")
    play_first_cards(match, 4)
    assert match.view(A).plays[-1] == PublicPlay(B, Card("JC"), 2, (Mark("jack-kseri", Card("JC"), 20),))
    play_first_cards(match)
    result = match.round_results[-1]
    assert points_for(result, B, cards("JH JC")) == 20 + 1 + 1
    assert result.kseri[B] == 20


# -- the FAQ ------------------------------------------------------------------------------------


def test_faq_a_jack_on_a_lone_card_of_another_rank_is_no_kseri() -> None:
    match = round_starting_with(GREEK, "7D JS 9H JC")
    play_first_cards(match, 4)
    assert match.view(B).plays[-1] == PublicPlay(B, Card("JC"), 2, ())


def test_faq_greek_and_turkish_card_points_differ() -> None:
    greek, pisti = GREEK.points_table, Rules.preset("pisti").points_table
    for name in ("AS", "KH", "QD", "JC", "TS"):
        assert greek[Card(name)] == 1
    assert (greek[Card("TD")], greek[Card("2C")]) == (2, 1)
    assert [pisti[Card(name)] for name in ("KH", "QD", "TS", "TD", "2C", "AS", "JC")] == [0, 0, 0, 3, 2, 1, 1]
    assert sum(greek) == 22 and sum(pisti) == 13


def test_faq_later_batches_refill_the_hands_and_leave_the_centre_alone() -> None:
    order = no_capture_order(cards(CENTRE)) + cards("JC JD JH JS")
    match = Match(GREEK, deal=scripted_deal(GREEK, 0, CENTRE, order))
    assert match.view(A).stock_size == 36
    play_first_cards(match, 12)  # no capture in the first batch: 4 + 12 cards in the centre
    view = match.view(A)
    assert match.centre_left == tuple(cards(CENTRE) + order[:12])
    assert (view.centre_size, view.stock_size, view.hand_sizes, view.turn) == (16, 24, (6, 6), A)


# -- the rules of capture ---------------------------------------------------------------------


def test_only_the_top_card_counts_no_sums_and_no_suits() -> None:
    match = round_starting_with(GREEK, "2D 7C")  # 2 on the 5C does not add to 7; 7C is no 5
    play_first_cards(match, 2)
    assert [p.taken for p in match.view(A).plays] == [0, 0]
    assert match.view(A).centre_size == 6


def test_a_jack_on_an_empty_table_captures_nothing() -> None:
    match = round_starting_with(GREEK, "7D JS JH")
    play_first_cards(match, 3)
    assert match.view(A).plays[-1].taken == 0
    assert match.view(A).centre_top == Card("JH")


def test_children_jacks_capture_only_by_rank_but_keep_the_jack_kseri() -> None:
    children = Rules.preset("children")
    match = round_starting_with(children, "7D JS 7H JH JC")
    play_first_cards(match, 5)
    # JS takes nothing from the 7D, 7H nothing from the JS, JH nothing from the 7H; JC takes all
    assert [p.taken for p in match.view(A).plays] == [0, 0, 0, 0, 9]
    match = round_starting_with(children, "7D 7H JS JH")  # 7H takes the pile; JS alone; JH on it
    play_first_cards(match, 4)
    assert match.view(A).plays[-1] == PublicPlay(B, Card("JH"), 2, (Mark("jack-kseri", Card("JH"), 20),))


# -- pitfalls ---------------------------------------------------------------------------------


def test_the_bonus_two_is_the_two_of_clubs_not_spades() -> None:
    for preset, points in (("greek", 1), ("classic", 2), ("pisti", 2)):
        table = Rules.preset(preset).points_table
        assert (table[Card("2C")], table[Card("2S")]) == (points, 0)
    match = round_starting_with(GREEK, "7D JS")  # B's Jack takes 2C 3C 4C 5C 7D
    play_first_cards(match)
    assert points_for(match.round_results[-1], B, cards("2C 3C 4C 5C 7D JS")) == 1 + 1


def test_the_bonus_ten_is_the_ten_of_diamonds() -> None:
    for preset, points in (("greek", 2), ("classic", 2), ("pisti", 3)):
        table = Rules.preset(preset).points_table
        assert table[Card("TD")] == points
        assert table[Card("TH")] == (1 if preset == "greek" else 0)


def last_card_kseri(rules: Rules) -> Match:
    """A round whose last two plays are A leading 9H onto an empty table and B taking it with 9S."""
    opening = cards("JC JD JH")  # A takes the centre, B leads a Jack, A makes a jack kseri
    closing = cards("JS 9H 9S")  # B's Jack takes the pile, A leads 9H, B plays the last card
    middle = no_capture_order(cards(CENTRE) + opening + closing)
    face_down = 3 if rules.name == "pisti" else 0
    return Match(rules, deal=scripted_deal(rules, 0, CENTRE, opening + middle + closing, face_down))


def test_a_kseri_on_the_last_card_counts_in_greek() -> None:
    match = last_card_kseri(GREEK)
    play_first_cards(match)
    assert match.view(A).plays[-1] == PublicPlay(B, Card("9S"), 2, (Mark("kseri", Card("9S"), 10),))
    assert match.round_results[-1].kseri == (10, 20)


def test_a_pisti_on_the_last_card_does_not_count_in_pisti() -> None:
    match = last_card_kseri(Rules.preset("pisti"))
    play_first_cards(match)
    assert match.view(A).plays[-1] == PublicPlay(B, Card("9S"), 2, ())
    assert match.round_results[-1].kseri == (0, 20)


def test_turkish_double_pisti_is_the_jack_kseri_not_guide_003s_double_kseri() -> None:
    pisti = Rules.preset("pisti")
    assert (pisti.jack_kseri, pisti.double_kseri) == (20, None)
    match = last_card_kseri(pisti)
    play_first_cards(match, 3)
    assert match.view(A).plays[-1].marks == (Mark("jack-kseri", Card("JH"), 20),)


def tie_round(rules: Rules) -> Match:
    """B takes 26 cards with JC; A leads JH, then takes 25 with JD and sweeps B's last card: 26-26.

    Greek points: B has 2C 1, TC QC KC AC JC 5, TD 2, QD KD AD 3 = 11; A has JH, TH QH KH AH,
    TS QS KS AS, JD, JS = 11. No kseri, no majority: 22 in all.
    """
    rest = no_capture_order(cards(CENTRE))
    order = rest[:21] + cards("JC JH") + rest[21:] + cards("JD JS")
    return Match(rules, deal=scripted_deal(rules, 0, CENTRE, order))


def test_a_26_26_count_gives_the_majority_to_nobody() -> None:
    match = tie_round(GREEK)
    play_first_cards(match)
    result = match.round_results[-1]
    assert tuple(map(len, result.captured)) == (26, 26)
    assert result.points == (11, 11)
    assert all(item.kind != "majority" for items in result.breakdown for item in items)


def test_a_tie_can_reward_every_tied_side_when_chosen() -> None:
    match = tie_round(GREEK.replace(majority_tie=MajorityTie.EVERY_TIED_SIDE))
    play_first_cards(match)
    assert match.round_results[-1].points == (14, 14)


def pisti_first_capture(rules: Rules, dealer: int) -> Match:
    """Pisti: the seat after the dealer takes the centre (three face down under 5C) with 5D."""
    first = cards("5D")
    order = first + no_capture_order(cards(CENTRE) + first, jacks=True)
    return Match(rules, deal=scripted_deal(rules, dealer, CENTRE, order, face_down=3))


@pytest.mark.parametrize("rules", [Rules.preset("pisti"), Rules.preset("partnership", centre_deal="pisti")])
def test_only_the_seat_that_takes_the_face_down_cards_sees_them(rules: Rules) -> None:
    match = pisti_first_capture(rules, dealer=0)
    for seat in range(rules.players):
        view = match.view(seat)
        assert (view.face_down, view.face_down_seen) == (3, ())
        assert view.centre_dealt == (None, None, None, Card("5C"))
    match.play("5D")
    for seat in range(rules.players):
        seen = match.view(seat).face_down_seen
        assert seen == (tuple(cards("2C 3C 4C")) if seat == 1 else ()), f"seat {seat}"
        assert match.view(seat).face_down == 0


# -- the open decisions -----------------------------------------------------------------------


def test_nobody_captured_so_the_centre_goes_to_nobody() -> None:
    children = Rules.preset("children")
    order = no_capture_order(cards(CENTRE), jacks=True)
    match = Match(children, deal=scripted_deal(children, 0, CENTRE, order))
    play_first_cards(match)
    result = match.round_results[-1]
    assert result.captured == ((), ()) and result.points == (0, 0) and result.last_capturer is None
    assert len(match.centre_left) == 52
    assert match.view(A).last_capturer is None
    rewarding_ties = children.replace(majority_tie=MajorityTie.EVERY_TIED_SIDE)
    match = Match(rewarding_ties, deal=scripted_deal(rewarding_ties, 0, CENTRE, order))
    play_first_cards(match)
    assert match.round_results[-1].points == (0, 0)  # no cards, no majority, even for ties


def test_the_last_capturer_sweeps_the_centre_without_a_kseri() -> None:
    match = tie_round(GREEK)  # A's JD is the last capture; B's last card, JS, stays on the table
    play_first_cards(match)
    result = match.round_results[-1]
    assert match.view(A).plays[-1] == PublicPlay(B, Card("JS"), 0, ())
    assert (result.last_capturer, result.captured[A][-1], result.kseri) == (A, Card("JS"), (0, 0))
    assert match.centre_left == ()


CLASSIC = Rules.preset("classic")


def test_double_kseri_is_a_kseri_on_the_card_led_right_after_a_kseri() -> None:
    # A takes the centre with 5D; B leads 6C, A takes it (kseri); B leads 7C, A takes it (double).
    match = round_starting_with(CLASSIC, "5D 6C 6D 7C 7D 8C 8D")
    play_first_cards(match, 7)
    marks = [play.marks for play in match.view(A).plays]
    assert marks == [(), (), (Mark("kseri", Card("6D"), 10),), (), (Mark("double-kseri", Card("7D"), 20),),
                     (), (Mark("double-kseri", Card("8D"), 20),)]


def test_no_double_kseri_when_anything_comes_between() -> None:
    # A's kseri with 6D; B leads 7C, A covers it with 8C, B's Jack takes both, A leads 2D and
    # B takes it: a kseri, but not on a card led right after a kseri.
    match = round_starting_with(CLASSIC, "5D 6C 6D 7C 8C JS 2D 2H")
    play_first_cards(match, 8)
    assert [p.marks for p in match.view(A).plays][2:] == [
        (Mark("kseri", Card("6D"), 10),), (), (), (), (), (Mark("kseri", Card("2H"), 10),),
    ]


def test_double_kseri_goes_to_whoever_makes_the_second_kseri_with_three_players() -> None:
    three = Rules.preset("three-player")
    # dealer 0: seats 1, 2, 0 play in turn. Seat 1 takes the centre, seat 2 leads 6C, seat 0
    # takes it (kseri); seat 1 leads 7C; seat 2 takes it: a double kseri for seat 2.
    first = cards("5D 6C 6D 7C 7D")
    used = cards(CENTRE) + first
    order = first + no_capture_order(used) + cards("JC JD JH JS")
    match = Match(three, deal=scripted_deal(three, 0, CENTRE, order))
    play_first_cards(match, 5)
    plays = match.view(0).plays
    assert [(p.seat, p.marks) for p in plays[2:]] == [
        (0, (Mark("kseri", Card("6D"), 10),)), (1, ()), (2, (Mark("double-kseri", Card("7D"), 20),)),
    ]


def test_a_kseri_on_a_one_card_centre_can_start_a_double() -> None:
    rules = Rules.preset("three-player", centre_size=1, batch_size=1)
    first = cards("5D 6C 6D")  # seat 1 takes the lone 5C (kseri), seat 2 leads, seat 0: double
    order = first + no_capture_order(cards("5C") + first) + cards("JC JD JH JS")
    match = Match(rules, deal=scripted_deal(rules, 0, "5C", order))
    play_first_cards(match, 3)
    assert [p.marks for p in match.view(0).plays] == [
        (Mark("kseri", Card("5D"), 10),), (), (Mark("double-kseri", Card("6D"), 20),),
    ]


def test_a_jack_never_makes_kseri_in_guide_003() -> None:
    match = round_starting_with(CLASSIC, "7D JS JH JC")
    play_first_cards(match, 4)
    assert match.view(A).plays[-1] == PublicPlay(B, Card("JC"), 2, ())


def test_marks_of_one_play_add_up() -> None:
    house = GREEK.replace(jacks_table_bonus=10, two_clubs_match_bonus=5)
    match = round_starting_with(house, "7D JS JH JC")
    play_first_cards(match, 4)
    assert match.view(A).plays[-1].marks == (
        Mark("jack-kseri", Card("JC"), 20), Mark("jacks-table", Card("JC"), 10),
    )
    match = round_starting_with(house, "7D JS 2C 2S", centre="3C 4C 5C 6C")
    play_first_cards(match, 4)
    assert match.view(A).plays[-1].marks == (
        Mark("kseri", Card("2S"), 10), Mark("two-clubs-match", Card("2S"), 5),
    )
    match = round_starting_with(house, "7D JS 2S 2C", centre="3C 4C 5C 6C")  # 2♣ taking: no bonus
    play_first_cards(match, 4)
    assert match.view(A).plays[-1].marks == (Mark("kseri", Card("2C"), 10),)


def test_last_capture_bonus_goes_to_the_last_capturer() -> None:
    match = tie_round(GREEK.replace(last_capture_bonus=10))
    play_first_cards(match)
    assert match.round_results[-1].points == (11, 21)  # A made the last capture (JD)


# -- the match target -------------------------------------------------------------------------


def test_greek_escalation_when_both_reach_the_target() -> None:
    assert (GREEK.target, GREEK.escalation, GREEK.target_rule) == (151, 100, TargetRule.ESCALATE)
    match = tie_round(GREEK.replace(target=5))  # 11-11: both pass 5, the target becomes 105
    play_first_cards(match)
    assert (match.target, match.winner, match.phase) == (105, None, Phase.ROUND_OVER)
    match = tie_round(GREEK.replace(target=5, escalation=3))  # 8 and 11 are reached by both, 14 by none
    play_first_cards(match)
    assert (match.target, match.winner) == (14, None)


def test_escalation_stops_when_exactly_one_side_is_at_the_new_target() -> None:
    # The tie round with a last-capture bonus of 10 gives B 11 and A 21: both pass 11.
    for escalation, target, winner in ((1, 12, A), (5, 16, A), (10, 21, A), (11, 22, None)):
        match = tie_round(GREEK.replace(last_capture_bonus=10, target=11, escalation=escalation))
        play_first_cards(match)
        assert match.totals == (11, 21)
        assert (match.target, match.winner) == (target, winner), f"escalation {escalation}"


def test_higher_total_wins_and_a_tie_plays_another_deal() -> None:
    tied = GREEK.replace(target=5, target_rule=TargetRule.HIGHER_WINS)
    match = tie_round(tied)
    play_first_cards(match)
    assert match.round_results[-1].points == (11, 11)
    assert (match.winner, match.phase, match.target) == (None, Phase.ROUND_OVER, 5)
    match.next_round()
    assert match.round_index == 1 and match.dealer == 1
    match = tie_round(tied.replace(last_capture_bonus=10))  # 11 and 21: both pass, the higher wins
    play_first_cards(match)
    assert (match.totals, match.winner, match.phase) == ((11, 21), A, Phase.MATCH_OVER)


def test_a_tie_for_the_most_cards_among_three_sides_gives_the_majority_to_nobody() -> None:
    three = Rules.preset("three-player")
    for seed in range(300):
        match = Match(three, seed=seed)
        play_first_cards(match)
        counts = list(map(len, match.round_results[-1].captured))
        if counts.count(max(counts)) == 2:
            break
    else:
        pytest.fail("no three-player round with a tie for the most cards in 300 seeds")
    assert all(item.kind != "majority" for items in match.round_results[-1].breakdown for item in items)
    rewarded = Match(three.replace(majority_tie=MajorityTie.EVERY_TIED_SIDE), seed=seed)
    play_first_cards(rewarded)
    winners = [side for side, items in enumerate(rewarded.round_results[-1].breakdown)
               if any(item.kind == "majority" for item in items)]
    assert winners == [side for side, count in enumerate(counts) if count == max(counts)]


def test_pisti_decides_the_match_by_the_higher_total() -> None:
    pisti = Rules.preset("pisti")
    assert (pisti.target, pisti.target_rule) == (151, TargetRule.HIGHER_WINS)
