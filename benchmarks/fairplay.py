"""Fair-play signals on simulated populations: each signal's detection rate on its cheater and
its false-positive rate on honest players (``docs/fairplay.md``, ``server/fairplay.py``).

Each run simulates a month of rated Greek games in a population of honest players of every
strength from the random bot's to the expert's, plus a booster pair (one account resigning
early to the other, again and again), a sandbagger (who starts losing early on purpose, his
rating falling), a player assisted by the master (who plays the master's card half the time)
and a seek spammer; the ratings move by the server's own model (``server/ratings.py``).
A game's winner follows the players' true strengths (Elo's curve); each player's accuracy
in a game is drawn from what the existing analysis (``kseri.analysis``, the master's review)
measured of bots playing at that strength (``--calibrate`` measures it again).

    PYTHONPATH=src python benchmarks/fairplay.py                 # 100 populations
    PYTHONPATH=src python benchmarks/fairplay.py --runs 300 --players 80
    PYTHONPATH=src python benchmarks/fairplay.py --calibrate 12  # re-measure accuracy per level
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from kseri.agents import make_agent
from kseri.analysis import ANALYSIS_ITERATIONS, analyse_plays
from kseri.cards import Card
from kseri.engine import Match, View
from kseri.rules import Rules
from kseri.server.fairplay import (
    RatedGame,
    Seek,
    Signal,
    Thresholds,
    assisted,
    boosting,
    sandbagging,
    seek_spam,
)
from kseri.server.ratings import BOT_RATINGS, Rating, rate

DAY = 86400.0
STRENGTHS = {level: float(BOT_RATINGS["greek"][level]) for level in ("random", "greedy", "expert", "master")}
ASSIST = 0.5
"""The share of plays the assisted player takes from the master."""
STRENGTHS["assisted"] = (STRENGTHS["greedy"] + STRENGTHS["master"]) / 2

CALIBRATION = {
    "random": (52.0, 7.0),
    "greedy": (72.5, 3.3),
    "expert": (73.8, 5.7),
    "assisted": (84.6, 6.3),
}
"""Each level's accuracy in one game (mean, standard deviation), as the master's analysis
measures it: ``--calibrate 10 --rounds 2`` (10 matches of 2 rounds a level against greedy,
320 worlds a play), docs/fairplay.md."""


class Assisted:
    """A player who plays the master's card with probability :data:`ASSIST`, else greedy's."""

    name = "assisted"

    def __init__(self, seed: int) -> None:
        self.master = make_agent("master", seed=seed)
        self.own = make_agent("greedy", seed=seed)
        self.rng = random.Random(seed)

    def choose(self, view: View) -> Card:
        return (self.master if self.rng.random() < ASSIST else self.own).choose(view)


def analysed_accuracy(level: str, game: int, rounds: int, iterations: int) -> float | None:
    """One match of ``rounds`` rounds of ``level`` against greedy; the level's accuracy in it,
    its plays reviewed by the master's analysis."""
    rules = Rules.from_spec("greek")
    subject = Assisted(game) if level == "assisted" else make_agent(level, seed=game)
    agents = [subject, make_agent("greedy", seed=1000 + game)]
    match = Match(rules, seed=f"calibrate-{level}-{game}")
    plays = []
    for round_index in range(rounds):
        index = 0
        while (seat := match.turn) is not None:
            view = match.view(seat)
            card = agents[seat].choose(view)
            if seat == 0:
                plays.append((view, card, round_index, index))
            match.play(card)
            index += 1
        if match.is_over() or round_index == rounds - 1:
            break
        match.next_round()
    return analyse_plays(plays, [level, "greedy"], iterations=iterations, seed=game).players[0].accuracy


def calibrate(games: int, rounds: int, iterations: int, workers: int) -> dict[str, tuple[float, float]]:
    """Each level's accuracy per game (mean, standard deviation) over ``games`` analysed matches."""
    measured = {}
    with ProcessPoolExecutor(workers) as pool:
        for level in CALIBRATION:
            found = pool.map(analysed_accuracy, [level] * games, range(games), [rounds] * games,
                             [iterations] * games)
            accuracies = [accuracy for accuracy in found if accuracy is not None]
            measured[level] = (statistics.fmean(accuracies), statistics.stdev(accuracies))
            print(f"  {level:9} accuracy {measured[level][0]:5.1f} ± {measured[level][1]:4.1f} "
                  f"({len(accuracies)} games)", flush=True)
    return measured


@dataclass
class Player:
    name: str
    strength: float
    """True strength on the rating scale: decides wins."""
    accuracy: tuple[float, float]
    early: float
    """How often the player resigns or lets the clock run out of a game being lost."""
    rating: Rating
    address: str


def accuracy_at(strength: float, calibration: dict[str, tuple[float, float]]) -> tuple[float, float]:
    """An honest player's accuracy (mean, spread) at this strength: between the levels' figures."""
    levels = sorted(("random", "greedy", "expert"), key=lambda level: STRENGTHS[level])
    for low, high in itertools.pairwise(levels):
        if strength <= STRENGTHS[high]:
            share = max(0.0, (strength - STRENGTHS[low]) / (STRENGTHS[high] - STRENGTHS[low]))
            (low_mean, low_spread), (high_mean, high_spread) = calibration[low], calibration[high]
            return low_mean + share * (high_mean - low_mean), low_spread + share * (high_spread - low_spread)
    return calibration["expert"]


@dataclass
class Population:
    games: list[RatedGame]
    seeks: list[Seek]
    honest: set[str]


def simulate(rng: random.Random, players: int, days: int,
             calibration: dict[str, tuple[float, float]]) -> Population:
    """A month of rated games: honest players, a booster pair (``booster`` resigns early to
    ``boosted``), a sandbagger from the second half of the month, an assisted player, and a
    seek spammer on one evening."""
    people = {}
    for number in range(players):
        strength = rng.uniform(STRENGTHS["random"], STRENGTHS["expert"])
        name = f"honest{number}"
        people[name] = Player(name, strength, accuracy_at(strength, calibration), rng.uniform(0.0, 0.12),
                              Rating(), f"10.0.{number // 250}.{number % 250}")
    for name, strength in (("boosted", 1300.0), ("booster", 1300.0), ("sandbagger", 1550.0)):
        people[name] = Player(name, strength, accuracy_at(strength, calibration), 0.05, Rating(),
                              f"10.1.0.{len(people)}")
    people["assisted"] = Player("assisted", STRENGTHS["assisted"], calibration["assisted"], 0.05, Rating(),
                                "10.1.0.99")
    names = list(people)
    games: list[RatedGame] = []
    seeks: list[Seek] = []
    sandbag_from = days * DAY / 2

    def play(at: float, first: Player, second: Player, *, throw: Player | None = None) -> None:
        chance = 1 / (1 + 10 ** ((second.strength - first.strength) / 400))
        winner = 0 if rng.random() < chance else 1
        ending = "played"
        plays = max(60, int(rng.gauss(200, 40)))
        loser = (first, second)[1 - winner]
        sandbagging_now = loser.name == "sandbagger" and at >= sandbag_from
        if throw is not None:
            winner = 0 if throw is second else 1
            ending, plays = "resigned", rng.randint(4, 30)
        elif sandbagging_now and rng.random() < 0.8:
            ending, plays = rng.choice(["resigned", "timeout"]), rng.randint(4, 60)
        elif (first.name == "sandbagger" or second.name == "sandbagger") and at >= sandbag_from \
                and rng.random() < 0.5:
            # the sandbagger throws games it would have won too
            winner = 1 if first.name == "sandbagger" else 0
            ending, plays = "resigned", rng.randint(4, 60)
        elif rng.random() < loser.early:
            ending = rng.choice(["resigned", "resigned", "timeout", "abandoned"])
            plays = rng.randint(20, plays)
        before = (first.rating, second.rating)
        (after_first,), (after_second,) = rate([[first.rating], [second.rating]], [winner, 1 - winner])
        first.rating, second.rating = after_first, after_second
        accuracy = tuple(min(100.0, max(0.0, rng.gauss(*p.accuracy))) for p in (first, second))
        games.append(RatedGame(f"t{len(games)}", at, (first.name, second.name), winner, ending,  # type: ignore[arg-type]
                               plays, (before[0].mu, before[1].mu), (after_first.mu, after_second.mu),
                               accuracy, (first.address, second.address)))  # type: ignore[arg-type]

    for day in range(days):
        for _ in range(len(names) * 2):  # each player about four games a day
            at = day * DAY + rng.uniform(0, DAY)
            first, second = rng.sample(names, 2)
            play(at, people[first], people[second])
            for name in (first, second):
                outcome = "paired" if rng.random() < 0.9 else rng.choice(["withdrawn", "expired"])
                seeks.append(Seek(name, at - rng.uniform(0, 60), outcome))  # type: ignore[arg-type]
        if day % 3 == 0:  # the booster pair meets every third day: three thrown games (the hourly ceiling)
            for hour in range(3):
                play(day * DAY + 20 * 3600 + hour * 1200, people["boosted"], people["booster"],
                     throw=people["booster"])
    evening = rng.randrange(days) * DAY + 19 * 3600
    for number in range(rng.randint(35, 80)):  # seek, withdraw, seek again
        seeks.append(Seek("spammer", evening + number * 60, "paired" if rng.random() < 0.1 else "withdrawn"))
    for number in range(rng.randint(5, 20)):  # an impatient honest player: many seeks, half withdrawn
        seeks.append(Seek("honest0", evening + number * 150, rng.choice(["paired", "withdrawn"])))
    games.sort(key=lambda game: game.at)
    return Population(games, seeks, {name for name in people if name.startswith("honest")})


SIGNALS = {
    "boosting": ("boosted", lambda p, t: boosting(p.games, t)),
    "sandbagging": ("sandbagger", lambda p, t: sandbagging(p.games, t)),
    "assisted": ("assisted", lambda p, t: assisted(p.games, t)),
    "seek-spam": ("spammer", lambda p, t: seek_spam(p.seeks, t)),
}
"""Each signal: the cheater it should catch, and how to look for it."""

CANDIDATES: dict[str, list[dict[str, float]]] = {
    "boosting": [{"boost_games": g, "boost_fast": f} for g, f in ((4, 0.6), (5, 0.6), (6, 0.75), (8, 0.75))],
    "sandbagging": [{"sandbag_rate": r, "sandbag_drop": d}
                    for r, d in ((0.4, 50), (0.4, 100), (0.5, 50), (0.5, 100), (0.6, 100))],
    "assisted": [{"assisted_z": z, "assisted_margin": m} for z, m in ((3, 2), (3, 4), (4, 5), (5, 7))],
    "seek-spam": [{"spam_seeks": n, "spam_withdrawn": w} for n, w in ((15, 0.5), (30, 0.7), (50, 0.8))],
}
"""The thresholds tried for each signal (the others at their defaults)."""


def flagged(found: Sequence[Signal]) -> set[str]:
    """The accounts a list of signals names first (the gainer)."""
    return {signal.subjects[0] for signal in found}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100, help="populations simulated")
    parser.add_argument("--players", type=int, default=60, help="honest players in each")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--calibrate", type=int, default=0, metavar="GAMES",
                        help="measure each level's accuracy again on this many analysed matches")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each calibration match")
    parser.add_argument("--iterations", type=int, default=ANALYSIS_ITERATIONS, help="the analysis' budget")
    parser.add_argument("--workers", type=int, default=1, help="processes for the calibration")
    args = parser.parse_args()
    calibration = CALIBRATION
    if args.calibrate:
        print(f"calibrating: {args.calibrate} matches of {args.rounds} rounds a level, analysed "
              f"({args.iterations} worlds a play)")
        calibration = calibrate(args.calibrate, args.rounds, args.iterations, args.workers)
    trials = [(kind, options, Thresholds(**options)) for kind, tried in CANDIDATES.items()  # type: ignore[arg-type]
              for options in tried]
    started = time.perf_counter()
    caught = [0] * len(trials)
    false = [0] * len(trials)
    honest_total = 0
    for run in range(args.runs):
        population = simulate(random.Random(args.seed + run), args.players, args.days, calibration)
        honest_total += len(population.honest)
        for index, (kind, _, limits) in enumerate(trials):
            cheater, signal = SIGNALS[kind]
            named = flagged(signal(population, limits))
            caught[index] += cheater in named
            false[index] += len(named & population.honest)
    print(f"{args.runs} populations of {args.players} honest players and 4 cheaters, {args.days} days each "
          f"({time.perf_counter() - started:.0f} s); * the default threshold")
    print(f"{'signal':12} {'thresholds':44} {'detection':>10} {'false positives':>16}")
    default = Thresholds()
    for index, (kind, options, _) in enumerate(trials):
        shown = ", ".join(f"{name}={value:g}" for name, value in options.items())
        mark = "*" if all(getattr(default, name) == value for name, value in options.items()) else " "
        print(f"{kind:12} {shown:43}{mark} {caught[index] / args.runs:10.1%} "
              f"{false[index] / honest_total:16.2%}")


if __name__ == "__main__":
    main()
