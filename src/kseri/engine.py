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

Rounds are dealt by :meth:`Deal.shuffle` (``kseri.deal``: SHA-512 shuffles that anyone can check
from their seed in any language; re-exported here); the rules and every decision are documented
in ``docs/rules.md``.
"""

from __future__ import annotations

import operator
import secrets
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from kseri.cards import ALL_CARDS, CARDS_PER_DECK, CLUBS, JACK, RANK_OF, TWO, Card, CardError
from kseri.deal import Deal, IllegalPlayError, must_relay_centre, shuffled, uniform_below
from kseri.rules import MajorityTie, Rules, match_winner

if TYPE_CHECKING:
    import random
    from collections.abc import Sequence

_TWO_CLUBS: Final = TWO * 4 + CLUBS


class Phase(StrEnum):
    """Where a match stands."""

    PLAYING = "playing"
    ROUND_OVER = "round-over"
    MATCH_OVER = "match-over"


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


@dataclass(frozen=True, slots=True, kw_only=True)
class PublicView:
    """What every seat sees alike: the part of a view that is nobody's secret (the base of
    :class:`View` and :class:`SpectatorView`, which stay distinct types so that no bot can be
    handed a spectator's view)."""

    rules: Rules
    phase: Phase
    round_index: int
    dealer: int
    turn: int | None
    """The seat to play, ``None`` when no play is due."""
    centre_top: Card | None
    centre_size: int
    face_down: int
    """Face-down cards still in the centre (Pisti)."""
    centre_dealt: tuple[Card | None, ...]
    """The centre as dealt, bottom to top, ``None`` for face-down cards."""
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


@dataclass(frozen=True, slots=True, kw_only=True)
class View(PublicView):
    """What one seat may know: the only game information that leaves the engine."""

    seat: int
    hand: tuple[Card, ...]
    face_down_seen: tuple[Card, ...]
    """The face-down centre cards, if this seat captured them."""

    @property
    def side(self) -> int:
        """The side this seat scores for."""
        return self.rules.side_of(self.seat)

    def legal_plays(self) -> tuple[Card, ...]:
        """The cards this seat may play now (its hand on its turn, else none)."""
        return self.hand if self.turn == self.seat else ()


@dataclass(frozen=True, slots=True, kw_only=True)
class SpectatorView(PublicView):
    """What a spectator may know: a :class:`View` of nobody's seat, with no hand and no
    face-down card (the engine, not its callers, decides what is public)."""

    seat: None = None
    """A spectator has no seat."""
    hand: tuple[()] = ()
    face_down_seen: tuple[()] = ()

    @property
    def side(self) -> None:
        """A spectator scores for no side."""
        return None

    def legal_plays(self) -> tuple[()]:
        """A spectator plays nothing."""
        return ()


class _Config:
    """What a match needs from its rules, worked out once per :class:`Rules` object."""

    __slots__ = (
        "batches", "card_items", "double_kseri", "every_tied_side", "jack_kseri", "jacks_table_bonus",
        "kseri_on_last_card", "kseri_value", "last_capture_item", "majority_item", "marks_always",
        "next_seat", "no_captures", "no_kseri", "per_batch", "players", "point_cards", "points",
        "quiet_plays", "side_of", "sides", "takes", "total_plays", "two_clubs_match_bonus",
    )

    def __init__(self, rules: Rules) -> None:
        self.players = rules.players
        self.sides = rules.sides
        self.side_of = tuple(rules.side_of(seat) for seat in range(rules.players))
        self.batches = rules.batches
        self.per_batch = rules.players * rules.batch_size
        self.total_plays = self.batches * self.per_batch
        self.next_seat = (*range(1, rules.players), 0)
        """The seat after each seat."""
        self.quiet_plays = tuple(
            tuple(PublicPlay(seat, card, 0, ()) for card in ALL_CARDS) for seat in range(rules.players)
        )
        """Per seat and card, the play of that card onto the centre without a capture (shared)."""
        keys = [(RANK_OF[card], rules.jacks_capture_all and RANK_OF[card] == JACK) for card in ALL_CARDS]
        rows = {
            (rank, wild): tuple(wild or RANK_OF[top] == rank for top in ALL_CARDS) for rank, wild in set(keys)
        }
        self.takes = tuple(map(rows.__getitem__, keys))
        """Per card number, per top card number: whether the card captures a pile with that top."""
        self.kseri_value = rules.kseri_value
        self.jack_kseri = rules.jack_kseri
        self.double_kseri = rules.double_kseri
        self.kseri_on_last_card = rules.kseri_on_last_card
        self.jacks_table_bonus = rules.jacks_table_bonus
        self.two_clubs_match_bonus = rules.two_clubs_match_bonus
        self.marks_always = bool(rules.jacks_table_bonus or rules.two_clubs_match_bonus)
        """Whether a capture of more than one card may score a mark."""
        self.points = list(rules.points_table)
        """Points per card number (a list: its ``__getitem__`` is the quickest to map)."""
        self.point_cards = frozenset(card for card in ALL_CARDS[: rules.deck_size] if self.points[card])
        """The cards that score points."""
        bonus = rules.majority_bonus
        self.majority_item = ScoreItem("majority", None, bonus) if bonus else None
        self.every_tied_side = rules.majority_tie is MajorityTie.EVERY_TIED_SIDE
        """How much the target rises when several sides reach it (0: the higher total wins)."""
        self.last_capture_item = (
            ScoreItem("last-capture", None, rules.last_capture_bonus) if rules.last_capture_bonus else None
        )
        self.no_kseri = (0,) * self.sides
        self.no_captures = ((),) * self.sides
        self.card_items = [
            ScoreItem("card", card, points) for card, points in zip(ALL_CARDS, self.points, strict=False)
        ]


_CONFIGS: dict[Rules, _Config] = {}


def _config(rules: Rules) -> _Config:
    """The :class:`_Config` of ``rules``, cached by value: the matches of equal rules share one
    (a server's tables each read their rules apart; a config per table would keep a few hundred
    objects more per table alive, each walked by every full pass of the cycle collector)."""
    config = _CONFIGS.get(rules)
    if config is None:
        if len(_CONFIGS) >= 64:
            _CONFIGS.clear()
        config = _CONFIGS[rules] = _Config(rules)
    return config


_DEFAULT_RULES: Final = Rules()
_new_play = tuple.__new__
"""Builds a :class:`PublicPlay` without the extra call of its generated ``__new__``."""
_PLAYING: Final = Phase.PLAYING
_ROUND_OVER: Final = Phase.ROUND_OVER
_MATCH_OVER: Final = Phase.MATCH_OVER


def _score_item(mark: Mark) -> ScoreItem:
    """The score line of a mark (the two share their fields)."""
    return _new_play(ScoreItem, mark)


class Match:
    """A match of kseri under some :class:`Rules`, from its first deal to its winner.

    ``seed`` makes everything reproducible: the dealer draw and each round's shuffle. A
    ``deal`` replaces the first round's shuffle (to replay a record); it must fit the rules
    (:meth:`Deal.check`).
    """

    __slots__ = (
        "_batch", "_captured", "_capturers", "_centre", "_cfg", "_deal", "_dealer", "_deals",
        "_first_capturer", "_hands", "_last_capturer", "_marks", "_past_plays", "_phase", "_plays",
        "_positions", "_resigned", "_results", "_swept", "_target", "_target_before", "_totals", "_turn",
        "_winner", "rules", "seed",
    )

    rules: Rules
    seed: str
    _cfg: _Config
    _deal: Deal
    _dealer: int
    _turn: int | None
    """The seat to play; ``None`` once the round is over."""
    _phase: Phase
    _hands: list[list[Card]]
    _centre: list[Card]
    _batch: int
    """Batches dealt so far this round."""
    _captured: list[list[Card]]
    """Per side, in the order taken: each capture's pile bottom to top, then the card played."""
    _marks: list[tuple[Mark, ...]]
    _last_capturer: int
    _first_capturer: int
    """The seat that made the round's first capture (it took any face-down cards); -1: none."""
    _capturers: list[int]
    """Undo stack: the last capturer before each capture of the round."""
    _positions: list[int]
    """Undo stack: where in the hand each play's card was."""
    _plays: list[PublicPlay]
    _swept: tuple[Card, ...]
    """The centre swept to the last capturer when the round ended."""
    _target_before: int
    """The target before the round ended (for undo)."""
    _totals: tuple[int, ...]
    _target: int
    _winner: int | None
    _resigned: int | None
    """The seat whose player resigned the match (``None``: nobody)."""
    _results: tuple[RoundResult, ...]
    _deals: tuple[Deal, ...]
    _past_plays: tuple[tuple[PublicPlay, ...], ...]

    def __init__(self, rules: Rules | None = None, seed: int | str | None = None,
                 *, deal: Deal | None = None) -> None:
        self.rules = rules = rules if rules is not None else _DEFAULT_RULES
        self.seed = str(seed) if seed is not None else str(secrets.randbits(64))
        cfg = self._cfg = _config(rules)
        self._totals = (0,) * cfg.sides
        self._target = rules.target
        self._results = ()
        self._winner = None
        self._resigned = None
        self._deals = ()
        self._past_plays = ()
        if deal is None:
            dealer = uniform_below(f"{self.seed}:dealer", 0, cfg.players)[0]
            deal = Deal.shuffle(rules, dealer, self.deal_seed(0))
        else:
            deal.check(rules)
        self._start(deal)

    # -- reading the state ------------------------------------------------------------

    @property
    def turn(self) -> int | None:
        """The seat to play, or ``None`` when the round or the match is over."""
        return self._turn

    @property
    def phase(self) -> Phase:
        """Playing, between rounds, or over."""
        return self._phase

    @property
    def dealer(self) -> int:
        """This round's dealer."""
        return self._dealer

    @property
    def round_index(self) -> int:
        """This round's number, from 0."""
        return len(self._deals) - 1

    @property
    def totals(self) -> tuple[int, ...]:
        """Match points per side."""
        return self._totals

    @property
    def target(self) -> int:
        """The current target (it rises under the Greek escalation)."""
        return self._target

    @property
    def winner(self) -> int | None:
        """The winning side, once the match is over."""
        return self._winner

    @property
    def resigned(self) -> int | None:
        """The seat whose player resigned, ending the match (``None``: nobody did)."""
        return self._resigned

    def resign(self, seat: int) -> None:
        """End the match at once because ``seat``'s player resigns (in a round or between
        rounds; the round in play stays unscored). The winner is the other side, or with more
        than two sides the leader among the others (on a tie, the lowest-numbered side)."""
        cfg = self._cfg
        if not 0 <= seat < cfg.players:
            raise ValueError(f"seat must be 0 to {cfg.players - 1}, not {seat}")
        if self._phase is _MATCH_OVER:
            raise IllegalPlayError("the match is over: nobody can resign")
        mine = cfg.side_of[seat]
        others = [side for side in range(cfg.sides) if side != mine]
        best = max(self._totals[side] for side in others)
        self._winner = next(side for side in others if self._totals[side] == best)
        self._resigned = seat
        self._turn = None
        self._phase = _MATCH_OVER

    @property
    def round_results(self) -> tuple[RoundResult, ...]:
        """The finished rounds' results."""
        return self._results

    @property
    def centre_left(self) -> tuple[Card, ...]:
        """Cards in the centre, bottom to top (after a round, those nobody captured)."""
        return tuple(self._centre)

    @property
    def deals(self) -> tuple[Deal, ...]:
        """Every round's deal so far."""
        return self._deals

    @property
    def plays(self) -> tuple[tuple[PublicPlay, ...], ...]:
        """Every round's plays so far."""
        return (*self._past_plays, tuple(self._plays))

    @property
    def stock_size(self) -> int:
        """Cards not yet dealt."""
        return (self._cfg.batches - self._batch) * self._cfg.per_batch

    def deal_seed(self, round_index: int) -> str:
        """The shuffle seed of a round when none is given."""
        return f"{self.seed}:{round_index}"

    def legal_plays(self) -> list[Card]:
        """The cards the seat to play may play (any card of its hand)."""
        turn = self._turn
        return [] if turn is None else self._hands[turn][:]

    def is_round_over(self) -> bool:
        """Whether the current round has been scored."""
        return self._turn is None

    def is_over(self) -> bool:
        """Whether the match has a winner."""
        return self._phase is Phase.MATCH_OVER

    # -- playing ------------------------------------------------------------------------

    def play(self, move: Card | int | str, *, seat: int | None = None) -> None:
        """Play ``move`` (a card, its number or its name) for the seat whose turn it is.

        ``seat``, when given, must be that seat. Raises :class:`IllegalPlayError`, naming the
        problem, and changes nothing, when no play is due, it is another seat's turn, or the
        card is unknown or not in the hand.
        """
        turn = self._turn
        if turn is not None and seat is None and move.__class__ is Card:
            hand = self._hands[turn]
            try:
                position = hand.index(move)
            except ValueError:
                turn, position = self._locate(move, seat)
        else:
            turn, position = self._locate(move, seat)
            hand = self._hands[turn]
        card = hand.pop(position)
        centre = self._centre
        cfg = self._cfg
        if centre and cfg.takes[card][centre[-1]]:
            taken = len(centre) + 1
            marks = self._marks_of(card, centre) if taken == 2 or cfg.marks_always else ()
            side = cfg.side_of[turn]
            captured = self._captured[side]
            captured += centre
            captured.append(card)
            self._centre = []
            self._capturers.append(self._last_capturer)
            if self._last_capturer < 0:
                self._first_capturer = turn
            self._last_capturer = turn
            if marks:
                self._marks[side] += marks
            self._plays.append(_new_play(PublicPlay, (turn, card, taken, marks)))
        else:
            centre.append(card)
            self._plays.append(cfg.quiet_plays[turn][card])
        self._positions.append(position)
        if hand or turn != self._dealer:
            self._turn = cfg.next_seat[turn]
        elif self._batch < cfg.batches:
            self._hands = list(map(list, self._deal.hands[self._batch]))
            self._batch += 1
            self._turn = cfg.next_seat[turn]
        else:
            self._end_round()

    def _locate(self, move: object, seat: int | None) -> tuple[int, int]:
        """The slow path of :meth:`play`: check the turn, parse text, match two-deck copies,
        explain errors. Returns the seat to play and the card's position in its hand."""
        turn = self._turn
        if turn is None:
            over = "match" if self._phase is Phase.MATCH_OVER else "round"
            raise IllegalPlayError(f"no play is due: the {over} is over")
        if seat is not None and seat != turn:
            raise IllegalPlayError(f"it is seat {turn}'s turn, not seat {seat}'s")
        if isinstance(move, str):
            try:
                move = Card(move)
            except CardError as error:
                raise IllegalPlayError(str(error)) from None
        if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move < len(ALL_CARDS):
            raise IllegalPlayError(f"{move!r} is not a card")
        hand = self._hands[turn]
        if move in hand:
            return turn, hand.index(ALL_CARDS[move])
        face = move % CARDS_PER_DECK
        for position, held in enumerate(hand):
            if held % CARDS_PER_DECK == face:
                return turn, position
        raise IllegalPlayError(f"{ALL_CARDS[move]} is not in the hand of seat {turn}, whose turn it is")

    def _marks_of(self, card: Card, centre: list[Card]) -> tuple[Mark, ...]:
        """The kseri and bonus marks of ``card`` capturing ``centre``."""
        cfg = self._cfg
        rank = RANK_OF[card]
        marks = []
        if len(centre) == 1 and rank == RANK_OF[centre[0]]:
            points: int | None
            if rank == JACK:
                points, kind = cfg.jack_kseri, "jack-kseri"
            elif cfg.double_kseri is not None and self._follows_kseri():
                points, kind = cfg.double_kseri, "double-kseri"
            else:
                points, kind = cfg.kseri_value, "kseri"
            if points is not None and (cfg.kseri_on_last_card or len(self._plays) + 1 < cfg.total_plays):
                marks.append(Mark(kind, card, points))
        if cfg.jacks_table_bonus and all(RANK_OF[c] == JACK for c in centre):
            marks.append(Mark("jacks-table", card, cfg.jacks_table_bonus))
        if cfg.two_clubs_match_bonus and rank == TWO and centre[-1] % CARDS_PER_DECK == _TWO_CLUBS:
            marks.append(Mark("two-clubs-match", card, cfg.two_clubs_match_bonus))
        return tuple(marks)

    def _follows_kseri(self) -> bool:
        """Whether the lone card in the centre was led right after a kseri (double kseri).

        A lone card in the centre was laid by the last play on an empty table, which the play
        before emptied by capturing."""
        plays = self._plays
        return len(plays) >= 2 and any(mark.kind in KSERI_KINDS for mark in plays[-2].marks)

    def undo(self) -> Card:
        """Take back the last play of the current round and return its card."""
        plays = self._plays
        if self._resigned is not None:
            raise IllegalPlayError("the match was resigned: nothing can be undone")
        if not plays:
            raise IllegalPlayError("no play to undo in this round")
        cfg = self._cfg
        count = len(plays)
        if count == cfg.total_plays:
            self._undo_end_round()
        elif count % cfg.per_batch == 0:
            self._batch -= 1
            self._hands = [[] for _ in range(cfg.players)]
        seat, card, taken, marks = plays.pop()
        if taken:
            side = cfg.side_of[seat]
            captured = self._captured[side]
            self._centre = captured[-taken:-1]
            del captured[-taken:]
            self._last_capturer = self._capturers.pop()
            if self._last_capturer < 0:
                self._first_capturer = -1
            if marks:
                self._marks[side] = self._marks[side][: -len(marks)]
        else:
            self._centre.pop()
        self._hands[seat].insert(self._positions.pop(), card)
        self._turn = seat
        return card

    def next_round(self, deal_seed: str | None = None, *, deal: Deal | None = None) -> None:
        """Deal the next round: from ``deal`` as given, else shuffled from ``deal_seed``
        (default :meth:`deal_seed`). The dealer moves one seat on."""
        if self._phase is not Phase.ROUND_OVER:
            raise IllegalPlayError(
                "the match is over" if self._phase is Phase.MATCH_OVER else "the round is still being played"
            )
        dealer = (self._dealer + 1) % self._cfg.players
        if deal is None:
            deal = Deal.shuffle(self.rules, dealer, deal_seed or self.deal_seed(len(self._deals)))
        elif deal.dealer != dealer:
            raise IllegalPlayError(f"the next dealer is seat {dealer}, not seat {deal.dealer}")
        else:
            deal.check(self.rules)
        self._past_plays = (*self._past_plays, tuple(self._plays))
        self._start(deal)

    def copy(self) -> Match:
        """An independent copy (plays and undo history included)."""
        other = _new_match(Match)
        other.rules = self.rules
        other.seed = self.seed
        other._cfg = self._cfg
        other._deal = self._deal
        other._dealer = self._dealer
        other._turn = self._turn
        other._phase = self._phase
        other._hands = [hand[:] for hand in self._hands]
        other._centre = self._centre[:]
        other._batch = self._batch
        other._captured = [cards[:] for cards in self._captured]
        other._marks = self._marks[:]
        other._last_capturer = self._last_capturer
        other._first_capturer = self._first_capturer
        other._capturers = self._capturers[:]
        other._positions = self._positions[:]
        other._plays = self._plays[:]
        other._swept = self._swept
        other._target_before = self._target_before
        other._totals = self._totals
        other._target = self._target
        other._winner = self._winner
        other._resigned = self._resigned
        other._results = self._results
        other._deals = self._deals
        other._past_plays = self._past_plays
        return other

    # -- what a seat may know -----------------------------------------------------------------

    def view(self, seat: int) -> View:
        """Exactly what ``seat`` may know now."""
        if not 0 <= seat < self._cfg.players:
            raise ValueError(f"seat must be 0 to {self._cfg.players - 1}, not {seat}")
        deal = self._deal
        return View(
            seat=seat,
            hand=tuple(self._hands[seat]),
            face_down_seen=deal.centre[: deal.face_down] if self._first_capturer == seat else (),
            **self._public(),
        )

    def spectator_view(self) -> SpectatorView:
        """Exactly what a spectator may know now: what every seat sees alike (no hand, and
        no face-down centre card, even once captured)."""
        return SpectatorView(**self._public())

    def _public(self) -> dict[str, Any]:
        """The fields of :class:`PublicView` now, for a seat's or a spectator's view."""
        deal = self._deal
        hidden = deal.face_down
        return dict(
            rules=self.rules,
            phase=self._phase,
            round_index=self.round_index,
            dealer=deal.dealer,
            turn=self._turn,
            centre_top=self._centre[-1] if self._centre else None,
            centre_size=len(self._centre),
            face_down=hidden if self._first_capturer < 0 else 0,
            centre_dealt=(None,) * hidden + deal.centre[hidden:],
            shown=deal.shown,
            hand_sizes=tuple(map(len, self._hands)),
            stock_size=self.stock_size,
            captured_sizes=tuple(map(len, self._captured)),
            marks=tuple(self._marks),
            plays=tuple(self._plays),
            last_capturer=None if self._last_capturer < 0 else self._last_capturer,
            totals=self._totals,
            target=self._target,
            round_results=self._results,
            winner=self._winner,
        )

    # -- the round's life ---------------------------------------------------------------------

    def _start(self, deal: Deal) -> None:
        cfg = self._cfg
        self._deal = deal
        self._deals += (deal,)
        self._dealer = deal.dealer
        self._centre = list(deal.centre)
        self._hands = list(map(list, deal.hands[0]))
        self._batch = 1
        self._captured = list(map(list, cfg.no_captures))
        self._marks = [()] * cfg.sides
        self._last_capturer = -1
        self._first_capturer = -1
        self._capturers = []
        self._positions = []
        self._plays = []
        self._swept = ()
        self._target_before = self._target
        self._turn = cfg.next_seat[deal.dealer]
        self._phase = _PLAYING

    def _end_round(self) -> None:
        """Sweep the centre to the last capturer, score, and settle the match."""
        self._turn = None
        capturer = self._last_capturer
        if capturer >= 0 and self._centre:
            self._swept = tuple(self._centre)
            self._captured[self._cfg.side_of[capturer]] += self._centre
            self._centre = []
        result = self._score()
        self._results = (*self._results, result)
        self._totals = tuple(map(operator.add, self._totals, result.points))
        self._target_before = self._target
        self._settle()

    def _undo_end_round(self) -> None:
        swept = self._swept
        if swept:
            del self._captured[self._cfg.side_of[self._last_capturer]][-len(swept):]
            self._centre = list(swept)
            self._swept = ()
        result = self._results[-1]
        self._results = self._results[:-1]
        self._totals = tuple(map(operator.sub, self._totals, result.points))
        self._target = self._target_before
        self._winner = None
        self._phase = Phase.PLAYING

    def _score(self) -> RoundResult:
        """The round's result from the captures and marks (the centre already swept)."""
        cfg = self._cfg
        table = cfg.points
        point_cards = cfg.point_cards
        card_items = cfg.card_items
        captured = self._captured
        breakdown: list[list[ScoreItem]] = []
        points: list[int] = []
        kseri: Sequence[int] = cfg.no_kseri
        for side, (cards, marks) in enumerate(zip(captured, self._marks, strict=True)):
            scoring = sorted(point_cards.intersection(cards))
            items = list(map(card_items.__getitem__, scoring))
            total = sum(map(table.__getitem__, scoring))
            if marks:
                items += map(_score_item, marks)
                total += sum([mark.points for mark in marks])
                if not isinstance(kseri, list):
                    kseri = list(kseri)
                kseri[side] = sum([mark.points for mark in marks if mark.kind in KSERI_KINDS])
            breakdown.append(items)
            points.append(total)
        counts = list(map(len, captured))
        most = max(counts)
        item = cfg.majority_item
        if item is not None and most:
            if counts.count(most) == 1:
                side = counts.index(most)
                breakdown[side].append(item)
                points[side] += item.points
            elif cfg.every_tied_side:
                for side, count in enumerate(counts):
                    if count == most:
                        breakdown[side].append(item)
                        points[side] += item.points
        last = self._last_capturer
        item = cfg.last_capture_item
        if item is not None and last >= 0:
            side = cfg.side_of[last]
            breakdown[side].append(item)
            points[side] += item.points
        return RoundResult(
            tuple(points), tuple(kseri), tuple(map(tuple, captured)), tuple(map(tuple, breakdown)),
            None if last < 0 else last,
        )

    def _settle(self) -> None:
        """Decide the match after a round, by the target rule."""
        self._winner, self._target = match_winner(self.rules, self._totals, self._target)
        self._phase = _ROUND_OVER if self._winner is None else _MATCH_OVER

    def __repr__(self) -> str:
        return (f"<Match rules={self.rules.name!r} seed={self.seed!r} round={self.round_index} "
                f"phase={self._phase.value} totals={list(self._totals)}>")


_new_match = object.__new__


def random_round(match: Match, rng: random.Random) -> None:
    """Play the current round to its end with uniformly random plays (for tests and benchmarks)."""
    while match.turn is not None:
        match.play(rng.choice(match.legal_plays()))


__all__ = [
    "Deal", "IllegalPlayError", "Mark", "Match", "Phase", "PublicPlay", "PublicView", "RoundResult",
    "ScoreItem", "SpectatorView", "View", "must_relay_centre", "random_round", "shuffled", "uniform_below",
]
