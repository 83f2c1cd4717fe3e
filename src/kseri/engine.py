"""The match and round state machine.

A :class:`Match` deals rounds, takes plays, scores rounds and stops at the target. Its API
follows python-chess: :meth:`Match.legal_plays`, :meth:`Match.play`, :meth:`Match.undo`,
:meth:`Match.copy`, :attr:`Match.turn`. What a seat may know leaves the engine only as a
:class:`View` (:meth:`Match.view`).

>>> from kseri import Match, Rules
>>> match = Match(Rules.preset("greek"), seed=7)
>>> match.turn == (match.dealer + 1) % 2
True
>>> len(match.legal_plays())
6
>>> card = match.legal_plays()[0]
>>> match.play(card)
>>> match.undo() == card
True
>>> while not match.is_round_over():
...     match.play(match.legal_plays()[0])
>>> result = match.round_results[-1]
>>> sum(len(cards) for cards in result.captured) + len(match.centre_left) == 52
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final, NamedTuple

from kseri.cards import ALL_CARDS, CLUBS, JACK, RANK_OF, TWO, Card, CardError
from kseri.rules import CentreDeal, MajorityTie, Rules, TargetRule

_TWO_CLUBS: Final = TWO * 4 + CLUBS


class IllegalPlayError(ValueError):
    """Raised for a play the rules do not allow; the match is left unchanged."""


class Phase(StrEnum):
    """Where a match stands."""

    PLAYING = "playing"
    ROUND_OVER = "round-over"
    MATCH_OVER = "match-over"


@dataclass(frozen=True, slots=True)
class Deal:
    """A round's cards as dealt: everything else in the round follows from the plays.

    ``hands[b][s]`` is what seat ``s`` receives in batch ``b``; ``centre`` runs bottom to top,
    its first ``face_down`` cards face down; ``shown`` is the stock's bottom card shown to
    everyone (Pisti), which the dealer receives last. ``seed`` is the deal seed it was
    shuffled from (``None`` for a deal made by hand); it takes no part in equality.
    """

    dealer: int
    centre: tuple[Card, ...]
    face_down: int
    hands: tuple[tuple[tuple[Card, ...], ...], ...]
    shown: Card | None = None
    seed: str | None = field(default=None, compare=False)

    @classmethod
    def shuffle(cls, rules: Rules, dealer: int, deal_seed: str) -> Deal:
        """Shuffle and deal with the centre procedure of ``rules``, reproducibly from ``deal_seed``."""
        rng = random.Random(deal_seed)
        stock = list(ALL_CARDS[: rules.deck_size])
        rng.shuffle(stock)
        per_batch = rules.batch_size * rules.players
        first, stock = stock[:per_batch], stock[per_batch:]
        size = rules.centre_size
        face_down = 0
        if rules.centre_deal is CentreDeal.REDEAL:
            while RANK_OF[stock[size - 1]] == JACK or (
                size > 1 and RANK_OF[stock[size - 1]] == RANK_OF[stock[size - 2]]
            ):
                rng.shuffle(stock)
            centre, stock = stock[:size], stock[size:]
        else:
            centre, stock = stock[:size], stock[size:]
            if rules.centre_deal is CentreDeal.PISTI:
                face_down = size - 1
                checked = range(size - 1, size)
            else:
                checked = range(size)
            for position in checked:
                while RANK_OF[centre[position]] == JACK:
                    stock.insert(len(stock) // 2, centre[position])
                    centre[position] = stock.pop(0)
        cards = first + stock
        hands = tuple(
            tuple(
                tuple(cards[start + s * rules.batch_size : start + (s + 1) * rules.batch_size])
                for s in _deal_order(dealer, rules.players)
            )
            for start in range(0, len(cards), per_batch)
        )
        # Seats were dealt starting left of the dealer; store the batches by seat number.
        order = _deal_order(dealer, rules.players)
        by_seat = tuple(
            tuple(batch[order.index(seat)] for seat in range(rules.players)) for batch in hands
        )
        shown = cards[-1] if rules.centre_deal is CentreDeal.PISTI else None
        return cls(dealer, tuple(centre), face_down, by_seat, shown, deal_seed)


def _deal_order(dealer: int, players: int) -> list[int]:
    return [(dealer + 1 + i) % players for i in range(players)]


class Mark(NamedTuple):
    """A bonus scored during play: a kseri marker or a house bonus."""

    kind: str
    """``kseri``, ``jack-kseri``, ``double-kseri``, ``jacks-table`` or ``two-clubs-match``."""
    card: Card
    points: int


KSERI_KINDS: Final = frozenset({"kseri", "jack-kseri", "double-kseri"})


class PublicPlay(NamedTuple):
    """A play as everyone saw it."""

    seat: int
    card: Card
    taken: int
    """Cards captured by the play, the played card included (0 when it stayed on the pile)."""
    marks: tuple[Mark, ...]
    """Kseris and bonuses the play scored."""


class ScoreItem(NamedTuple):
    """One line of a round's score breakdown."""

    kind: str
    """``card``, ``majority``, ``last-capture`` or a :class:`Mark` kind."""
    card: Card | None
    points: int


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A round's score, per side, with its itemised breakdown."""

    points: tuple[int, ...]
    kseri: tuple[int, ...]
    """Points from kseris (of every kind) per side."""
    captured: tuple[tuple[Card, ...], ...]
    breakdown: tuple[tuple[ScoreItem, ...], ...]
    last_capturer: int | None
    """The seat that swept the rest of the centre (``None``: nobody captured)."""


@dataclass(frozen=True, slots=True)
class View:
    """What one seat may know: the only game information that leaves the engine."""

    rules: Rules
    seat: int
    phase: Phase
    round_index: int
    dealer: int
    turn: int | None
    """The seat to play, ``None`` when no play is due."""
    hand: tuple[Card, ...]
    centre_top: Card | None
    centre_size: int
    face_down: int
    """Face-down cards still in the centre (Pisti)."""
    centre_dealt: tuple[Card | None, ...]
    """The centre as dealt, bottom to top, ``None`` for face-down cards."""
    face_down_seen: tuple[Card, ...]
    """The face-down centre cards, if this seat captured them."""
    shown: Card | None
    hand_sizes: tuple[int, ...]
    stock_size: int
    captured_sizes: tuple[int, ...]
    marks: tuple[tuple[Mark, ...], ...]
    """Kseri markers and bonuses per side (visible on the capture piles)."""
    plays: tuple[PublicPlay, ...]
    """This round's plays, in order."""
    last_capturer: int | None
    totals: tuple[int, ...]
    target: int
    round_results: tuple[RoundResult, ...]
    winner: int | None
    """The winning side once the match is over."""

    @property
    def side(self) -> int:
        """The side this seat scores for."""
        return self.rules.side_of(self.seat)

    def legal_plays(self) -> tuple[Card, ...]:
        """The cards this seat may play now (its hand on its turn, else none)."""
        return self.hand if self.turn == self.seat else ()


class _Round(NamedTuple):
    deal: Deal
    plays: list[PublicPlay]


_EndOfRound = tuple[list[Card], list[int], int, "int | None", Phase]
_Undo = tuple[int, Card, int, "list[Card] | None", int, int, int, int, bool, "_EndOfRound | None"]


class Match:
    """A match of kseri under some :class:`Rules`, from its first deal to its winner.

    ``seed`` makes everything reproducible: the dealer draw and each round's shuffle. A
    ``deal`` replaces the first round's shuffle (to replay a record).
    """

    __slots__ = (
        "_batch", "_captured", "_centre", "_chain", "_deal", "_double", "_face_down",
        "_face_down_taker", "_hands", "_jack_kseri", "_jacks_bonus", "_jacks_wild",
        "_kseri_value", "_last_capturer", "_last_ok", "_left", "_marks", "_per_batch", "_phase",
        "_plays", "_results", "_rounds", "_side_of", "_sides", "_stack", "_target", "_totals",
        "_turn", "_two_clubs_bonus", "_winner", "rules", "seed",
    )

    rules: Rules
    seed: str
    _sides: int
    _side_of: tuple[int, ...]
    _jacks_wild: bool
    _jack_kseri: int | None
    _kseri_value: int
    _double: int | None
    _last_ok: bool
    _jacks_bonus: int
    _two_clubs_bonus: int
    _per_batch: int
    _deal: Deal
    _turn: int
    _hands: list[list[Card]]
    _centre: list[Card]
    _face_down: int
    _face_down_taker: int
    _batch: int
    _left: int
    _captured: list[list[Card]]
    _marks: list[list[Mark]]
    _last_capturer: int
    _chain: int
    _plays: list[PublicPlay]
    _stack: list[_Undo]
    _totals: list[int]
    _target: int
    _phase: Phase
    _results: list[RoundResult]
    _winner: int | None
    _rounds: list[_Round]

    def __init__(self, rules: Rules | None = None, seed: int | str | None = None,
                 *, deal: Deal | None = None) -> None:
        self.rules = rules = rules if rules is not None else Rules()
        self.seed = str(seed if seed is not None else random.SystemRandom().getrandbits(64))
        self._sides = rules.sides
        self._side_of = tuple(rules.side_of(seat) for seat in range(rules.players))
        self._jacks_wild = rules.jacks_capture_all
        self._jack_kseri = rules.jack_kseri
        self._kseri_value = rules.kseri_value
        self._double = rules.double_kseri
        self._last_ok = rules.kseri_on_last_card
        self._jacks_bonus = rules.jacks_table_bonus
        self._two_clubs_bonus = rules.two_clubs_match_bonus
        self._per_batch = rules.players * rules.batch_size
        self._totals = [0] * self._sides
        self._target = rules.target
        self._results: list[RoundResult] = []
        self._rounds: list[_Round] = []
        self._winner: int | None = None
        if deal is None:
            dealer = random.Random(f"{self.seed}:dealer").randrange(rules.players)
            deal = Deal.shuffle(rules, dealer, self.deal_seed(0))
        self._start(deal)

    # -- reading the state ------------------------------------------------------------

    @property
    def turn(self) -> int | None:
        """The seat to play, or ``None`` when the round or the match is over."""
        return self._turn if self._phase is Phase.PLAYING else None

    @property
    def phase(self) -> Phase:
        """Playing, between rounds, or over."""
        return self._phase

    @property
    def dealer(self) -> int:
        """This round's dealer."""
        return self._deal.dealer

    @property
    def round_index(self) -> int:
        """This round's number, from 0."""
        return len(self._rounds) - 1

    @property
    def totals(self) -> tuple[int, ...]:
        """Match points per side."""
        return tuple(self._totals)

    @property
    def target(self) -> int:
        """The current target (it rises under the Greek escalation)."""
        return self._target

    @property
    def winner(self) -> int | None:
        """The winning side, once the match is over."""
        return self._winner

    @property
    def round_results(self) -> tuple[RoundResult, ...]:
        """The finished rounds' results."""
        return tuple(self._results)

    @property
    def centre_left(self) -> tuple[Card, ...]:
        """Cards in the centre, bottom to top (after a round, those nobody captured)."""
        return tuple(self._centre)

    @property
    def deals(self) -> tuple[Deal, ...]:
        """Every round's deal so far."""
        return tuple(r.deal for r in self._rounds)

    @property
    def plays(self) -> tuple[tuple[PublicPlay, ...], ...]:
        """Every round's plays so far."""
        return tuple(tuple(r.plays) for r in self._rounds)

    def deal_seed(self, round_index: int) -> str:
        """The shuffle seed of a round when none is given."""
        return f"{self.seed}:{round_index}"

    def legal_plays(self) -> list[Card]:
        """The cards the seat to play may play (any card of its hand)."""
        if self._phase is not Phase.PLAYING:
            return []
        return list(self._hands[self._turn])

    def is_round_over(self) -> bool:
        """Whether the current round has been scored."""
        return self._phase is not Phase.PLAYING

    def is_over(self) -> bool:
        """Whether the match has a winner."""
        return self._phase is Phase.MATCH_OVER

    # -- playing ------------------------------------------------------------------------

    def play(self, move: Card | int | str) -> None:
        """Play ``card`` for the seat whose turn it is.

        Raises :class:`IllegalPlayError`, naming the problem, and changes nothing, when the
        card is unknown, not in that hand, or no play is due.
        """
        if self._phase is not Phase.PLAYING:
            over = "match" if self._winner is not None else "round"
            raise IllegalPlayError(f"no play is due: the {over} is over")
        seat = self._turn
        hand = self._hands[seat]
        try:
            position = hand.index(move)  # type: ignore[arg-type]
        except ValueError:
            position = self._find(hand, move)
        card = hand.pop(position)  # from here on the real Card object
        centre = self._centre
        rank = RANK_OF[card]
        marks: tuple[Mark, ...] = ()
        taken = 0
        old_centre = None
        old_face_down = self._face_down
        old_taker = self._face_down_taker
        old_capturer = self._last_capturer
        old_chain = self._chain
        side = self._side_of[seat]
        self._left -= 1
        if centre:
            top_rank = RANK_OF[centre[-1]]
            if rank == top_rank or (rank == JACK and self._jacks_wild):
                marks = self._capture_marks(card, rank, top_rank, centre)
                captured = self._captured[side]
                captured.extend(centre)
                captured.append(card)
                taken = len(centre) + 1
                old_centre = centre
                self._centre = []
                if old_face_down:
                    self._face_down = 0
                    self._face_down_taker = seat
                self._last_capturer = seat
                self._chain = 1 if marks and marks[0].kind in KSERI_KINDS else 0
                if marks:
                    self._marks[side].extend(marks)
            else:
                centre.append(card)
                self._chain = 0
        else:
            centre.append(card)
            self._chain = 2 if old_chain == 1 else 0
        self._plays.append(PublicPlay(seat, card, taken, marks))
        self._turn = (seat + 1) % self.rules.players
        after = None
        dealt = False
        if self._left % self._per_batch == 0:
            if self._left:
                self._deal_batch()
                dealt = True
            else:
                after = self._end_round()
        self._stack.append((seat, card, position, old_centre, old_face_down, old_taker,
                            old_capturer, old_chain, dealt, after))

    def _find(self, hand: list[Card], card: object) -> int:
        """The slow path of :meth:`play`: parse text, match two-deck copies, explain errors."""
        if isinstance(card, str):
            try:
                card = Card(card)
            except CardError as error:
                raise IllegalPlayError(str(error)) from None
        if not isinstance(card, int) or not 0 <= card < len(ALL_CARDS):
            raise IllegalPlayError(f"{card!r} is not a card")
        face = card % 52
        for position, held in enumerate(hand):
            if held % 52 == face:
                return position
        raise IllegalPlayError(
            f"{ALL_CARDS[card]} is not in the hand of seat {self._turn}, whose turn it is"
        )

    def _capture_marks(self, card: Card, rank: int, top_rank: int, centre: list[Card]) -> tuple[Mark, ...]:
        marks = []
        if len(centre) == 1 and rank == top_rank:
            if rank == JACK:
                points, kind = self._jack_kseri, "jack-kseri"
            elif self._chain == 2 and self._double is not None:
                points, kind = self._double, "double-kseri"
            else:
                points, kind = self._kseri_value, "kseri"
            if points is not None and (self._left or self._last_ok):
                marks.append(Mark(kind, card, points))
        if self._jacks_bonus and all(RANK_OF[c] == JACK for c in centre):
            marks.append(Mark("jacks-table", card, self._jacks_bonus))
        if self._two_clubs_bonus and rank == TWO and centre[-1] % 52 == _TWO_CLUBS:
            marks.append(Mark("two-clubs-match", card, self._two_clubs_bonus))
        return tuple(marks)

    def undo(self) -> Card:
        """Take back the last play of the current round and return its card."""
        if not self._stack:
            raise IllegalPlayError("no play to undo in this round")
        (seat, card, position, old_centre, old_face_down, old_taker, old_capturer, old_chain,
         dealt, after) = self._stack.pop()
        if after is not None:
            self._undo_end_round(after)
        if dealt:
            self._batch -= 1
            self._hands = [[] for _ in self._hands]
        play = self._plays.pop()
        side = self._side_of[seat]
        if old_centre is not None:
            del self._captured[side][-play.taken:]
            self._centre = list(old_centre)
            if play.marks:
                del self._marks[side][-len(play.marks):]
        else:
            self._centre.pop()
        self._face_down = old_face_down
        self._face_down_taker = old_taker
        self._last_capturer = old_capturer
        self._chain = old_chain
        self._left += 1
        self._turn = seat
        self._hands[seat].insert(position, card)
        return card

    def next_round(self, deal_seed: str | None = None, *, deal: Deal | None = None) -> None:
        """Deal the next round: from ``deal`` as given, else shuffled from ``deal_seed``
        (default :meth:`deal_seed`). The dealer moves one seat on."""
        if self._phase is not Phase.ROUND_OVER:
            raise IllegalPlayError(
                "the match is over" if self._phase is Phase.MATCH_OVER else "the round is still being played"
            )
        dealer = (self._deal.dealer + 1) % self.rules.players
        if deal is None:
            deal = Deal.shuffle(self.rules, dealer, deal_seed or self.deal_seed(len(self._rounds)))
        elif deal.dealer != dealer:
            raise IllegalPlayError(f"the next dealer is seat {dealer}, not seat {deal.dealer}")
        self._start(deal)

    def copy(self) -> Match:
        """An independent copy (plays and undo history included)."""
        other = Match.__new__(Match)
        for name in ("rules", "seed", "_sides", "_side_of", "_jacks_wild", "_jack_kseri",
                     "_kseri_value", "_double", "_last_ok", "_jacks_bonus", "_two_clubs_bonus",
                     "_deal", "_turn", "_face_down", "_face_down_taker", "_batch", "_left",
                     "_per_batch", "_last_capturer", "_chain", "_target", "_phase", "_winner"):
            setattr(other, name, getattr(self, name))
        other._hands = [list(h) for h in self._hands]
        other._centre = list(self._centre)
        other._captured = [list(c) for c in self._captured]
        other._marks = [list(m) for m in self._marks]
        other._plays = list(self._plays)
        other._stack = list(self._stack)
        other._totals = list(self._totals)
        other._results = list(self._results)
        other._rounds = [*self._rounds[:-1], _Round(self._deal, other._plays)]
        return other

    # -- what a seat may know -----------------------------------------------------------------

    def view(self, seat: int) -> View:
        """Exactly what ``seat`` may know now."""
        if not 0 <= seat < self.rules.players:
            raise ValueError(f"seat must be 0 to {self.rules.players - 1}, not {seat}")
        deal = self._deal
        centre_dealt = tuple(None if i < deal.face_down else c for i, c in enumerate(deal.centre))
        seen = deal.centre[: deal.face_down] if self._face_down_taker == seat else ()
        return View(
            rules=self.rules,
            seat=seat,
            phase=self._phase,
            round_index=self.round_index,
            dealer=deal.dealer,
            turn=self.turn,
            hand=tuple(self._hands[seat]),
            centre_top=self._centre[-1] if self._centre else None,
            centre_size=len(self._centre),
            face_down=self._face_down,
            centre_dealt=centre_dealt,
            face_down_seen=seen,
            shown=deal.shown,
            hand_sizes=tuple(len(h) for h in self._hands),
            stock_size=self.stock_size,
            captured_sizes=tuple(len(c) for c in self._captured),
            marks=tuple(tuple(m) for m in self._marks),
            plays=tuple(self._plays),
            last_capturer=None if self._last_capturer < 0 else self._last_capturer,
            totals=tuple(self._totals),
            target=self._target,
            round_results=tuple(self._results),
            winner=self._winner,
        )

    @property
    def stock_size(self) -> int:
        """Cards not yet dealt."""
        return (len(self._deal.hands) - self._batch) * self._per_batch

    # -- the round's life ---------------------------------------------------------------------

    def _start(self, deal: Deal) -> None:
        rules = self.rules
        if len(deal.hands) != rules.batches or any(len(b) != rules.players for b in deal.hands):
            raise IllegalPlayError("the deal does not fit these rules' players and batches")
        self._deal = deal
        self._centre = list(deal.centre)
        self._face_down = deal.face_down
        self._face_down_taker = -1
        self._batch = 0
        self._hands = [[] for _ in range(rules.players)]
        self._deal_batch()
        self._left = rules.deck_size - rules.centre_size
        self._captured = [[] for _ in range(self._sides)]
        self._marks = [[] for _ in range(self._sides)]
        self._last_capturer = -1
        self._chain = 0
        self._plays = []
        self._stack = []
        self._turn = (deal.dealer + 1) % rules.players
        self._phase = Phase.PLAYING
        self._rounds.append(_Round(deal, self._plays))

    def _deal_batch(self) -> None:
        self._hands = [list(h) for h in self._deal.hands[self._batch]]
        self._batch += 1

    def _end_round(self) -> _EndOfRound:
        """Sweep, score and settle the match; return what undo needs."""
        old_centre = self._centre
        swept_to = self._last_capturer
        if swept_to >= 0:
            self._captured[self._side_of[swept_to]].extend(old_centre)
            self._centre = []
        result = self._score()
        saved: _EndOfRound = (old_centre, list(self._totals), self._target, self._winner, self._phase)
        self._results.append(result)
        for side, points in enumerate(result.points):
            self._totals[side] += points
        self._settle()
        return saved

    def _undo_end_round(self, saved: _EndOfRound) -> None:
        old_centre, totals, target, winner, _ = saved
        if self._last_capturer >= 0 and old_centre:
            del self._captured[self._side_of[self._last_capturer]][-len(old_centre):]
        self._centre = list(old_centre)
        self._results.pop()
        self._totals = list(totals)
        self._target = target
        self._winner = winner
        self._phase = Phase.PLAYING

    def _score(self) -> RoundResult:
        rules = self.rules
        table = rules.points_table
        breakdown: list[list[ScoreItem]] = []
        for side in range(self._sides):
            items = [ScoreItem("card", c, table[c]) for c in sorted(self._captured[side]) if table[c]]
            items.extend(ScoreItem(m.kind, m.card, m.points) for m in self._marks[side])
            breakdown.append(items)
        counts = [len(c) for c in self._captured]
        most = max(counts)
        leaders = [side for side, count in enumerate(counts) if count == most]
        tie_rewarded = rules.majority_tie is MajorityTie.EVERY_TIED_SIDE
        if rules.majority_bonus and most and (len(leaders) == 1 or tie_rewarded):
            for side in leaders:
                breakdown[side].append(ScoreItem("majority", None, rules.majority_bonus))
        if rules.last_capture_bonus and self._last_capturer >= 0:
            breakdown[self._side_of[self._last_capturer]].append(
                ScoreItem("last-capture", None, rules.last_capture_bonus)
            )
        return RoundResult(
            points=tuple(sum(item.points for item in items) for items in breakdown),
            kseri=tuple(sum(m.points for m in marks if m.kind in KSERI_KINDS) for marks in self._marks),
            captured=tuple(tuple(c) for c in self._captured),
            breakdown=tuple(tuple(items) for items in breakdown),
            last_capturer=None if self._last_capturer < 0 else self._last_capturer,
        )

    def _settle(self) -> None:
        """Decide the match after a round, by the target rule."""
        rules = self.rules
        totals = self._totals
        reached = [side for side, total in enumerate(totals) if total >= self._target]
        if rules.target_rule is TargetRule.ESCALATE:
            while len(reached) > 1:
                self._target += rules.escalation
                reached = [side for side in reached if totals[side] >= self._target]
            winner = reached[0] if reached else None
        else:
            best = max((totals[side] for side in reached), default=None)
            leaders = [side for side in reached if totals[side] == best]
            winner = leaders[0] if len(leaders) == 1 else None
        self._winner = winner
        self._phase = Phase.MATCH_OVER if winner is not None else Phase.ROUND_OVER

    def __repr__(self) -> str:
        return (f"<Match rules={self.rules.name!r} seed={self.seed!r} round={self.round_index} "
                f"phase={self._phase.value} totals={self._totals}>")


def random_round(match: Match, rng: random.Random) -> None:
    """Play the current round to its end with uniformly random plays (for tests and benchmarks)."""
    while match.turn is not None:
        match.play(rng.choice(match.legal_plays()))


__all__ = [
    "Deal", "IllegalPlayError", "Mark", "Match", "Phase", "PublicPlay", "RoundResult",
    "ScoreItem", "View", "random_round",
]
