"""Fair-play signals: boosting, sandbagging, assisted play and seek spam.

Each signal is a pure function over what the server knows of finished rated games (and of
quick-game seeks), for a moderator to look into: a signal, never a verdict, and nothing here
bans anyone. The thresholds (:class:`Thresholds`) were chosen on simulated populations of
honest bots and cheaters (``benchmarks/fairplay.py``); ``docs/fairplay.md`` gives each one,
how it was chosen and its measured detection and false-positive rates.

The signals read two-player games; partnership and three-player games are left out.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

Ending = Literal["played", "resigned", "timeout", "abandoned"]
"""How a game ended: played out, or its loser resigned, ran out of time or left."""
SeekOutcome = Literal["paired", "withdrawn", "expired"]
SignalKind = Literal["boosting", "sandbagging", "assisted", "seek-spam"]


@dataclass(frozen=True, slots=True)
class RatedGame:
    """One finished rated two-player game, as the signals read it (each pair's entries by
    seat: 0, then 1)."""

    table: str
    at: float
    """When it ended (UNIX time)."""
    players: tuple[str, str]
    """The two accounts."""
    winner: int | None
    """The winning seat (``None``: a draw)."""
    ending: Ending = "played"
    plays: int = 0
    """Plays made in the match (both players)."""
    ratings_before: tuple[float, float] = (1500.0, 1500.0)
    ratings_after: tuple[float, float] = (1500.0, 1500.0)
    accuracy: tuple[float | None, float | None] = (None, None)
    """Each player's accuracy against the master (``kseri.analysis``), when analysed."""
    addresses: tuple[str | None, str | None] = (None, None)
    """The addresses the players played from, where known."""

    def seat_of(self, user: str) -> int:
        """The seat ``user`` played."""
        return self.players.index(user)

    def lost_early(self, seat: int, fast_plays: int) -> bool:
        """Whether ``seat`` lost without playing the match out: it resigned, ran out of time or
        left, or the match lasted at most ``fast_plays`` plays."""
        lost = self.winner is not None and self.winner != seat
        return lost and (self.ending != "played" or self.plays <= fast_plays)


@dataclass(frozen=True, slots=True)
class Seek:
    """One quick-game seek."""

    user: str
    at: float
    outcome: SeekOutcome


@dataclass(frozen=True, slots=True)
class Signal:
    """Something for a moderator to look at."""

    kind: SignalKind
    subjects: tuple[str, ...]
    """The accounts (or addresses) concerned, the one who gains first."""
    evidence: str
    """What was seen, in one sentence."""
    tables: tuple[str, ...] = ()
    """The games behind it."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Where each signal fires (chosen in ``docs/fairplay.md``)."""

    boost_games: int = 6
    """Rated games between the same two accounts (or addresses) before boosting is looked for."""
    boost_one_sided: float = 0.8
    """The share of those games one side must have lost..."""
    boost_fast: float = 0.75
    """... and the share of its losses that were early (resigned, timed out, left, or short)."""
    fast_plays: int = 40
    """A match of at most this many plays is short (a Greek match to 101 lasts about 200)."""
    sandbag_window: int = 10
    """Consecutive games over which a player's early losses are counted."""
    sandbag_rate: float = 0.6
    """The share of a window's games lost early from which sandbagging is looked for..."""
    sandbag_ratio: float = 3.0
    """... when it is this many times the player's usual rate (their other games)..."""
    sandbag_drop: float = 100.0
    """... while their rating fell at least this much over the window."""
    assisted_games: int = 10
    """Analysed rated games before assisted play is looked for."""
    assisted_z: float = 4.0
    """How many standard errors a player's mean accuracy must stand above what players of their
    rating reach..."""
    assisted_margin: float = 5.0
    """... and by at least this many accuracy points."""
    spam_window: float = 3600.0
    """Seconds over which seeks are counted."""
    spam_seeks: int = 30
    """Seeks in a window from which seek spam is looked for..."""
    spam_withdrawn: float = 0.7
    """... when at least this share of them were withdrawn or expired unpaired."""


DEFAULT = Thresholds()
PRIOR_GAMES = 10
"""Games of prior weight in a player's usual rate of early losses (``sandbagging``)..."""
PRIOR_EARLY = 0.1
"""... at this rate."""


def boosting(games: Iterable[RatedGame], limits: Thresholds = DEFAULT) -> list[Signal]:
    """Pairs of accounts, or of addresses, who played each other often with one side losing
    nearly always, and early: the winner is being boosted (first in ``subjects``)."""
    by_pair: dict[tuple[str, str], list[tuple[RatedGame, tuple[str, str]]]] = {}
    for game in games:
        keyed = [game.players]
        first, second = game.addresses
        if first is not None and second is not None:
            keyed.append((f"address {first}", f"address {second}"))
        for names in keyed:
            pair = (min(names), max(names))
            by_pair.setdefault(pair, []).append((game, names))
    found = []
    for pair, played in by_pair.items():
        if len(played) < limits.boost_games or pair[0] == pair[1]:
            continue
        for loser, winner in (pair, pair[::-1]):
            losses = [(game, names.index(loser)) for game, names in played
                      if game.winner is not None and names[game.winner] == winner]
            if len(losses) < limits.boost_one_sided * len(played):
                continue
            early = [game for game, seat in losses if game.lost_early(seat, limits.fast_plays)]
            if len(early) < limits.boost_fast * len(losses):
                continue
            found.append(Signal("boosting", (winner, loser),
                                f"{loser} lost {len(losses)} of {len(played)} rated games against {winner}, "
                                f"{len(early)} of them early", tuple(game.table for game, _ in losses)))
    return found


def sandbagging(games: Iterable[RatedGame], limits: Thresholds = DEFAULT) -> list[Signal]:
    """Players who, over some :attr:`Thresholds.sandbag_window` consecutive games, lost early
    far more often than they did before while their rating fell: losing on purpose (the worst
    such stretch is shown)."""
    by_user: dict[str, list[RatedGame]] = {}
    for game in sorted(games, key=lambda g: g.at):
        for user in game.players:
            by_user.setdefault(user, []).append(game)
    found = []
    window = limits.sandbag_window
    for user, played in by_user.items():
        if len(played) < window:
            continue
        early = [game.lost_early(game.seat_of(user), limits.fast_plays) for game in played]
        worst: tuple[int, float, float, int] | None = None  # early losses, drop, usual rate, start
        for start in range(len(played) - window + 1):
            inside = sum(early[start:start + window])
            rate = inside / window
            # the usual rate: the games before the window, as if ten more had gone by with one
            # early loss (a prior: a new account has no usual rate to fall from)
            usual = (sum(early[:start]) + PRIOR_EARLY * PRIOR_GAMES) / (start + PRIOR_GAMES)
            first, last = played[start], played[start + window - 1]
            drop = first.ratings_before[first.seat_of(user)] - last.ratings_after[last.seat_of(user)]
            unusual = rate >= limits.sandbag_rate and rate >= limits.sandbag_ratio * usual
            if unusual and drop >= limits.sandbag_drop and (worst is None or (inside, drop) > worst[:2]):
                worst = (inside, drop, usual, start)
        if worst is not None:
            inside, drop, usual, start = worst
            found.append(Signal("sandbagging", (user,),
                                f"{user} lost {inside} of {window} rated games early (usually "
                                f"{usual:.0%}) while their rating fell {drop:.0f}",
                                tuple(game.table for game in played[start:start + window])))
    return found


@dataclass(frozen=True, slots=True)
class AccuracyModel:
    """What accuracy players of a rating reach, from a population's games: the median accuracy
    of the games played at each band of ratings, and the spread of one game's accuracy about it."""

    ratings: tuple[float, ...]
    """Each band's mean rating, ascending."""
    accuracies: tuple[float, ...]
    """Each band's median accuracy."""
    spread: float

    def expected(self, rating: float) -> float:
        """The accuracy players of this rating reach: between the nearest bands' (the end
        bands' beyond them)."""
        if rating <= self.ratings[0]:
            return self.accuracies[0]
        for index in range(1, len(self.ratings)):
            if rating <= self.ratings[index]:
                low, high = self.ratings[index - 1], self.ratings[index]
                share = (rating - low) / (high - low)
                below, above = self.accuracies[index - 1], self.accuracies[index]
                return below + share * (above - below)
        return self.accuracies[-1]


def accuracy_model(games: Iterable[RatedGame], band: float = 100.0, least: int = 20) -> AccuracyModel:
    """Fit :class:`AccuracyModel` on every analysed player-game, in bands of ``band`` rating
    points holding at least ``least`` games (medians: a few cheaters do not move it)."""
    return accuracy_model_of([(game.ratings_before[seat], accuracy) for game in games
                              for seat, accuracy in enumerate(game.accuracy) if accuracy is not None],
                             band, least)


def accuracy_model_of(points: Iterable[tuple[float, float]], band: float = 100.0,
                      least: int = 20) -> AccuracyModel:
    """:func:`accuracy_model` from ``(rating before the game, accuracy)`` pairs, one per
    analysed player-game."""
    bands: dict[int, list[tuple[float, float]]] = {}
    for rating, accuracy in points:
        bands.setdefault(math.floor(rating / band), []).append((rating, accuracy))
    kept = [bands[key] for key in sorted(bands) if len(bands[key]) >= least]
    if not kept:
        raise ValueError(f"no band of {band:g} rating points holds {least} analysed games: too few to "
                         "tell what players of a rating reach")
    ratings = tuple(statistics.fmean(r for r, _ in points) for points in kept)
    accuracies = tuple(statistics.median(a for _, a in points) for points in kept)
    partial = AccuracyModel(ratings, accuracies, 1.0)
    residuals = [a - partial.expected(r) for points in kept for r, a in points]
    centre = statistics.median(residuals)
    spread = 1.4826 * statistics.median(abs(x - centre) for x in residuals)
    return AccuracyModel(ratings, accuracies, max(spread, 1e-6))


def assisted(games: Sequence[RatedGame], limits: Thresholds = DEFAULT,
             model: AccuracyModel | None = None) -> list[Signal]:
    """Players whose accuracy against the master over many analysed rated games stands far above
    what players of their rating reach (``model``: fitted on ``games`` when not given)."""
    model = model or accuracy_model(games)
    residuals: dict[str, list[float]] = {}
    tables: dict[str, list[str]] = {}
    for game in games:
        for seat, accuracy in enumerate(game.accuracy):
            if accuracy is not None:
                user = game.players[seat]
                residuals.setdefault(user, []).append(accuracy - model.expected(game.ratings_before[seat]))
                tables.setdefault(user, []).append(game.table)
    found = []
    for user, above in residuals.items():
        if len(above) < limits.assisted_games:
            continue
        mean = statistics.fmean(above)
        z = mean / (model.spread / math.sqrt(len(above)))
        if z >= limits.assisted_z and mean >= limits.assisted_margin:
            found.append(Signal("assisted", (user,),
                                f"{user}'s accuracy over {len(above)} analysed rated games is "
                                f"{mean:.1f} points above what players of their rating reach "
                                f"({z:.1f} standard errors)",
                                tuple(tables[user])))
    return found


def seek_spam(seeks: Iterable[Seek], limits: Thresholds = DEFAULT) -> list[Signal]:
    """Accounts that, within some :attr:`Thresholds.spam_window`, made many seeks and let most
    of them go unpaired (withdrawn or expired): filling the seek list, or fishing for one
    opponent (the busiest such window is shown)."""
    by_user: dict[str, list[Seek]] = {}
    for seek in sorted(seeks, key=lambda s: s.at):
        by_user.setdefault(seek.user, []).append(seek)
    found = []
    for user, made in by_user.items():
        start = 0
        worst: tuple[int, int] | None = None  # seeks in the window, unpaired among them
        for end, seek in enumerate(made):
            while seek.at - made[start].at > limits.spam_window:
                start += 1
            inside = made[start:end + 1]
            unpaired = sum(s.outcome != "paired" for s in inside)
            many = len(inside) >= limits.spam_seeks and unpaired >= limits.spam_withdrawn * len(inside)
            if many and (worst is None or (len(inside), unpaired) > worst):
                worst = (len(inside), unpaired)
        if worst is not None:
            found.append(Signal("seek-spam", (user,),
                                f"{user} made {worst[0]} seeks within {limits.spam_window / 60:.0f} "
                                f"minutes, {worst[1]} of them left unpaired"))
    return found


def signals(games: Sequence[RatedGame], seeks: Iterable[Seek] = (),
            limits: Thresholds = DEFAULT) -> list[Signal]:
    """Every signal over these games and seeks."""
    found = boosting(games, limits) + sandbagging(games, limits) + seek_spam(seeks, limits)
    if any(a is not None for game in games for a in game.accuracy):
        found += assisted(games, limits)
    return found
