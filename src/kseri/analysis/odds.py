"""Win odds for the round and the match, from the same search: the master's worlds for the view
(:meth:`kseri.agents.sampler.Sampler.pools`), each played to the round's end by the master's
rollouts (:func:`kseri.fast.rollouts`, the expert's policy at every seat) after the card the
worlds rate best. A world won counts 1, a tie ½; the interval is Wilson's over the worlds. Where
the view leaves one world (the last batch of a two-player round) the round is played out by the
exact solver instead. The odds assume both sides play on as the expert (or perfectly, in that
endgame): they measure the position, not the players.

The match goes on after the round where no side has won it: each world's totals continue with
rounds drawn from a pool of expert-against-expert rounds (:func:`future_rounds`) until the target
rule (:func:`kseri.rules.match_winner`) names a winner.

>>> import numpy as np
>>> round_odds(np.array([[10, 5], [3, 8], [6, 6], [9, 2]]), side=0).estimate
0.625
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import cache

import numpy as np
from numpy.typing import NDArray

from kseri.agents.endgame import relative, solve
from kseri.agents.master import MasterAgent, play_classes
from kseri.analysis.search import single_world
from kseri.bench.stats import Interval, wilson_interval
from kseri.cards import ALL_CARDS, Card
from kseri.engine import PublicView, SpectatorView, View
from kseri.rules import Rules, match_winner

ODDS_WORLDS = 256
"""Worlds sampled for the odds by default."""
SPECTATOR_HANDS = 16
"""Hands drawn for the seat to play when the odds are a spectator's (:func:`spectator_odds`)."""
POOL_ROUNDS = 4096
"""Expert-against-expert rounds the rest of a match is drawn from."""
MAX_ROUNDS = 200
"""A match still undecided after this many more rounds counts as a tie (½)."""


@dataclass(frozen=True, slots=True)
class Odds:
    """The chance that the seat's side wins the round and the match, with their intervals."""

    round: Interval
    match: Interval
    worlds: int


def round_odds(outcomes: NDArray[np.floating] | NDArray[np.integer], side: int) -> Interval:
    """The share of ``outcomes`` (one row of round points per side per world) that ``side`` wins
    (more points than every other side; a tie at the top counts ½), with its Wilson interval."""
    if len(outcomes) == 0:
        raise ValueError("no world to count")
    score = 0.0
    for row in np.asarray(outcomes, np.float64).tolist():
        best = max(row)
        if row[side] == best:
            score += 1.0 / sum(1 for value in row if value == best)
    return wilson_interval(score, len(outcomes))


def match_odds(rules: Rules, totals: Sequence[int], target: int, side: int,
               outcomes: NDArray[np.floating] | NDArray[np.integer], pool: NDArray[np.integer],
               seed: int = 0) -> Interval:
    """The share of worlds in which ``side`` wins the match: each world's round ``outcomes`` added
    to ``totals``, then rounds drawn from ``pool`` (round points per side, rows) until the target
    rule names a winner (a match undecided after :data:`MAX_ROUNDS` counts ½), with its Wilson
    interval."""
    if len(outcomes) == 0:
        raise ValueError("no world to count")
    if len(pool) == 0:
        raise ValueError("no round to continue the match with")
    rng = random.Random(seed)
    rows = np.asarray(pool, np.int64).tolist()
    score = 0.0
    for row in np.asarray(outcomes, np.float64).tolist():
        after = [total + points for total, points in zip(totals, row, strict=True)]
        winner, goal = match_winner(rules, after, target)
        rounds = 0
        while winner is None and rounds < MAX_ROUNDS:
            drawn = rows[rng.randrange(len(rows))]
            after = [total + points for total, points in zip(after, drawn, strict=True)]
            winner, goal = match_winner(rules, after, goal)
            rounds += 1
        score += 0.5 if winner is None else float(winner == side)
    return wilson_interval(score, len(outcomes))


@cache
def future_rounds(rules: Rules, count: int = POOL_ROUNDS) -> NDArray[np.int64]:
    """``count`` rounds between experts under ``rules`` on the compiled core: points per side."""
    from kseri.fast import play_rounds

    return play_rounds(rules, count, seed="odds", policies="expert").points


def world_outcomes(view: View, *, worlds: int = ODDS_WORLDS, seed: int = 0) -> NDArray[np.float64]:
    """Each side's round points at the round's end in ``worlds`` of the master's worlds for
    ``view`` (the seat on its turn), after the card with the best mean over them."""
    from kseri.fast import rollouts

    if view.turn != view.seat:
        raise ValueError(f"no odds from this view: it is not seat {view.seat}'s turn")
    master = MasterAgent(seed=seed, iterations=1)
    sampler = master.sampler(view)
    candidates = [int(card) for card in play_classes(view.hand, view.rules.points_table).values()]
    finals, _ = rollouts(view.rules, sampler.positions(sampler.pools(random.Random(f"odds:{seed}"), worlds)),
                         candidates, to_end=True)
    side = view.side
    means = [float(np.mean([relative(final, side) for final in finals[:, index, :].tolist()]))
             for index in range(len(candidates))]
    return finals[:, int(np.argmax(means)), :]


def exact_outcome(view: View) -> list[int] | None:
    """Each side's round points with perfect play from here, where the view leaves one world
    (:func:`kseri.analysis.search.single_world`): each side plays the exact solver's best card."""
    from kseri.fast import play
    from kseri.fast.flat import POINTS
    worlds = single_world(view)
    if worlds is None:
        return None
    rules = view.rules
    world = worlds[0]
    while world["turn"] >= 0:
        solved = solve(rules, world, rules.side_of(int(world["turn"])))
        play(rules, worlds, max(solved, key=lambda card: (solved[card], -card)))
    points: list[int] = world["per_side"][POINTS, : rules.sides].tolist()
    return points


def odds(view: View, *, worlds: int = ODDS_WORLDS, seed: int = 0) -> Odds:
    """The chance that the seat's side of ``view`` wins the round and the match (see the module);
    where the view leaves one world the round is the exact solver's (its interval a point)."""
    side = view.side
    exact = exact_outcome(view)
    if exact is not None:
        outcomes = np.array([exact] * worlds, np.float64)
        certain = round_odds(outcomes[:1], side).estimate
        round_chance = Interval(certain, certain, certain)
    else:
        outcomes = world_outcomes(view, worlds=worlds, seed=seed)
        round_chance = round_odds(outcomes, side)
    match_chance = match_odds(view.rules, view.totals, view.target, side, outcomes, future_rounds(view.rules),
                              seed=seed)
    return Odds(round_chance, match_chance, worlds)


def seat_views(public: SpectatorView, count: int, seed: int = 0) -> list[View]:
    """``count`` views of the seat to play that a spectator's ``public`` view allows: its hand
    (and the face-down centre cards, where it captured them) drawn at random from the cards no
    spectator has seen, nothing else known. A function of ``public`` and ``seed`` alone: where the
    hidden cards lie does not change what it draws."""
    seat = public.turn
    if seat is None:
        raise ValueError("no odds from this view: no play is due")
    rules = public.rules
    played = {play.card for play in public.plays}
    known = played | {card for card in public.centre_dealt if card is not None}
    if public.shown is not None:
        known.add(public.shown)
    unseen = [card for card in ALL_CARDS[: rules.deck_size] if card not in known]
    size = public.hand_sizes[seat]
    held: list[Card] = []
    shown = public.shown
    if shown is not None and shown not in played and public.stock_size == 0 and public.dealer == seat:
        held.append(shown)  # the dealer took the shown card with the stock's last batch
    hidden = sum(1 for card in public.centre_dealt if card is None)
    first = next((play for play in public.plays if play.taken), None)
    captured_by_seat = hidden and public.face_down == 0 and first is not None and first.seat == seat
    seen_hidden = hidden if captured_by_seat else 0
    common = {field.name: getattr(public, field.name) for field in fields(PublicView)}
    rng = random.Random(f"spectator-odds:{seed}")
    views = []
    for _ in range(count):
        drawn = rng.sample(unseen, size - len(held) + seen_hidden)
        views.append(View(seat=seat, hand=tuple(sorted(held + drawn[: size - len(held)])),
                          face_down_seen=tuple(drawn[size - len(held):]), **common))
    return views


def spectator_odds(public: SpectatorView, *, worlds: int = ODDS_WORLDS, hands: int = SPECTATOR_HANDS,
                   seed: int = 0) -> Odds:
    """The chance that the side of the seat to play wins the round and the match, from what a
    spectator may see: :func:`seat_views` draws ``hands`` hands for that seat, each a view whose
    own worlds (``worlds // hands`` of them) are played out as :func:`odds` plays them; no hidden
    card is read."""
    per_hand = max(1, worlds // hands)
    rows = []
    for index, view in enumerate(seat_views(public, hands, seed)):
        exact = exact_outcome(view)
        rows.append(np.array([exact] * per_hand, np.float64) if exact is not None
                    else world_outcomes(view, worlds=per_hand, seed=seed + index))
    outcomes = np.concatenate(rows)
    assert public.turn is not None
    side = public.rules.side_of(public.turn)
    match_chance = match_odds(public.rules, public.totals, public.target, side, outcomes,
                              future_rounds(public.rules), seed=seed)
    return Odds(round_odds(outcomes, side), match_chance, len(outcomes))


__all__ = ["MAX_ROUNDS", "ODDS_WORLDS", "POOL_ROUNDS", "SPECTATOR_HANDS", "Odds", "exact_outcome",
           "future_rounds", "match_odds", "odds", "round_odds", "seat_views", "spectator_odds",
           "world_outcomes"]
