"""A plain reference implementation of the rules, written for clarity, never for speed.

It follows ``docs/rules.md`` step by step with no cached tables, no undo stacks and no
shortcuts: ``undo`` replays the round from its deal, ``copy`` is a deep copy. The differential
test plays random matches through it and through :class:`kseri.Match` and compares every view,
every round result and every total; the benchmark uses it as the baseline.

It returns the engine's own data types (:class:`~kseri.engine.View`, ``RoundResult``, ...)
so that the two can be compared with ``==``.
"""

from __future__ import annotations

import copy
import hashlib
import math

from kseri.cards import ALL_CARDS, CARDS_PER_DECK, JACK, RANK_NAMES, TWO, Card
from kseri.engine import Deal, IllegalPlayError, Mark, Phase, PublicPlay, RoundResult, ScoreItem, View
from kseri.rules import CentreDeal, MajorityTie, Rules, TargetRule

KSERI_KINDS = ("kseri", "jack-kseri", "double-kseri")


# -- the shuffle, as docs/rules.md specifies it ---------------------------------------------


def uniform_number(seed: str, draw: int, bound: int) -> tuple[int, int]:
    """A uniform number below ``bound`` from SHA-512 blocks, by rejection; and the next draw."""
    bits = (bound - 1).bit_length()
    blocks = max(1, math.ceil(bits / 512))
    while True:
        data = b""
        for block in range(blocks):
            data += hashlib.sha512(f"{seed}/{draw}/{block}".encode()).digest()
        draw += 1
        number = int.from_bytes(data, "big") >> (512 * blocks - bits)
        if number < bound:
            return number, draw


def shuffle_cards(cards: list[Card], seed: str, draw: int) -> tuple[list[Card], int]:
    """Fisher-Yates driven by one uniform number below ``n!``."""
    cards = list(cards)
    number, draw = uniform_number(seed, draw, math.factorial(len(cards)))
    for i in range(len(cards) - 1, 0, -1):
        number, j = divmod(number, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards, draw


def rank(card: Card) -> int:
    return (card % CARDS_PER_DECK) // 4


def deal_order(dealer: int, players: int) -> list[int]:
    """Seats in the order they receive cards: the one after the dealer first, the dealer last."""
    return [(dealer + step) % players for step in range(1, players + 1)]


def shuffle_deal(rules: Rules, dealer: int, seed: str) -> Deal:
    """Shuffle, then deal card by card from the top of the deck as a dealer would."""
    stock, draw = shuffle_cards(list(ALL_CARDS[: rules.deck_size]), seed, 0)
    batches: list[dict[int, list[Card]]] = []

    def deal_batch() -> None:
        batch = {}
        for seat in deal_order(dealer, rules.players):
            batch[seat] = [stock.pop(0) for _ in range(rules.batch_size)]
        batches.append(batch)

    deal_batch()
    face_down = 0
    if rules.centre_deal == CentreDeal.REDEAL:
        while True:
            pile = stock[: rules.centre_size]
            top_is_jack = rank(pile[-1]) == JACK
            top_two_pair = len(pile) > 1 and rank(pile[-1]) == rank(pile[-2])
            if not top_is_jack and not top_two_pair:
                break
            stock, draw = shuffle_cards(stock, seed, draw)
        del stock[: rules.centre_size]
    else:
        pile = [stock.pop(0) for _ in range(rules.centre_size)]
        checked = range(rules.centre_size)
        if rules.centre_deal == CentreDeal.PISTI:
            face_down = rules.centre_size - 1
            checked = range(face_down, rules.centre_size)
        for position in checked:
            while rank(pile[position]) == JACK:
                stock.insert(len(stock) // 2, pile[position])
                pile[position] = stock.pop(0)
    while stock:
        deal_batch()
    hands = tuple(tuple(tuple(batch[seat]) for seat in range(rules.players)) for batch in batches)
    shown = hands[-1][dealer][-1] if rules.centre_deal == CentreDeal.PISTI else None
    return Deal(dealer, tuple(pile), face_down, hands, shown)


def card_points(rules: Rules, card: Card) -> int:
    """Points of a captured card: every ``card_points`` entry naming its rank or the card."""
    total = 0
    face = ALL_CARDS[card % CARDS_PER_DECK]
    for key, points in rules.card_points:
        key = key.upper()
        names_rank = key in RANK_NAMES or key == "10"
        rank_name = "T" if key == "10" else key
        if (names_rank and RANK_NAMES[rank(card)] == rank_name) or (not names_rank and Card(key) == face):
            total += points
    return total


class Match:
    """The reference match: the same public surface as :class:`kseri.Match`, plainly written."""

    def __init__(self, rules: Rules, seed: int | str = 0, *, deal: Deal | None = None) -> None:
        self.rules = rules
        self.seed = str(seed)
        self.totals = [0] * rules.sides
        self.target = rules.target
        self.results: list[RoundResult] = []
        self.winner: int | None = None
        self.round_index = -1
        if deal is None:
            dealer, _ = uniform_number(f"{self.seed}:dealer", 0, rules.players)
            deal = shuffle_deal(rules, dealer, f"{self.seed}:0")
        self.start_round(deal)

    # -- a round from its deal ---------------------------------------------------------------

    def start_round(self, deal: Deal) -> None:
        self.round_index += 1
        self.deal = deal
        self.before_round = (list(self.totals), self.target, list(self.results), self.winner)
        self.reset_round()

    def reset_round(self) -> None:
        """The state right after the deal of the current round."""
        rules = self.rules
        self.totals, self.target, self.results, self.winner = copy.deepcopy(self.before_round)
        self.phase = Phase.PLAYING
        self.batch = 0
        self.hands = [list(hand) for hand in self.deal.hands[0]]
        self.centre = list(self.deal.centre)
        self.face_down_in_centre = self.deal.face_down
        self.face_down_taker: int | None = None
        self.captured: list[list[Card]] = [[] for _ in range(rules.sides)]
        self.marks: list[list[Mark]] = [[] for _ in range(rules.sides)]
        self.last_capturer: int | None = None
        self.plays: list[PublicPlay] = []
        self.onto_empty_table: list[bool] = []
        self.turn: int | None = (self.deal.dealer + 1) % rules.players

    def next_round(self) -> None:
        if self.phase != Phase.ROUND_OVER:
            raise IllegalPlayError("no round to deal")
        dealer = (self.deal.dealer + 1) % self.rules.players
        self.start_round(shuffle_deal(self.rules, dealer, f"{self.seed}:{self.round_index + 1}"))

    # -- plays -----------------------------------------------------------------------------

    def legal_plays(self) -> list[Card]:
        if self.turn is None:
            return []
        return list(self.hands[self.turn])

    def play(self, card: Card) -> None:
        rules = self.rules
        seat = self.turn
        if seat is None:
            raise IllegalPlayError("no play is due")
        if card not in self.hands[seat]:
            raise IllegalPlayError(f"{card} is not in the hand of seat {seat}")
        self.hands[seat].remove(card)
        side = rules.side_of(seat)
        last_play_of_round = self.batch == len(self.deal.hands) - 1 and all(not h for h in self.hands)
        marks: list[Mark] = []
        taken = 0
        table_was_empty = not self.centre
        if self.centre:
            top = self.centre[-1]
            same_rank = rank(card) == rank(top)
            wild_jack = rank(card) == JACK and rules.jacks_capture_all
            if same_rank or wild_jack:
                if len(self.centre) == 1 and same_rank:
                    if rank(card) == JACK:
                        kind, points = "jack-kseri", rules.jack_kseri
                    elif rules.double_kseri is not None and self.lone_card_led_after_kseri():
                        kind, points = "double-kseri", rules.double_kseri
                    else:
                        kind, points = "kseri", rules.kseri_value
                    if points is not None and (rules.kseri_on_last_card or not last_play_of_round):
                        marks.append(Mark(kind, card, points))
                if rules.jacks_table_bonus and all(rank(c) == JACK for c in self.centre):
                    marks.append(Mark("jacks-table", card, rules.jacks_table_bonus))
                two_of_clubs = Card("2C")
                if rules.two_clubs_match_bonus and rank(card) == TWO and top % CARDS_PER_DECK == two_of_clubs:
                    marks.append(Mark("two-clubs-match", card, rules.two_clubs_match_bonus))
                taken = len(self.centre) + 1
                self.captured[side].extend(self.centre)
                self.captured[side].append(card)
                self.centre = []
                if self.face_down_in_centre:
                    self.face_down_in_centre = 0
                    self.face_down_taker = seat
                self.last_capturer = seat
                self.marks[side].extend(marks)
            else:
                self.centre.append(card)
        else:
            self.centre.append(card)
        self.plays.append(PublicPlay(seat, card, taken, tuple(marks)))
        self.onto_empty_table.append(table_was_empty)
        self.turn = (seat + 1) % rules.players
        if all(not hand for hand in self.hands):
            if self.batch + 1 < len(self.deal.hands):
                self.batch += 1
                self.hands = [list(hand) for hand in self.deal.hands[self.batch]]
                self.turn = (self.deal.dealer + 1) % rules.players
            else:
                self.end_round()

    def lone_card_led_after_kseri(self) -> bool:
        """The lone card was led onto an empty table, and the play before it was a kseri."""
        if len(self.plays) < 2 or not self.onto_empty_table[-1]:
            return False
        return any(mark.kind in KSERI_KINDS for mark in self.plays[-2].marks)

    def undo(self) -> Card:
        """Replay the round from its deal without its last play."""
        if not self.plays:
            raise IllegalPlayError("no play to undo in this round")
        cards = [play.card for play in self.plays]
        self.reset_round()
        for card in cards[:-1]:
            self.play(card)
        return cards[-1]

    def copy(self) -> Match:
        return copy.deepcopy(self)

    # -- end of round ----------------------------------------------------------------------

    def end_round(self) -> None:
        rules = self.rules
        self.turn = None
        if self.last_capturer is not None:
            self.captured[rules.side_of(self.last_capturer)].extend(self.centre)
            self.centre = []
        breakdown: list[list[ScoreItem]] = [[] for _ in range(rules.sides)]
        for side in range(rules.sides):
            for card in sorted(self.captured[side]):
                if card_points(rules, card):
                    breakdown[side].append(ScoreItem("card", card, card_points(rules, card)))
            for mark in self.marks[side]:
                breakdown[side].append(ScoreItem(mark.kind, mark.card, mark.points))
        counts = [len(cards) for cards in self.captured]
        most = max(counts)
        leaders = [side for side in range(rules.sides) if counts[side] == most]
        someone_leads = len(leaders) == 1 or rules.majority_tie == MajorityTie.EVERY_TIED_SIDE
        if rules.majority_bonus > 0 and most > 0 and someone_leads:
            for side in leaders:
                breakdown[side].append(ScoreItem("majority", None, rules.majority_bonus))
        if rules.last_capture_bonus > 0 and self.last_capturer is not None:
            side = rules.side_of(self.last_capturer)
            breakdown[side].append(ScoreItem("last-capture", None, rules.last_capture_bonus))
        result = RoundResult(
            points=tuple(sum(item.points for item in items) for items in breakdown),
            kseri=tuple(sum(m.points for m in marks if m.kind in KSERI_KINDS) for marks in self.marks),
            captured=tuple(tuple(cards) for cards in self.captured),
            breakdown=tuple(tuple(items) for items in breakdown),
            last_capturer=self.last_capturer,
        )
        self.results.append(result)
        for side in range(rules.sides):
            self.totals[side] += result.points[side]
        self.settle()

    def settle(self) -> None:
        rules = self.rules
        sides = range(rules.sides)
        if rules.target_rule == TargetRule.ESCALATE:
            while True:
                reached = [side for side in sides if self.totals[side] >= self.target]
                if len(reached) <= 1:
                    break
                self.target += rules.escalation
            self.winner = reached[0] if reached else None
        else:
            reached = [side for side in sides if self.totals[side] >= self.target]
            self.winner = None
            if reached:
                best = max(self.totals[side] for side in reached)
                leaders = [side for side in reached if self.totals[side] == best]
                if len(leaders) == 1:
                    self.winner = leaders[0]
        self.phase = Phase.MATCH_OVER if self.winner is not None else Phase.ROUND_OVER

    # -- views -----------------------------------------------------------------------------

    def view(self, seat: int) -> View:
        deal = self.deal
        return View(
            rules=self.rules,
            seat=seat,
            phase=self.phase,
            round_index=self.round_index,
            dealer=deal.dealer,
            turn=self.turn,
            hand=tuple(self.hands[seat]),
            centre_top=self.centre[-1] if self.centre else None,
            centre_size=len(self.centre),
            face_down=self.face_down_in_centre,
            centre_dealt=tuple(None if i < deal.face_down else c for i, c in enumerate(deal.centre)),
            face_down_seen=deal.centre[: deal.face_down] if self.face_down_taker == seat else (),
            shown=deal.shown,
            hand_sizes=tuple(len(hand) for hand in self.hands),
            stock_size=sum(len(hand) for batch in deal.hands[self.batch + 1 :] for hand in batch),
            captured_sizes=tuple(len(cards) for cards in self.captured),
            marks=tuple(tuple(marks) for marks in self.marks),
            plays=tuple(self.plays),
            last_capturer=self.last_capturer,
            totals=tuple(self.totals),
            target=self.target,
            round_results=tuple(self.results),
            winner=self.winner,
        )
