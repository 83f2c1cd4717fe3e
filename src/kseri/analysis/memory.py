"""The memory trainer's questions: what a seat can know is still out, asked and scored from the
seat's view alone (never a hidden card), and the counting aid's grid of what has gone.

A card is **still out** when the seat cannot place it: not in its hand and not seen on the
table this round (played, dealt face up to the centre, or a face-down card it captured). Pisti's
shown card is still out: it is the stock's bottom card, dealt with the last batch.

>>> from kseri import Match
>>> view = Match(seed=3).view(0)
>>> jacks_out(view) + sum(1 for card in view.hand if card.rank == JACK) + sum(
...     1 for card in view.centre_dealt if card is not None and card.rank == JACK)
4
>>> [question.id for question in questions(view)]
['jacks', 'point_cards', 'kseri_ranks', 'rank_out']
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal

from kseri.agents import make_agent
from kseri.cards import ALL_CARDS, CARDS_PER_DECK, JACK, RANK_ALIASES, RANK_NAMES, Card, CardError
from kseri.engine import Match, View
from kseri.rules import Rules

QuestionId = Literal["jacks", "point_cards", "kseri_ranks", "rank_out"]
QUESTION_IDS: Final[tuple[QuestionId, ...]] = ("jacks", "point_cards", "kseri_ranks", "rank_out")
"""Every question, in the order it is asked."""

NEAR_CREDIT: Final = 0.5
"""A count off by one earns half a point."""


class AnswerError(ValueError):
    """An answer refused: ``code`` is ``no-such-question`` or ``bad-answer``, ``question`` the
    question's id as sent."""

    def __init__(self, code: str, question: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.question = question


# -- what the seat knows -----------------------------------------------------------------------------

def seen_cards(view: View) -> Counter[Card]:
    """The cards (as first-deck faces) the seat has seen leave play this round: played, dealt
    face up to the centre, or captured face down by the seat."""
    seen: Counter[Card] = Counter(play.card.face for play in view.plays)
    seen.update(card.face for card in view.centre_dealt if card is not None)
    seen.update(card.face for card in view.face_down_seen)
    return seen


def out_cards(view: View) -> Counter[Card]:
    """The cards (as faces) still out: every copy in the deck less the seat's hand and
    :func:`seen_cards`."""
    gone = seen_cards(view)
    gone.update(card.face for card in view.hand)
    out: Counter[Card] = Counter()
    for card in ALL_CARDS[:CARDS_PER_DECK]:
        left = view.rules.decks - gone[card]
        if left > 0:
            out[card] = left
    return out


def rank_out(view: View, rank: int) -> int:
    """How many cards of ``rank`` are still out."""
    return sum(count for card, count in out_cards(view).items() if card.rank == rank)


def jacks_out(view: View) -> int:
    """How many Jacks are still out."""
    return rank_out(view, JACK)


def point_faces(rules: Rules) -> tuple[Card, ...]:
    """The cards that score under ``rules`` (as faces, one per copy in the deck), lowest first:
    the Greek game's A K Q J 10 and 2♣; Classic's and Pisti's 10♦, 2♣, Aces and Jacks."""
    table = rules.points_table
    return tuple(card for card in ALL_CARDS[:CARDS_PER_DECK] if table[card] > 0
                 for _ in range(rules.decks))


def point_cards_out(view: View) -> tuple[Card, ...]:
    """The point cards still out (faces, a two-deck game's copies repeated), lowest first."""
    out = out_cards(view)
    table = view.rules.points_table
    return tuple(card for card in sorted(out) if table[card] > 0 for _ in range(out[card]))


def kseri_ranks(view: View) -> tuple[int, ...]:
    """The ranks that would make a kseri now: the top card's rank when it lies alone in the
    centre, where the rules score that capture as one (a Jack on a lone Jack only with a jack
    kseri; on the round's last card only where the rules count it)."""
    top = view.centre_top
    if top is None or view.centre_size != 1:
        return ()
    if top.rank == JACK and view.rules.jack_kseri is None:
        return ()
    if sum(view.hand_sizes) <= 1 and not view.rules.kseri_on_last_card:
        return ()
    return (top.rank,)


def asked_rank(view: View) -> int:
    """The rank the ``rank_out`` question asks about: the centre's top card's (how many could
    take it), else the first card of the hand's, else the Ace."""
    if view.centre_top is not None:
        return view.centre_top.rank
    return view.hand[0].rank if view.hand else RANK_ALIASES["A"]


def batch_of(view: View) -> int:
    """The batch being played, from 1."""
    rules = view.rules
    dealt = rules.deck_size - rules.centre_size - view.stock_size
    return max(1, dealt // (rules.players * rules.batch_size))


# -- questions and answers ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Question:
    """One question about a view, with its true answer."""

    id: QuestionId
    kind: Literal["count", "cards", "ranks"]
    """``count``: a whole number; ``cards``: a set of cards among ``choices``; ``ranks``: a set
    of ranks."""
    truth: int | tuple[Card, ...] | tuple[int, ...]
    rank: int | None = None
    """The rank asked about (``rank_out`` only)."""
    choices: tuple[Card, ...] = ()
    """The cards to choose among (``cards`` only): every point card of the rules."""

    def to_json(self) -> dict[str, Any]:
        """The question as it is set: never its answer."""
        return {"id": self.id, "kind": self.kind,
                "rank": None if self.rank is None else RANK_NAMES[self.rank],
                "choices": [str(card) for card in self.choices]}


def questions(view: View) -> tuple[Question, ...]:
    """The four questions about ``view``: how many Jacks are still out, which point cards are,
    which ranks would make a kseri now, and how many cards of :func:`asked_rank` are out."""
    rank = asked_rank(view)
    return (
        Question("jacks", "count", jacks_out(view)),
        Question("point_cards", "cards", point_cards_out(view), choices=point_faces(view.rules)),
        Question("kseri_ranks", "ranks", kseri_ranks(view)),
        Question("rank_out", "count", rank_out(view, rank), rank=rank),
    )


@dataclass(frozen=True, slots=True)
class Mark:
    """One answer scored."""

    question: Question
    answer: int | tuple[Card, ...] | tuple[int, ...] | None
    """The answer as read (``None``: not answered)."""
    credit: float
    """From 0 to 1."""

    @property
    def exact(self) -> bool:
        """Whether the answer is the truth."""
        return self.credit == 1.0

    def to_json(self) -> dict[str, Any]:
        """The mark with the question's truth."""
        return {"id": self.question.id, "answer": _show(self.answer), "truth": _show(self.question.truth),
                "credit": self.credit, "exact": self.exact}


def _show(value: int | tuple[Card, ...] | tuple[int, ...] | None) -> Any:
    if value is None or isinstance(value, int):
        return value
    return [str(item) if isinstance(item, Card) else RANK_NAMES[item] for item in value]


def read_answer(question: Question, raw: object) -> int | tuple[Card, ...] | tuple[int, ...]:
    """``raw`` (JSON) as an answer to ``question``: a whole number for a count, a list of cards
    among the choices, a list of ranks; anything else raises :class:`AnswerError`."""
    if question.kind == "count":
        if isinstance(raw, str) and raw.strip().isdigit():
            raw = int(raw.strip())
        if type(raw) is not int or raw < 0 or raw > 8 * 13:
            raise AnswerError("bad-answer", question.id, f"{question.id}: answer with a whole number "
                              f"of cards, not {raw!r:.40}")
        return raw
    if not isinstance(raw, list) or len(raw) > 2 * CARDS_PER_DECK:
        raise AnswerError("bad-answer", question.id, f"{question.id}: answer with a list, not {raw!r:.40}")
    if question.kind == "ranks":
        ranks = set()
        for item in raw:
            rank = RANK_ALIASES.get(item.strip().upper()) if isinstance(item, str) else None
            if rank is None:
                raise AnswerError("bad-answer", question.id, f"{question.id}: {item!r:.20} is not a rank "
                                  "(2-10, T, J, Q, K, A)")
            ranks.add(rank)
        return tuple(sorted(ranks))
    cards = []
    for item in raw:
        try:
            card = Card(item).face if isinstance(item, str) else None
        except CardError:
            card = None
        if card is None:
            raise AnswerError("bad-answer", question.id, f"{question.id}: {item!r:.20} is not a card "
                              "(like TD or 10♦)")
        cards.append(card)
    allowed = Counter(question.choices)
    for card, count in Counter(cards).items():
        if count > allowed[card]:
            raise AnswerError("bad-answer", question.id, f"{question.id}: {card.pretty()} is not a point "
                              "card of these rules" if not allowed[card] else
                              f"{question.id}: the deck holds {allowed[card]} {card.pretty()}")
    return tuple(sorted(cards))


def credit(question: Question, answer: int | tuple[Card, ...] | tuple[int, ...] | None) -> float:
    """The credit an answer earns. A count: 1 exact, :data:`NEAR_CREDIT` off by one, else 0. A
    set (cards, ranks): the right items less the wrong ones, over the true items (at least 0;
    1 for naming none when none is right)."""
    truth = question.truth
    if answer is None:
        return 0.0
    if isinstance(truth, int) and isinstance(answer, int):
        miss = abs(answer - truth)
        return 1.0 if miss == 0 else NEAR_CREDIT if miss == 1 else 0.0
    assert not isinstance(truth, int) and not isinstance(answer, int)
    wanted: Counter[int] = Counter(truth)
    given: Counter[int] = Counter(answer)
    if not wanted:
        return 0.0 if given else 1.0
    right = sum((wanted & given).values())
    wrong = sum((given - wanted).values())
    return round(max(0, right - wrong) / sum(wanted.values()), 3)


def score(asked: tuple[Question, ...], answers: Mapping[str, object]) -> tuple[Mark, ...]:
    """Each question of ``asked`` marked by ``answers`` (question id to raw answer; an
    unanswered question earns 0). A question id not asked, or an answer not of its question's
    kind, raises :class:`AnswerError` before anything is marked."""
    by_id: dict[str, Question] = {question.id: question for question in asked}
    for key in answers:
        if key not in by_id:
            raise AnswerError("no-such-question", str(key)[:40], f"there is no question {str(key)[:40]!r}; "
                              f"the questions are: {', '.join(by_id)}")
    read = {key: read_answer(by_id[key], raw) for key, raw in answers.items()}
    return tuple(Mark(question, read.get(question.id), credit(question, read.get(question.id)))
                 for question in asked)


# -- the counting aid --------------------------------------------------------------------------------

def counting_grid(view: View) -> list[dict[str, Any]]:
    """The counting aid: for each rank (Ace first) and suit, the copies seen leave play
    (``gone``), held in the hand (``hand``) and still out (``out``)."""
    gone = seen_cards(view)
    hand = Counter(card.face for card in view.hand)
    out = out_cards(view)
    return [{"rank": RANK_NAMES[rank],
             "cards": [{"card": str(card), "gone": gone[card], "hand": hand[card], "out": out[card]}
                       for card in (ALL_CARDS[rank * 4 + suit] for suit in range(4))]}
            for rank in reversed(range(13))]


# -- the drill's positions ---------------------------------------------------------------------------

class Moment(StrEnum):
    """When in the round a drill's position is taken."""

    EARLY = "early"
    """The first batch."""
    MIDDLE = "middle"
    """The middle batch."""
    LAST = "last"
    """The last batch (the stock empty)."""


DRILL_LEVEL: Final = "greedy"
"""The bots whose games give the drill its positions (quick, and they capture as people do)."""


def drill_view(rules: Rules, seed: int, moment: Moment, seat: int = 0) -> View:
    """``seat``'s view at one of its turns in the ``moment``'s batch of a single round between
    :data:`DRILL_LEVEL` bots dealt from ``seed`` (the turn drawn from ``seed``, never its first
    of the batch, so that cards have passed)."""
    match = Match(rules, seed=seed)
    bots = [make_agent(DRILL_LEVEL, seed=seed * rules.players + each) for each in range(rules.players)]
    batch = {Moment.EARLY: 1, Moment.MIDDLE: (rules.batches + 1) // 2, Moment.LAST: rules.batches}[moment]
    turns = max(1, rules.batch_size - 1)
    wanted = 1 + random.Random(f"{seed}:{moment}").randrange(turns)  # the seat's turn in the batch, from 0
    seen = 0
    while match.turn is not None and not match.is_round_over():
        view = match.view(match.turn)
        if match.turn == seat and batch_of(view) == batch:
            if seen == wanted or len(view.hand) == 1:
                return view
            seen += 1
        match.play(bots[match.turn].choose(view))
    raise ValueError(f"the round of seed {seed} ended before seat {seat}'s turn in batch {batch}")


__all__ = [
    "QUESTION_IDS", "AnswerError", "Mark", "Moment", "Question", "batch_of", "counting_grid", "credit",
    "drill_view", "jacks_out", "kseri_ranks", "out_cards", "point_cards_out", "point_faces", "questions",
    "rank_out", "read_answer", "score", "seen_cards",
]
