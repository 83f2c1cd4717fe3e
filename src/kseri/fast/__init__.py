"""The fast core: many rounds or matches at once, compiled with numba, beside the engine.

:class:`kseri.engine.Match` is the reference: one match, every step checked, standard library
only. This floor plays the same rules on arrays, a hundred times faster, for simulations,
benchmarks and search. Rounds are dealt here (a fast shuffle with every preset's centre
procedure, reproducible from ``seed``) or given as :class:`Deals` (e.g. from
``kseri.engine.Deal.shuffle``, so that both cores play the very same cards); each seat follows
a built-in policy (``random``, ``greedy``, ``expert``: the same choices as those agents) or
plays given cards. A differential test proves the results equal to ``Match``'s.

>>> from kseri import Rules
>>> rules = Rules.preset("greek")
>>> rounds = play_rounds(rules, 1000, seed=7, policies=("expert", "random"))
>>> rounds.points.shape, bool(rounds.points[:, 0].mean() > rounds.points[:, 1].mean())
((1000, 2), True)
>>> int(rounds.captured.sum(axis=1).max()) <= 52
True
>>> matches = play_matches(rules, 100, seed=7)
>>> bool((matches.totals.max(axis=1) >= 151).all())
True

The first call in a fresh install compiles the kernels (seconds); the machine code is cached
on disk, so later processes only load it (:func:`warm_up` does either and says how long).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from hashlib import sha512
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from kseri.cards import ALL_CARDS
from kseri.fast import kernels, search
from kseri.fast.flat import POLICIES, FlatRules, flatten, new_states, policy_codes
from kseri.rules import Rules


class DealLike(Protocol):
    """A round as dealt (:class:`kseri.engine.Deal` is one)."""

    @property
    def dealer(self) -> int:
        """The dealer's seat."""
        ...

    @property
    def centre(self) -> Sequence[int]:
        """The centre, bottom to top."""
        ...

    @property
    def hands(self) -> Sequence[Sequence[Sequence[int]]]:
        """``hands[batch][seat]``: the cards each seat receives in each batch."""
        ...


@dataclass(frozen=True, slots=True)
class Deals:
    """Rounds as dealt, as arrays of card numbers: ``dealer[i]``, ``centre[i]`` (bottom to
    top; Pisti's bottom ``centre_size - 1`` face down) and ``hands[i, batch, seat]``."""

    dealer: NDArray[np.int8]
    centre: NDArray[np.int8]
    hands: NDArray[np.int8]

    def __len__(self) -> int:
        return int(self.dealer.shape[0])

    @classmethod
    def from_deals(cls, rules: Rules, deals: Iterable[DealLike]) -> Deals:
        """Arrays of ``deals`` (checked against ``rules``: see :meth:`check`)."""
        rows = list(deals)
        shape = (rules.batches, rules.players, rules.batch_size)
        if not rows:
            return cls(np.zeros(0, np.int8), np.zeros((0, rules.centre_size), np.int8),
                       np.zeros((0, *shape), np.int8))
        try:
            result = cls(
                np.array([deal.dealer for deal in rows], np.int8),
                np.array([deal.centre for deal in rows], np.int8),
                np.array([deal.hands for deal in rows], np.int8),
            )
        except ValueError:
            raise ValueError(
                f"every deal must have a centre of {rules.centre_size} cards and {rules.batches} batches "
                f"of {rules.players} hands of {rules.batch_size} cards for these rules"
            ) from None
        result.check(rules)
        return result

    def check(self, rules: Rules) -> None:
        """Raise ``ValueError``, saying why and where, unless every deal fits ``rules``: the
        shapes, a valid dealer, and every card of the deck exactly once."""
        count = len(self)
        shapes = {
            "centre": (self.centre.shape, (count, rules.centre_size)),
            "hands": (self.hands.shape, (count, rules.batches, rules.players, rules.batch_size)),
        }
        for name, (shape, wanted) in shapes.items():
            if shape != wanted:
                raise ValueError(f"deals.{name} has the shape {shape}; these rules need {wanted}")
        for name, array in (("dealer", self.dealer), ("centre", self.centre), ("hands", self.hands)):
            if array.dtype != np.int8:
                raise ValueError(f"deals.{name} must hold int8 card numbers, not {array.dtype}")
        bad = np.flatnonzero((self.dealer < 0) | (self.dealer >= rules.players))
        if bad.size:
            raise ValueError(f"deal {bad[0]}: the dealer must be seat 0 to {rules.players - 1}, "
                             f"not {self.dealer[bad[0]]}")
        cards = np.sort(np.concatenate([self.centre, self.hands.reshape(count, -1)], axis=1), axis=1)
        bad = np.flatnonzero((cards != np.arange(rules.deck_size)).any(axis=1))
        if bad.size:
            raise ValueError(
                f"deal {bad[0]} must hold every card of the {rules.deck_size}-card deck exactly once")


@dataclass(frozen=True, slots=True)
class Rounds:
    """Per-round results, one row per round, one column per side where it applies."""

    points: NDArray[np.int64]
    """Round points per side (``RoundResult.points``)."""
    kseri: NDArray[np.int64]
    """Points from kseris of every kind per side (``RoundResult.kseri``)."""
    kseris: NDArray[np.int64]
    """Kseris scored per side."""
    captured: NDArray[np.int64]
    """Cards captured per side, the final sweep included."""
    last_capturer: NDArray[np.int64]
    """The seat that made the last capture (-1: nobody captured)."""
    deals: Deals | None
    """The deals played (when given, or when kept)."""
    plays: NDArray[np.int8] | None
    """When kept: the cards in the order played, seats taking turns from the dealer's left."""
    owners: NDArray[np.int8] | None
    """When kept: the side that captured each card number (-1: left in the centre)."""

    def __len__(self) -> int:
        return int(self.points.shape[0])


@dataclass(frozen=True, slots=True)
class Matches:
    """Per-match results of :func:`play_matches`."""

    winner: NDArray[np.int64]
    rounds: NDArray[np.int64]
    target: NDArray[np.int64]
    """The final target (it rises under the Greek escalation)."""
    kseris: NDArray[np.int64]
    """Kseris scored in the match, all sides together."""
    totals: NDArray[np.int64]
    """Match points per side."""

    def __len__(self) -> int:
        return int(self.winner.shape[0])


def _seed(seed: int | str) -> np.uint64:
    """A 64-bit seed: an int modulo 2**64, or the first 8 bytes of a text's SHA-512."""
    if isinstance(seed, str):
        return np.uint64(int.from_bytes(sha512(seed.encode()).digest()[:8], "big"))
    return np.uint64(seed % 2**64)


def play_rounds(rules: Rules, deals: Deals | int, *, seed: int | str = 0,
                policies: str | Sequence[str] | None = None, plays: NDArray[np.integer] | None = None,
                keep_plays: bool = False, keep_owners: bool = False, keep_deals: bool = False) -> Rounds:
    """Play rounds under ``rules``: ``deals`` as given, or that many dealt here from ``seed``
    (the dealer rotating from seat 0).

    ``policies`` names one policy for every seat or one per seat (:data:`POLICIES`; default
    ``given`` with ``plays``, else ``random``). ``plays[i, k]`` is the card of play ``k`` of
    round ``i`` for the seats that play ``given`` cards. ``random`` draws from ``seed``, one
    stream per round, so a round's result does not depend on the others. ``keep_plays``,
    ``keep_owners`` and ``keep_deals`` add those arrays to the result.
    """
    compiled = flatten(rules)
    default = "given" if plays is not None else "random"
    codes = policy_codes(rules, policies if policies is not None else default)
    total = rules.batches * rules.players * rules.batch_size
    shuffle = isinstance(deals, int)
    if isinstance(deals, int):
        if deals < 0:
            raise ValueError(f"the number of rounds cannot be negative ({deals})")
        count = deals
        rows = count if keep_deals else 1
        deal_arrays = Deals(np.zeros(rows, np.int8), np.zeros((rows, rules.centre_size), np.int8),
                            np.zeros((rows, rules.batches, rules.players, rules.batch_size), np.int8))
    else:
        deals.check(rules)
        count = len(deals)
        deal_arrays = Deals(np.ascontiguousarray(deals.dealer), np.ascontiguousarray(deals.centre),
                            np.ascontiguousarray(deals.hands))
    given = _given(rules, codes, plays, count, total)
    kept_plays = np.zeros((count if keep_plays else 1, total), np.int8)
    owners = np.zeros((count, rules.deck_size) if keep_owners else (1, 1), np.int8)
    results = np.zeros((count, 4 * rules.sides + 1), np.int64)
    error = kernels.play_rounds(compiled.packed, codes, shuffle, _seed(seed), deal_arrays.dealer,
                                deal_arrays.centre, deal_arrays.hands, given, kept_plays, owners, results,
                                new_states(1))
    if error >= 0:
        round_index, play = divmod(error, total)
        seat = (int(deal_arrays.dealer[round_index]) + 1 + play) % rules.players
        card = ALL_CARDS[int(given[round_index, play])]
        raise ValueError(f"round {round_index}, play {play}: {card} is not in the hand of seat {seat}, "
                         "whose turn it is")
    sides = rules.sides
    return Rounds(
        points=results[:, :sides],
        kseri=results[:, sides:2 * sides],
        kseris=results[:, 2 * sides:3 * sides],
        captured=results[:, 3 * sides:4 * sides],
        last_capturer=results[:, 4 * sides],
        deals=deal_arrays if not shuffle or keep_deals else None,
        plays=kept_plays if keep_plays else None,
        owners=owners if keep_owners else None,
    )


def _given(rules: Rules, codes: NDArray[np.int64], plays: NDArray[np.integer] | None, count: int,
           total: int) -> NDArray[np.int8]:
    """The given plays as the kernel takes them, checked."""
    uses = bool((codes == POLICIES.index("given")).any())
    if plays is None:
        if uses:
            raise ValueError("a seat plays the given cards, but no plays were given")
        return np.zeros((1, 1), np.int8)
    if not uses:
        raise ValueError("plays were given, but no seat plays them (use the policy 'given')")
    array = np.asarray(plays)
    if array.shape != (count, total):
        raise ValueError(f"plays has the shape {array.shape}; {count} rounds need ({count}, {total})")
    if array.size and (array.min() < 0 or array.max() >= rules.deck_size):
        raise ValueError(f"plays must be card numbers 0 to {rules.deck_size - 1}")
    return array.astype(np.int8)


def play_matches(rules: Rules, count: int, *, seed: int | str = 0,
                 policies: str | Sequence[str] = "random") -> Matches:
    """Play ``count`` matches to their winners, each from its own stream of ``seed``: a random
    first dealer, rounds dealt here, the dealer moving one seat on each round, the target
    rule of ``rules`` deciding the winner."""
    if count < 0:
        raise ValueError(f"the number of matches cannot be negative ({count})")
    compiled = flatten(rules)
    codes = policy_codes(rules, policies)
    if POLICIES.index("given") in codes:
        raise ValueError("matches are played by policies; 'given' plays need play_rounds")
    results = np.zeros((count, 4 + rules.sides), np.int64)
    endless = kernels.play_matches(compiled.packed, codes, _seed(seed), results, new_states(1))
    if endless >= 0:
        raise RuntimeError(f"match {endless} found no winner in {kernels.MAX_ROUNDS} rounds")
    return Matches(results[:, 0], results[:, 1], results[:, 2], results[:, 3], results[:, 4:])


@dataclass(frozen=True, slots=True)
class Positions:
    """Rounds in progress with every card known (the master's sampled worlds), one row each.

    ``hands[w, seat, :lengths[w, seat]]`` are the hands, ``future[w, batch, seat]`` the batches
    still to be dealt, ``centre[w, :centre_len[w]]`` the centre bottom to top; ``numbers[w]``
    holds the centre's points, the seat to play, the cards left to play, the last capturer
    (-1: none), the kseri chain (the state's ``chain``) and the cards seen; ``points`` and
    ``counts`` each side's points and cards captured so far, ``seen`` the cards seen by rank.
    """

    hands: NDArray[np.int8]
    lengths: NDArray[np.int64]
    future: NDArray[np.int8]
    centre: NDArray[np.int8]
    centre_len: NDArray[np.int64]
    numbers: NDArray[np.int64]
    points: NDArray[np.int64]
    counts: NDArray[np.int64]
    seen: NDArray[np.int64]


def rollouts(rules: Rules, positions: Positions, candidates: Sequence[int], *, to_end: bool = False,
             policies: NDArray[np.int64] | None = None, seed: int = 0,
             ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The master's rollouts: in every position, each candidate card played by the seat to
    play, then each seat's policy to the horizon (the round's end when ``to_end``; else the end
    of the current batch, or of the next one when this one has at most one card a seat left).
    ``policies[p, seat]`` is a policy code of :data:`POLICIES` other than ``given`` (default: the
    expert, from public memory, at every seat); random plays are drawn from ``seed``. Returns
    each side's points there per position and candidate (captured cards
    counted at their share of the majority before the round's end), and whether the horizon
    is the round's end, per position."""
    compiled = flatten(rules)
    count = positions.hands.shape[0]
    finals = np.zeros((count, len(candidates), rules.sides), np.float64)
    over = np.zeros(count, np.bool_)
    search.rollouts(compiled.packed, positions.hands, positions.lengths, positions.future, positions.centre,
                    positions.centre_len, positions.numbers, positions.points, positions.counts,
                    positions.seen, np.array(candidates, np.int64), finals, over, to_end, new_states(1),
                    _rollout_policies(rules, count, policies), np.uint64(seed % 2**64))
    return finals, over


def _rollout_policies(rules: Rules, count: int, policies: NDArray[np.int64] | None) -> NDArray[np.int64]:
    """``policies`` checked against the positions and :data:`POLICIES` (default: the expert)."""
    if policies is None:
        return np.full((count, rules.players), POLICIES.index("expert"), np.int64)
    if policies.shape != (count, rules.players):
        raise ValueError(f"policies must be one per position and seat, {(count, rules.players)}, "
                         f"not {policies.shape}")
    if policies.size and not (policies.min() >= 0 and policies.max() < POLICIES.index("given")):
        raise ValueError("a rollout policy must be random, greedy, expert or loose (codes 0 to 3)")
    return policies.astype(np.int64, copy=False)


def play(rules: Rules, states: NDArray[np.void], card: int, world: int = 0) -> int:
    """The seat to play in ``states[world]`` (a :data:`~kseri.fast.flat.STATE` record of a round
    under ``rules``) plays ``card`` through the compiled step; returns the cards it took. A card
    not in that hand, or a round over, raises ``ValueError`` and leaves the record as it was."""
    taken = int(search.play_in(flatten(rules).packed, states, world, card))
    if taken < 0:
        raise ValueError(f"card {card} is not in the hand of the seat to play in world {world}")
    return taken


def world_states(rules: Rules, positions: Positions) -> NDArray[np.void]:
    """Each position as a :data:`~kseri.fast.flat.STATE` record, ready to play from (the
    endgame solver's start)."""
    states = new_states(positions.hands.shape[0])
    search.load_worlds(flatten(rules).packed, states, positions.hands, positions.lengths, positions.future,
                       positions.centre, positions.centre_len, positions.numbers, positions.points,
                       positions.counts, positions.seen)
    return states


def warm_up() -> float:
    """Compile the kernels, or load them from the disk cache, and return the seconds it took."""
    start = time.perf_counter()
    rules = Rules()
    play_rounds(rules, 1, policies=("expert", "greedy"), keep_plays=True, keep_owners=True)
    rounds = play_rounds(rules, 1, keep_plays=True, keep_deals=True)
    play_rounds(rules, rounds.deals or 0, plays=rounds.plays)
    play_matches(rules, 1)
    rollouts(rules, Positions(
        hands=np.arange(12, dtype=np.int8).reshape(1, 2, 6), lengths=np.full((1, 2), 6), future=np.zeros(
            (1, 0, 2, 6), np.int8), centre=np.array([[12]], np.int8), centre_len=np.ones(1, np.int64),
        numbers=np.array([[0, 0, 12, -1, 0, 1]]), points=np.zeros((1, 2), np.int64),
        counts=np.zeros((1, 2), np.int64), seen=np.zeros((1, 13), np.int64)), [0])
    return time.perf_counter() - start


__all__ = [
    "POLICIES", "DealLike", "Deals", "FlatRules", "Matches", "Positions", "Rounds", "flatten", "play",
    "play_matches", "play_rounds", "policy_codes", "rollouts", "warm_up", "world_states",
]
