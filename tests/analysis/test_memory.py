"""The memory trainer's questions and marks (analysis/memory.py) on hand-made views of each
preset family: the Greek game, Pisti (face-down centre, shown card, no pisti on the last card),
partnerships (four seats, no jack kseri) and Faro's two decks."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from tests.analysis.conftest import greek_view

from kseri.analysis.memory import (
    AnswerError,
    Moment,
    batch_of,
    counting_grid,
    drill_view,
    jacks_out,
    kseri_ranks,
    point_cards_out,
    questions,
    rank_out,
    score,
)
from kseri.cards import JACK, RANK_ALIASES, Card
from kseri.engine import Match, PublicPlay, View
from kseri.rules import Rules

HANDS = ["JC TD 2C AS 3H 4H", "JH KS KD 9C 9D 5S"]
CENTRE = ["5C", "6D", "7H", "8S"]


def cards(text: str) -> tuple[Card, ...]:
    """Cards from space-separated names."""
    return tuple(Card(name) for name in text.split())


def made(preset: str, seat: int, hand: str, centre: tuple[str | None, ...], plays: list[tuple[int, str, int]],
         **fields: Any) -> View:
    """A view of ``preset`` made by hand: ``seat`` holding ``hand`` over the ``centre`` dealt
    (``None`` face down), after ``plays`` (seat, card, cards taken)."""
    base = Match(Rules.preset(preset), seed=1).view(seat)
    pile: list[str | None] = list(centre)
    for _, card, taken in plays:
        pile = [] if taken else [*pile, card]
    return dataclasses.replace(
        base, hand=cards(hand), centre_dealt=tuple(None if c is None else Card(c) for c in centre),
        plays=tuple(PublicPlay(s, Card(c), t, ()) for s, c, t in plays), centre_size=len(pile),
        centre_top=Card(pile[-1]) if pile and pile[-1] is not None else None, **fields)


def test_greek_questions_count_what_the_seat_saw() -> None:
    view = greek_view(HANDS, CENTRE, ["3H", "JH", "4H"])
    assert view.seat == 1 and view.centre_size == 1
    assert jacks_out(view) == 3  # JC and JD are in seat 0's hand, which seat 1 cannot see
    out = point_cards_out(view)
    assert len(out) == 4 + 2 + 4 + 3 + 4 + 1  # aces, kings (not KS KD), queens, jacks, tens, 2♣
    assert Card("TD") in out and Card("2C") in out and Card("KS") not in out and Card("JH") not in out
    assert kseri_ranks(view) == (RANK_ALIASES["4"],)
    assert rank_out(view, RANK_ALIASES["4"]) == 3
    asked = questions(view)
    assert [q.id for q in asked] == ["jacks", "point_cards", "kseri_ranks", "rank_out"]
    assert asked[3].rank == RANK_ALIASES["4"]
    assert len(asked[1].choices) == 21  # the Greek game scores every A K Q J 10 and the 2♣
    assert all("truth" not in q.to_json() for q in asked)


def test_greek_kseri_ranks_need_one_card_on_the_pile() -> None:
    two = greek_view(HANDS, CENTRE, ["3H"])
    assert two.centre_size == 5 and kseri_ranks(two) == ()
    empty = greek_view(HANDS, CENTRE, ["3H", "JH"])
    assert empty.centre_size == 0 and kseri_ranks(empty) == ()
    lone_jack = made("greek", 1, "JS", ("5C", "6D", "7H", "8S"), [(0, "JH", 5), (1, "3C", 0), (0, "3D", 2),
                                                                   (1, "JD", 0)], hand_sizes=(1, 1))
    assert lone_jack.centre_size == 1
    assert kseri_ranks(lone_jack) == (JACK,)  # the Greek game's jack kseri


def test_pisti_shown_card_is_out_and_no_pisti_on_the_last_card() -> None:
    view = made("pisti", 0, "2C 5D 9S QH", (None, None, None, "7C"), [(1, "8D", 0)], shown=Card("JS"),
                hand_sizes=(4, 3))
    assert jacks_out(view) == 4  # the shown J♠ is still to be dealt
    out = point_cards_out(view)
    assert sorted(map(str, out)) == sorted(map(str, cards("TD AC AD AH AS JC JD JH JS")))  # 2♣ in hand
    assert len(questions(view)[1].choices) == 10  # Pisti: 10♦, 2♣, the aces and the jacks
    assert kseri_ranks(view) == ()  # two cards (7♣, 8♦) on the pile, face-down ones under them
    lone = made("pisti", 0, "7S", ("AC", "3D", "4H", "7C"), [(1, "7D", 5), (0, "9C", 0)],
                hand_sizes=(1, 1))
    assert kseri_ranks(lone) == (RANK_ALIASES["9"],)
    last = dataclasses.replace(lone, hand_sizes=(1, 0))
    assert kseri_ranks(last) == ()  # Pisti counts no pisti on the round's last card
    assert kseri_ranks(dataclasses.replace(last, rules=Rules.preset("greek"))) == (RANK_ALIASES["9"],)


def test_partnership_lone_jack_makes_no_kseri_and_every_seat_counts() -> None:
    view = made("partnership", 2, "JC 4S", ("5C", "6D", "7H", "8S"),
                [(0, "JH", 5), (1, "JD", 0), (2, "2C", 0), (3, "2D", 2), (0, "JS", 0)],
                hand_sizes=(3, 3, 2, 3))
    assert view.rules.jack_kseri is None and view.centre_size == 1
    assert kseri_ranks(view) == ()  # Classic's partnership game has no jack kseri
    assert jacks_out(view) == 0  # JH JD JS played, JC in the hand
    assert sorted(map(str, point_cards_out(view))) == sorted(map(str, cards("TD AC AD AH AS")))
    assert rank_out(view, RANK_ALIASES["2"]) == 2


def test_two_decks_count_copies() -> None:
    view = made("faro", 0, "TD AS", ("TD", "3C", "4C", "5C"), [(1, "9H", 0)], hand_sizes=(2, 1, 1, 1, 1))
    out = point_cards_out(view)
    assert Card("TD") not in out  # one 10♦ dealt to the centre, the other in the hand
    assert sum(1 for card in out if card == Card("AS")) == 1 and len(questions(view)[1].choices) == 20
    marks = score(questions(view), {"point_cards": ["AS", "AS"]})
    assert marks[1].credit == 0.0  # one right, one wrong
    with pytest.raises(AnswerError, match="holds 2"):
        score(questions(view), {"point_cards": ["AS", "AS", "AS"]})


def test_marks_exact_near_and_partial() -> None:
    view = greek_view(HANDS, CENTRE, ["3H", "JH", "4H"])
    asked = questions(view)
    truth = [str(card) for card in point_cards_out(view)]
    marks = score(asked, {"jacks": 3, "point_cards": truth, "kseri_ranks": ["4"], "rank_out": "3"})
    assert [m.credit for m in marks] == [1.0, 1.0, 1.0, 1.0] and all(m.exact for m in marks)
    marks = score(asked, {"jacks": 2, "point_cards": [*truth[:9], "KS"], "kseri_ranks": [], "rank_out": 1})
    assert [m.credit for m in marks] == [0.5, round(8 / 18, 3), 0.0, 0.0]
    assert marks[0].to_json() == {"id": "jacks", "answer": 2, "truth": 3, "credit": 0.5, "exact": False}
    assert score(asked, {})[0].credit == 0.0  # not answered
    empty = greek_view(HANDS, CENTRE, ["3H", "JH"])
    assert score(questions(empty), {"kseri_ranks": []})[2].credit == 1.0  # none is right
    assert score(questions(empty), {"kseri_ranks": ["Q"]})[2].credit == 0.0


@pytest.mark.parametrize(("answers", "code", "words"), [
    ({"queens": 2}, "no-such-question", "no question 'queens'"),
    ({"jacks": "many"}, "bad-answer", "whole number"),
    ({"jacks": True}, "bad-answer", "whole number"),
    ({"jacks": -1}, "bad-answer", "whole number"),
    ({"point_cards": "TD"}, "bad-answer", "list"),
    ({"point_cards": ["ZZ"]}, "bad-answer", "not a card"),
    ({"point_cards": ["3C"]}, "bad-answer", "not a point card"),
    ({"kseri_ranks": ["X"]}, "bad-answer", "not a rank"),
])
def test_bad_answers_are_named(answers: dict[str, object], code: str, words: str) -> None:
    view = Match(seed=2).view(0)
    with pytest.raises(AnswerError, match=words) as caught:
        score(questions(view), answers)
    assert caught.value.code == code


def test_the_counting_grid_adds_up() -> None:
    view = greek_view(HANDS, CENTRE, ["3H", "JH", "4H"])
    grid = counting_grid(view)
    assert [row["rank"] for row in grid][:2] == ["A", "K"] and len(grid) == 13
    cells = {cell["card"]: cell for row in grid for cell in row["cards"]}
    assert cells["JH"] == {"card": "JH", "gone": 1, "hand": 0, "out": 0}
    assert cells["KS"] == {"card": "KS", "gone": 0, "hand": 1, "out": 0}
    assert cells["JC"] == {"card": "JC", "gone": 0, "hand": 0, "out": 1}
    assert sum(cell["out"] for cell in cells.values()) == 52 - 7 - 5


@pytest.mark.parametrize("preset", ["greek", "pisti", "partnership", "faro"])
@pytest.mark.parametrize("moment", list(Moment))
def test_drill_positions_sit_in_their_batch(preset: str, moment: Moment) -> None:
    rules = Rules.preset(preset)
    view = drill_view(rules, 11, moment)
    assert view.seat == 0 and view.turn == 0 and view.plays
    assert batch_of(view) == {"early": 1, "middle": (rules.batches + 1) // 2, "last": rules.batches}[moment]
    assert (view.stock_size == 0) == (moment is Moment.LAST)
    assert drill_view(rules, 11, moment) == view  # the seed makes it again
