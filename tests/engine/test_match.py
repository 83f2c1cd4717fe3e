"""Playing, refusing plays, undo, copy and views of a match."""

from __future__ import annotations

import random
from typing import Any

import pytest
from builders import play_first_cards, snapshot

from kseri import Card, IllegalPlayError, Match, Rules
from kseri.engine import Phase


def other_seat_card(match: Match) -> Card:
    turn = match.turn
    assert turn is not None
    return match.view((turn + 1) % match.rules.players).hand[0]


@pytest.mark.parametrize(
    ("move", "seat", "message"),
    [
        ("ZZ", None, "'ZZ' is not a card"),
        ("11H", None, "'11H' is not a card"),
        ("", None, "'' is not a card"),
        (104, None, "104 is not a card"),
        (-1, None, "-1 is not a card"),
        (3.0, None, "3.0 is not a card"),
        (True, None, "True is not a card"),
        (None, None, "None is not a card"),
    ],
)
def test_unknown_cards_are_refused_and_change_nothing(move: Any, seat: int | None, message: str) -> None:
    match = Match(Rules.preset("greek"), seed=5)
    play_first_cards(match, 7)
    before = snapshot(match)
    with pytest.raises(IllegalPlayError, match=message):
        match.play(move, seat=seat)
    assert snapshot(match) == before


def test_a_card_not_in_the_hand_is_refused_and_changes_nothing() -> None:
    match = Match(Rules.preset("pisti"), seed=8)
    play_first_cards(match, 3)
    before = snapshot(match)
    card = other_seat_card(match)
    for move in (card, str(card), int(card), card.pretty(), str(card).lower()):
        with pytest.raises(IllegalPlayError, match=f"{card} is not in the hand of seat {match.turn}"):
            match.play(move)
        assert snapshot(match) == before
    played = match.view(match.turn or 0).plays[0].card  # a card already on the table
    with pytest.raises(IllegalPlayError, match="is not in the hand"):
        match.play(played)
    assert snapshot(match) == before


def test_playing_out_of_turn_is_refused_and_changes_nothing() -> None:
    match = Match(Rules.preset("partnership"), seed=2)
    play_first_cards(match, 5)
    before = snapshot(match)
    turn = match.turn
    assert turn is not None
    for seat in range(4):
        if seat != turn:
            with pytest.raises(IllegalPlayError, match=f"it is seat {turn}'s turn, not seat {seat}'s"):
                match.play(match.view(seat).hand[0], seat=seat)
            assert snapshot(match) == before
    match.play(match.legal_plays()[0], seat=turn)
    assert match.turn == (turn + 1) % 4


def test_no_play_after_the_round_or_the_match_and_nothing_changes() -> None:
    match = Match(Rules.preset("greek", target=1, target_rule="higher-wins"), seed=3)
    play_first_cards(match)
    assert match.is_over() and match.phase is Phase.MATCH_OVER and match.legal_plays() == []
    before = snapshot(match)
    card = match.deals[0].hands[0][0][0]
    with pytest.raises(IllegalPlayError, match="no play is due: the match is over"):
        match.play(card)
    with pytest.raises(IllegalPlayError, match="the match is over"):
        match.next_round()
    assert snapshot(match) == before
    match = Match(Rules.preset("greek"), seed=3)
    play_first_cards(match)
    before = snapshot(match)
    with pytest.raises(IllegalPlayError, match="no play is due: the round is over"):
        match.play(card)
    assert snapshot(match) == before and match.is_round_over() and not match.is_over()


def test_a_card_may_be_named_in_any_spelling() -> None:
    match = Match(Rules.preset("greek"), seed=12)
    card = match.legal_plays()[2]
    match.play(card.pretty())
    assert match.view(0).plays[-1].card is card
    card = match.legal_plays()[1]
    match.play(int(card))
    assert match.view(0).plays[-1].card is card


def test_faro_plays_either_copy_by_its_face() -> None:
    faro = Rules.preset("faro")
    match = Match(faro, seed=1)
    card = match.legal_plays()[0]
    face = str(card.face)
    match.play(face)  # the first-deck name finds a second-deck card too
    assert match.view(0).plays[-1].card is card


def test_undo_without_plays_is_refused() -> None:
    match = Match(seed=1)
    with pytest.raises(IllegalPlayError, match="no play to undo in this round"):
        match.undo()


@pytest.mark.parametrize("preset", ["greek", "pisti", "partnership", "classic"])
def test_undo_restores_every_state_through_a_whole_round(preset: str) -> None:
    match, rng = Match(Rules.preset(preset), seed=21), random.Random(21)
    history = [snapshot(match)]
    while match.turn is not None:
        match.play(rng.choice(match.legal_plays()))
        history.append(snapshot(match))
    cards = [play.card for play in match.plays[-1]]
    for index in range(len(cards) - 1, -1, -1):
        assert match.undo() == cards[index]
        assert snapshot(match) == history[index], f"after undoing play {index}"
    with pytest.raises(IllegalPlayError):
        match.undo()


def test_undo_reaches_back_over_the_end_of_a_match() -> None:
    match = Match(Rules.preset("greek", target=1, target_rule="higher-wins"), seed=9)
    play_first_cards(match, 47)
    before = snapshot(match)
    play_first_cards(match)
    assert match.is_over()
    match.undo()
    assert snapshot(match) == before and match.winner is None and match.target == 1


def test_a_copy_is_independent() -> None:
    match, rng = Match(Rules.preset("pisti"), seed=6), random.Random(6)
    for _ in range(30):
        match.play(rng.choice(match.legal_plays()))
    before = snapshot(match)
    twin = match.copy()
    assert snapshot(twin) == before
    while twin.turn is not None:
        twin.play(twin.legal_plays()[-1])
    twin.undo()
    twin.play(twin.legal_plays()[0])
    if twin.phase is Phase.ROUND_OVER:
        twin.next_round()
    assert snapshot(match) == before
    match.play(match.legal_plays()[0])
    assert snapshot(twin) != snapshot(match)


def test_view_refuses_a_seat_that_is_not_at_the_table() -> None:
    match = Match(seed=1)
    with pytest.raises(ValueError, match="seat must be 0 to 1, not 2"):
        match.view(2)


def test_defaults_are_the_greek_game_with_a_fresh_seed() -> None:
    first, second = Match(), Match()
    assert first.rules == Rules.preset("greek") and first.seed != second.seed
    assert repr(first).startswith("<Match rules='greek'")


def test_only_the_seat_to_play_has_legal_plays_in_its_view() -> None:
    match = Match(seed=4)
    turn = match.turn
    assert turn is not None
    assert match.view(turn).legal_plays() == tuple(match.legal_plays())
    assert match.view(1 - turn).legal_plays() == ()
