"""Each verdict on a hand-made position, the values given by hand; one from the real search."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from kseri.agents.master import MasterAgent
from kseri.analysis import Kind, Reason, Verdict, judge, verdict_text
from kseri.analysis.position import Position as Facts
from kseri.analysis.review import review_play
from kseri.cards import Card
from kseri.engine import View
from kseri.learn.text import LANGUAGES, LanguageError

Position = Callable[..., View]
"""The ``position`` fixture: a hand-made Greek position's view (``conftest.greek_view``)."""

# seat 0 to play over 2S 3S AS 5S with the 5H to capture, a Jack, a queen and small cards
OPEN = (["5H 8H JH QH 9D 6C", "7C 7D KC KD 9C 6D"], ["2S", "3S", "AS", "5S"])


def values(view: View, best: str, **others: float) -> list[tuple[Card, float]]:
    """``best`` worth 0, the named cards their value, every other card of the hand -1."""
    return [(card, 0.0 if str(card) == best else others.get(str(card), -1.0)) for card in view.hand]


def test_a_kseri_left_on_the_table_is_a_missed_kseri(position: Position) -> None:
    # seat 0 sweeps with the 5H, seat 1 lays the 9C alone
    view = position(["5H 8H JH QH 9D 6C", "7C 7D KC KD 9C 6D"], ["2S", "3S", "4S", "5S"], ["5H", "9C"])
    assert view.centre_size == 1 and view.centre_top == Card("9C")
    verdict = judge(view, Card("QH"), values(view, "9D"))
    assert verdict == Verdict(Kind.MISSED_KSERI, Card("QH"), Card("9D"), 1.0, worth=10)


def test_a_lone_card_of_a_rank_still_out_gives_a_kseri_away(position: Position) -> None:
    # seat 1 sweeps with the 7D: seat 0 lays on an empty centre, holding every 2 still out
    view = position(["2H 2D 2C 9H 8H 7C", "7D KC KD QC 6D 6C"], ["2S", "3S", "4S", "5S"], ["7C", "7D"])
    assert view.centre_size == 0
    verdict = judge(view, Card("9H"), values(view, "2H"))
    assert verdict is not None and verdict.kind is Kind.GAVE_KSERI
    assert Facts.of(view).unseen_of(Card("2H")) == 0 < Facts.of(view).unseen_of(Card("9H"))


def test_a_capture_left_is_a_missed_capture_worth_its_points(position: Position) -> None:
    view = position(*OPEN)
    verdict = judge(view, Card("8H"), values(view, "5H"))
    assert verdict is not None and (verdict.kind, verdict.worth) == (Kind.MISSED_CAPTURE, 1)


def test_a_jack_on_a_pile_of_nothing_is_a_jack_spent_on_a_small_pile(position: Position) -> None:
    view = position(["5H 8H JH QH 9D 6C", "7C 7D KC KD 9C 6D"], ["2S", "3S", "4S", "5S"])
    verdict = judge(view, Card("JH"), values(view, "8H", **{"5H": -0.2}))
    assert verdict is not None and (verdict.kind, verdict.worth) == (Kind.JACK_ON_SMALL_PILE, 0)


def test_the_jack_kept_in_the_last_batch_is_kept_too_long(position: Position) -> None:
    view = replace(position(*OPEN), stock_size=0)
    verdict = judge(view, Card("8H"), values(view, "JH"))
    assert verdict is not None and (verdict.kind, verdict.worth) == (Kind.KEPT_JACK, 2)


def test_the_last_choice_without_a_capture_leaves_the_last_sweep(position: Position) -> None:
    view = replace(position(*OPEN), stock_size=0, hand=(Card("5H"), Card("8H")), hand_sizes=(2, 2))
    verdict = judge(view, Card("8H"), values(view, "5H"))
    assert verdict is not None and verdict.kind is Kind.LAST_SWEEP
    # with more cards to come the same play is only a missed capture
    earlier = replace(position(*OPEN), stock_size=0)
    missed = judge(earlier, Card("8H"), values(earlier, "5H"))
    assert missed is not None and missed.kind is Kind.MISSED_CAPTURE


def test_a_capture_that_settles_the_majority_left_loses_the_majority(position: Position) -> None:
    view = replace(position(*OPEN), captured_sizes=(23, 10))
    verdict = judge(view, Card("8H"), values(view, "5H"))
    assert verdict is not None and (verdict.kind, verdict.worth) == (Kind.LOST_MAJORITY, 3)
    short = replace(position(*OPEN), captured_sizes=(20, 10))
    assert judge(short, Card("8H"), values(short, "5H")).kind is Kind.MISSED_CAPTURE  # type: ignore[union-attr]


def test_a_point_card_laid_on_the_pile_is_exposed(position: Position) -> None:
    view = position(*OPEN)
    verdict = judge(view, Card("QH"), values(view, "6C", **{"5H": -0.1}))
    assert verdict is not None and (verdict.kind, verdict.worth) == (Kind.EXPOSED_POINT_CARD, 1)


@pytest.mark.parametrize(("played", "best", "reason"), [
    ("JH", "9D", Reason.KEEPS_JACK),   # a Jack on a pile worth 2: not small, but the Jack is kept
    ("9D", "6C", Reason.LATER),        # two plain cards alike in every named way
])
def test_the_better_card_says_why(position: Position, played: str, best: str, reason: Reason) -> None:
    view = position(["5H 8H JH QH 9D 6C", "7C 7D KC KD 9C 6D"], ["2S", "TS", "4S", "AS"])
    verdict = judge(view, Card(played), values(view, best, **{"5H": -0.1}))
    assert verdict is not None and (verdict.kind, verdict.reason) == (Kind.BETTER_CARD, reason)


def test_the_better_card_captures_or_is_safer(position: Position) -> None:
    plain = position(["5H 8H JH QH 9D 6C", "7C 7D KC KD 9C 6D"], ["2S", "3S", "4S", "5S"])
    takes = judge(plain, Card("8H"), values(plain, "5H"))  # a capture of no points
    assert takes is not None and (takes.kind, takes.reason) == (Kind.BETTER_CARD, Reason.CAPTURES)
    # the 2s all seen: the 2H is safe where the 9H may be answered
    view = position(["2H 2D 9H 8H 6H 7C", "7D KC KD QC 6D 6C"], ["2S", "2C", "4S", "3S"])
    safer = judge(view, Card("9H"), values(view, "2H"))
    assert safer is not None and (safer.kind, safer.reason) == (Kind.BETTER_CARD, Reason.SAFER)


def test_a_small_loss_has_no_verdict_and_a_card_not_held_is_refused(position: Position) -> None:
    view = position(*OPEN)
    assert judge(view, Card("8H"), values(view, "5H", **{"8H": -0.4})) is None
    with pytest.raises(ValueError, match="not in seat 0's hand"):
        judge(view, Card("KC"), values(view, "5H"))


def test_the_search_finds_the_missed_kseri_and_the_review_carries_it(position: Position) -> None:
    view = position(["5H 8H JH QH 9D 6C", "7C 7D KC KD 9C 6D"], ["2S", "3S", "4S", "5S"], ["5H", "9C"])
    review = review_play(view, Card("6C"), MasterAgent(seed=0, iterations=64))
    assert review.best == Card("9D")
    assert review.verdict is not None and review.verdict.kind is Kind.MISSED_KSERI
    assert review.to_json()["verdict"]["kind"] == "missed_kseri"


def test_every_verdict_reads_in_every_language(position: Position) -> None:
    for kind in Kind:
        reason = Reason.SAFER if kind is Kind.BETTER_CARD else None
        verdict = Verdict(kind, Card("9H"), Card("2H"), 1.5, 3, reason)
        sentences = {verdict_text(verdict, lang) for lang in LANGUAGES}
        assert len(sentences) >= 5 and all("2♥" in s for s in sentences)
    with pytest.raises(LanguageError, match="xx"):
        verdict_text(Verdict(Kind.MISSED_KSERI, Card("9H"), Card("2H"), 1.0), "xx")
