"""Worlds consistent with a view: where the cards a seat has not seen may be.

A *world* places every unseen card: the other hands, the stock's future batches (Pisti's shown
card last to the dealer), and the face-down centre cards. :class:`Sampler` draws worlds at
random, weighted by how well they explain the other players' plays of this batch (the opponent
model of :mod:`kseri.fast.sampling`): a player who left a pile they could have taken with a
card of the top's rank probably held none. It reads each other player's style (random, greedy,
the expert, a loose expert) from their plays of earlier batches and, when given them, of the
match's earlier rounds (:attr:`Sampler.styles`), and
gives each world the style likeliest for each player there (:meth:`Sampler.opponents`), which
the master's rollouts play.

>>> from kseri import Match
>>> match = Match(seed=3)
>>> view = match.view(match.turn)
>>> world = Sampler(view).sample(random.Random(1))
>>> [len(hand) for hand in world.hands] == list(view.hand_sizes)
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from kseri.cards import ALL_CARDS, JACK, RANK_OF, Card
from kseri.engine import Deal, View

if TYPE_CHECKING:
    from kseri.fast import Positions

OVERSAMPLE = 8
"""Shuffles drawn per world kept when the others' plays of this batch are weighed."""
STYLE_PRIOR = (0.1, 0.1, 0.6, 0.2)
"""How likely each style of :data:`~kseri.fast.sampling.STYLES` (random, greedy, expert, loose)
is before a player has played: most players play with sense, the expert's model of it."""
STYLE_FLOOR = 0.001
"""The least likelihood a style keeps before a round's plays, however much the earlier rounds
spoke against it (:class:`Sampler`'s ``earlier``): a player may change their ways."""


def _log_sum(logs: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log(sum(exp(logs)))`` over the last axis, without overflow."""
    top = logs.max(axis=-1)
    summed: NDArray[np.float64] = top + np.log(np.exp(logs - top[..., None]).sum(axis=-1))
    return summed


@dataclass(frozen=True, slots=True)
class PlaysRead:
    """The current batch's plays by the other seats, as the opponent model reads them
    (:func:`kseri.fast.sampling.log_likelihoods`; empty arrays when there is none):
    ``clues[k]`` the play and its position,
    ``seen[k]`` the cards seen by rank before it, ``later[k, :later_len[k]]`` the cards its
    player has played since, this one included."""

    clues: NDArray[np.int64]
    seen: NDArray[np.int64]
    later: NDArray[np.int8]
    later_len: NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class World:
    """One placement of the hidden cards: ``hands`` by seat (the viewer's own included),
    ``future`` batches by seat, and the ``face_down`` centre cards as dealt."""

    hands: tuple[tuple[Card, ...], ...]
    future: tuple[tuple[tuple[Card, ...], ...], ...]
    face_down: tuple[Card, ...]


class Sampler:
    """Everything a view implies about hidden cards, and a source of consistent worlds."""

    __slots__ = (
        "_base", "_dealer_holds_shown", "_plays_read", "_shown_in_stock",
        "evidence", "face_down_unknown", "styles", "unseen", "view",
    )

    def __init__(self, view: View, earlier: NDArray[np.float64] | None = None) -> None:
        """``earlier[seat, style]``: the log-likelihood of each seat's plays of the match's earlier
        rounds under each style (the sum of those rounds' :attr:`evidence`), which sharpens the
        prior before this round's plays; ``None``: nothing read before."""
        if view.turn is None:
            raise ValueError("no world to sample: no play is due in this view")
        self.view = view
        rules = view.rules
        known = set(view.hand) | set(view.face_down_seen)
        known.update(play.card for play in view.plays)
        known.update(card for card in view.centre_dealt if card is not None)
        shown = view.shown
        shown_open = shown is not None and shown not in known
        if shown is not None:
            known.add(shown)
        self.unseen: tuple[Card, ...] = tuple(c for c in ALL_CARDS[: rules.deck_size] if c not in known)
        """Cards whose place the viewer does not know (the shown card aside)."""
        self._shown_in_stock = shown_open and view.stock_size > 0
        self._dealer_holds_shown = shown_open and view.stock_size == 0 and view.dealer != view.seat
        face_down = sum(1 for card in view.centre_dealt if card is None)
        self.face_down_unknown = face_down if face_down and not view.face_down_seen else 0
        """Face-down centre cards the viewer has not seen (in the centre or taken by another)."""
        self._base, self._plays_read, past_read = self._replay(face_down)
        self.evidence = self._evidence(past_read)
        """Per seat, the log-likelihood of its plays of this round's earlier batches under each
        style of :data:`~kseri.fast.sampling.STYLES` (the viewer's own row: 0)."""
        self.styles = self._styles(earlier)
        """Per seat, the log-probability of each style given that seat's plays of the earlier
        rounds and of this round's earlier batches (the viewer's own row: the prior)."""
        needed = (sum(view.hand_sizes) - len(view.hand) + view.stock_size + self.face_down_unknown
                  - self._shown_in_stock - self._dealer_holds_shown)
        if needed != len(self.unseen):
            raise ValueError(f"inconsistent view: {len(self.unseen)} unseen cards for {needed} places")

    def _replay(self, face_down: int) -> tuple[NDArray[np.void], PlaysRead, PlaysRead]:
        """The round's public history replayed on the compiled step with face-down placeholders
        (one :data:`~kseri.fast.flat.STATE` record: the state every world starts from), and the
        other seats' plays as the opponent model reads them: this batch's, then earlier ones'."""
        from kseri.fast.flat import COUNTS, POINTS, new_states
        from kseri.fast.sampling import CLUE_FIELDS, replay
        view = self.view
        rules = view.rules
        table = rules.points_table
        placeholder = ALL_CARDS[0]
        centre = [placeholder if card is None else card for card in view.centre_dealt]
        states = new_states(1)
        state = states[0]
        state["memory"] = 1
        state["dealer"] = view.dealer
        state["turn"] = (view.dealer + 1) % rules.players
        state["batch"] = 1
        state["pile"][: len(centre)] = centre
        state["pile_len"] = len(centre)
        state["pile_points"] = sum(table[c] for c in centre)
        state["pile_plain"] = sum(1 for c in centre if RANK_OF[c] != JACK)
        state["hidden"] = face_down
        state["first_capturer"] = state["last_capturer"] = -1
        for card in view.centre_dealt:
            if card is not None:
                state["public_rank"][RANK_OF[card]] += 1
        state["public_count"] = len(centre) - face_down
        per_batch = rules.players * rules.batch_size
        batch_start = len(view.plays) // per_batch * per_batch
        reads = np.full(len(view.plays), -1, np.int64)
        later: list[list[int]] = []
        for index, play in enumerate(view.plays):
            if play.seat != view.seat:
                reads[index] = len(later)
                start = index // per_batch * per_batch
                later.append([p.card for p in view.plays[index : start + per_batch] if p.seat == play.seat])
        clues = np.zeros((len(later), CLUE_FIELDS), np.int64)
        seen = np.zeros((len(later), 13), np.int64)
        cards = np.array([play.card for play in view.plays], np.int64)
        hidden = replay(rules, states, cards, reads, clues, seen)
        for index, play in enumerate(view.plays):
            row = reads[index]
            if row >= 0:
                start = index // per_batch * per_batch
                next_seat = (play.seat + 1) % rules.players
                next_played = sum(1 for p in view.plays[start:index] if p.seat == next_seat)
                clues[row, :2] = play.seat, play.card
                clues[row, 7] = rules.batch_size - next_played
                clues[row, 8] = index >= batch_start
        hidden_points = sum(table[: rules.deck_size]) / rules.deck_size - table[placeholder]
        clues[:, 4] = np.round(clues[:, 4] + hidden * hidden_points)
        per_side = state["per_side"]
        public = (view.turn, view.centre_size, view.captured_sizes)
        counts = tuple(per_side[COUNTS, : rules.sides].tolist())
        if (int(state["turn"]), int(state["pile_len"]), counts) != public:
            raise ValueError("inconsistent view: its plays do not lead to its centre and captures")
        if face_down and view.face_down:
            state["pile_points"] -= face_down * table[placeholder]
        elif face_down:
            first = next(play for play in view.plays if play.taken)
            taken_side = rules.side_of(first.seat)
            per_side[POINTS, taken_side] -= face_down * table[placeholder]
            per_side[POINTS, taken_side] += sum(table[c] for c in view.face_down_seen)
        width = max((len(cards) for cards in later), default=0)
        later_cards = np.array([cards + [0] * (width - len(cards)) for cards in later], np.int8)
        later_len = np.array([len(cards) for cards in later], np.int64)
        current = clues[:, 8] == 1
        plays_read = PlaysRead(clues[current], seen[current], later_cards[current], later_len[current])
        past_read = PlaysRead(clues[~current], seen[~current], later_cards[~current], later_len[~current])
        return states, plays_read, past_read

    def sample(self, rng: random.Random) -> World:
        """One world, drawn as :meth:`pools` draws them."""
        return self.world(self.pools(rng, 1)[0].tolist())

    def pools(self, rng: random.Random, count: int) -> NDArray[np.int8]:
        """``count`` placements of the unseen cards (rows in :meth:`world`'s order), drawn in
        proportion to how well they explain the others' plays of this batch (the opponent model
        of :mod:`kseri.fast.sampling`): :data:`OVERSAMPLE` times as many shuffles are drawn on
        the compiled core, weighed, and resampled."""
        from kseri.fast.sampling import shuffled_pools  # numba loads with the first search
        shuffles = count * OVERSAMPLE if len(self._plays_read.clues) else count
        pools = shuffled_pools(np.array(self.unseen, np.int8), shuffles, rng.getrandbits(64))
        if shuffles > count:
            weights = np.exp(self._log_likelihoods(pools))
            cumulative = np.cumsum(weights)
            points = (rng.random() + np.arange(count)) * (cumulative[-1] / count)
            pools = pools[np.minimum(np.searchsorted(cumulative, points), shuffles - 1)]
        return pools

    def _hands(self, pools: NDArray[np.int8]) -> tuple[NDArray[np.int8], int]:
        """Every seat's hand in each pool's world, and where the stock starts in the pools."""
        view = self.view
        hands = np.zeros((pools.shape[0], view.rules.players, view.rules.batch_size), np.int8)
        taken = self.face_down_unknown
        for seat, size in enumerate(view.hand_sizes):
            if seat == view.seat:
                hands[:, seat, :size] = np.array(view.hand, np.int8)
                continue
            if self._dealer_holds_shown and seat == view.dealer:
                assert view.shown is not None
                hands[:, seat, : size - 1] = pools[:, taken : taken + size - 1]
                hands[:, seat, size - 1] = view.shown
                taken += size - 1
            else:
                hands[:, seat, :size] = pools[:, taken : taken + size]
                taken += size
        return hands, taken

    def _evidence(self, past: PlaysRead) -> NDArray[np.float64]:
        """:attr:`evidence`: the plays of earlier batches, whose hands are known in full once
        played."""
        from kseri.fast.sampling import log_likelihoods
        rules = self.view.rules
        if not len(past.clues):
            return np.zeros((rules.players, len(STYLE_PRIOR)))
        empty = np.zeros((1, rules.players, rules.batch_size), np.int8)
        logs: NDArray[np.float64] = log_likelihoods(
            rules, empty, np.zeros(rules.players, np.int64), past.clues, past.seen, past.later,
            past.later_len)[0]
        return logs

    def _styles(self, earlier: NDArray[np.float64] | None) -> NDArray[np.float64]:
        """:attr:`styles`: the prior, sharpened by the earlier rounds down to
        :data:`STYLE_FLOOR`, then this round's :attr:`evidence`."""
        rules = self.view.rules
        prior = np.log(np.tile(np.array(STYLE_PRIOR), (rules.players, 1)))
        if earlier is not None:
            prior += earlier
            prior = np.maximum(prior - _log_sum(prior)[:, None], np.log(STYLE_FLOOR))
        logs = prior + self.evidence
        posterior: NDArray[np.float64] = logs - _log_sum(logs)[:, None]
        return posterior

    def all_read_as_expert(self) -> bool:
        """Whether every other seat's likeliest style from its earlier plays is the expert's."""
        from kseri.fast.flat import EXPERT
        likeliest = self.styles.argmax(axis=1).tolist()
        return all(style == EXPERT for seat, style in enumerate(likeliest) if seat != self.view.seat)

    def _joint(self, pools: NDArray[np.int8]) -> NDArray[np.float64]:
        """``out[w, seat, style]``: the log-probability of each seat's style and of its plays of
        this batch in each pool's world."""
        from kseri.fast.sampling import log_likelihoods
        hands, _ = self._hands(pools)
        read = self._plays_read
        joint: NDArray[np.float64] = self.styles + log_likelihoods(
            self.view.rules, hands, np.array(self.view.hand_sizes, np.int64), read.clues, read.seen,
            read.later, read.later_len)
        return joint

    def _log_likelihoods(self, pools: NDArray[np.int8]) -> NDArray[np.float64]:
        """The opponent model's log-likelihood of this batch's plays in each pool's world (each
        seat's styles mixed by :attr:`styles`), less the best one's."""
        logs: NDArray[np.float64] = _log_sum(self._joint(pools)).sum(axis=1)
        relative: NDArray[np.float64] = logs - logs.max()
        return relative

    def opponents(self, rng: random.Random, pools: NDArray[np.int8]) -> NDArray[np.int64]:
        """The policy each seat plays in each pool's world (``out[w, seat]``, the kernels'
        codes of :data:`~kseri.fast.flat.POLICIES`): for the other seats the likeliest style given
        the world, for the viewer the expert."""
        from kseri.fast.flat import EXPERT
        del rng
        picks: NDArray[np.int64] = self._joint(pools).argmax(axis=2)
        picks[:, self.view.seat] = EXPERT
        return picks

    def positions(self, pools: NDArray[np.int8]) -> Positions:
        """The worlds of ``pools`` as the compiled core's rounds in progress, ready to play from
        the view's position."""
        from kseri.fast import Positions
        from kseri.fast.flat import COUNTS, POINTS
        view = self.view
        rules = view.rules
        count = pools.shape[0]
        hands, taken = self._hands(pools)
        stock = pools[:, taken:]
        if self._shown_in_stock:
            assert view.shown is not None
            stock = np.concatenate([stock, np.full((count, 1), view.shown, np.int8)], axis=1)
        size = rules.batch_size
        per_batch = rules.players * size
        future = np.zeros((count, stock.shape[1] // per_batch, rules.players, size), np.int8)
        for batch in range(future.shape[1]):
            for position in range(rules.players):
                seat = (view.dealer + 1 + position) % rules.players
                start = batch * per_batch + position * size
                future[:, batch, seat] = stock[:, start : start + size]
        table = np.array(rules.points_table, np.int64)
        face_down = pools[:, : self.face_down_unknown]
        face_down_points = table[face_down].sum(axis=1)
        base = self._base[0]
        pile_len = int(base["pile_len"])
        per_side = base["per_side"]
        centre = np.zeros((count, max(1, pile_len)), np.int8)
        centre[:, :pile_len] = base["pile"][:pile_len]
        total = rules.deck_size - rules.centre_size
        numbers = np.tile(np.array([base["pile_points"], base["turn"], total - base["index"],
                                    base["last_capturer"], base["chain"], base["public_count"]], np.int64),
                          (count, 1))
        points = np.tile(per_side[POINTS, : rules.sides].astype(np.int64), (count, 1))
        if view.face_down:
            centre[:, : view.face_down] = face_down
            numbers[:, 0] += face_down_points
        elif self.face_down_unknown:
            first = next(play for play in view.plays if play.taken)
            points[:, rules.side_of(first.seat)] += face_down_points
        return Positions(
            hands=hands, lengths=np.tile(np.array(view.hand_sizes, np.int64), (count, 1)), future=future,
            centre=centre, centre_len=np.full(count, pile_len, np.int64), numbers=numbers,
            points=points, counts=np.tile(per_side[COUNTS, : rules.sides].astype(np.int64), (count, 1)),
            seen=np.tile(base["public_rank"].astype(np.int64), (count, 1)),
        )

    def states(self, pools: NDArray[np.int8]) -> NDArray[np.void]:
        """The worlds of ``pools`` as :data:`~kseri.fast.flat.STATE` records, ready to play
        from the view's position."""
        from kseri.fast import world_states
        return world_states(self.view.rules, self.positions(pools))

    def world(self, row: Sequence[int]) -> World:
        """The world that places the unseen cards in ``row``'s order (card numbers): the
        face-down centre cards, then the other hands by seat, then the stock."""
        pool = [ALL_CARDS[card] for card in row]
        view = self.view
        rules = view.rules
        face_down = tuple(pool[: self.face_down_unknown]) or view.face_down_seen
        taken = self.face_down_unknown
        hands: list[tuple[Card, ...]] = []
        for seat, size in enumerate(view.hand_sizes):
            if seat == view.seat:
                hands.append(view.hand)
                continue
            if self._dealer_holds_shown and seat == view.dealer:
                assert view.shown is not None
                hands.append((*pool[taken : taken + size - 1], view.shown))
                taken += size - 1
            else:
                hands.append(tuple(pool[taken : taken + size]))
                taken += size
        stock = list(pool[taken:])
        if self._shown_in_stock:
            assert view.shown is not None
            stock.append(view.shown)
        size = rules.batch_size
        order = [(view.dealer + 1 + i) % rules.players for i in range(rules.players)]
        future = []
        for start in range(0, len(stock), rules.players * size):
            batch: list[tuple[Card, ...]] = [()] * rules.players
            for position, seat in enumerate(order):
                batch[seat] = tuple(stock[start + position * size : start + (position + 1) * size])
            future.append(tuple(batch))
        return World(tuple(hands), tuple(future), face_down)

    def deal(self, world: World) -> Deal:
        """The whole round's deal that ``world`` implies: past batches from the plays."""
        view = self.view
        rules = view.rules
        per_batch = rules.players * rules.batch_size
        current = len(view.plays) // per_batch
        past: list[list[list[Card]]] = [[[] for _ in range(rules.players)] for _ in range(current + 1)]
        for index, play in enumerate(view.plays):
            past[index // per_batch][play.seat].append(play.card)
        for seat, hand in enumerate(world.hands):
            past[current][seat].extend(hand)
        if view.shown is not None and not world.future:
            # The dealer was dealt the shown card last, whenever it was played.
            last = past[-1][view.dealer]
            if view.shown in last:
                last.remove(view.shown)
                last.append(view.shown)
        hands = tuple(tuple(tuple(cards) for cards in batch) for batch in past) + world.future
        fd = iter(world.face_down)
        centre = tuple(next(fd) if card is None else card for card in view.centre_dealt)
        return Deal(view.dealer, centre, len(world.face_down) if view.centre_dealt.count(None) else 0,
                    hands, view.shown)
