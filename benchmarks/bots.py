"""Bot strength and speed: duplicate deals between levels, move times, endgame solve times.

Strength: each level against the one below on duplicate deals (every deal played once per
seat rotation, so the luck of the cards cancels), as the mean point difference per round with a
95% confidence interval. Speed: each level's time per move on one core (median and 95th
percentile, greedy as the baseline), and the exact endgame solve of a Greek round's last 12
plays.

    PYTHONPATH=src python benchmarks/bots.py                  # 2,000 deals a pairing
    PYTHONPATH=src python benchmarks/bots.py --deals 200      # a quick run
    PYTHONPATH=src python benchmarks/bots.py --deals 2000 --master-deals 400
    PYTHONPATH=src python benchmarks/bots.py --skip-strength \
        --master-opponents expert noisy-expert-2 greedy random
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import time
from collections.abc import Sequence

from kseri import Match, Rules
from kseri.agents import Agent, make_agent
from kseri.agents.endgame import solve
from kseri.agents.master import MasterAgent, play_classes
from kseri.agents.sampler import Sampler
from kseri.bench.duplicate import bench_deal, duplicate_round
from kseri.bench.gauntlet import builtin
from kseri.cli.gauntlet_cmd import default_pool

PAIRINGS = (
    ("greek", "expert", "greedy"),
    ("greek", "master", "expert"),
    ("pisti", "expert", "greedy"),
    ("pisti", "master", "expert"),
    ("pisti", "master", "greedy"),
)
SEED = "bots-benchmark"

_agents: dict[str, Agent] = {}
_options: dict[str, dict[str, int]] = {}


def _init(options: dict[str, dict[str, int]]) -> None:
    _options.update(options)


def _agent(name: str, seat: int) -> Agent:
    key = f"{name}:{seat}"
    if key not in _agents:
        _agents[key] = make_agent(name, seed=seat, **_options.get(name, {}))
    return _agents[key]


def _duplicate(task: tuple[str, str, str, int]) -> float:
    preset, first, second, index = task
    rules = Rules.preset(preset)
    return duplicate_round(rules, bench_deal(rules, SEED, index), [_agent(first, 0), _agent(second, 1)])


def interval(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% confidence interval."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("inf")
    return mean, half


def strength(pairings: Sequence[tuple[str, str, str]], deals: int, master_deals: int, first_deal: int,
             workers: int, options: dict[str, dict[str, int]]) -> None:
    """Print each pairing's mean point difference per round (and its standard deviation, so
    that runs over disjoint deals can be pooled)."""
    print(f"{'preset':8} {'pairing':20} {'deals':>6} {'mean diff/round':>16} {'95% CI':>18} {'sd':>6} "
          f"{'time':>7}")
    with multiprocessing.Pool(workers, initializer=_init, initargs=(options,)) as pool:
        for preset, first, second in pairings:
            count = master_deals if "master" in (first, second) else deals
            start = time.perf_counter()
            tasks = [(preset, first, second, index) for index in range(first_deal, first_deal + count)]
            diffs = pool.map(_duplicate, tasks, chunksize=max(1, count // (workers * 8)))
            mean, half = interval(diffs)
            print(f"{preset:8} {first + ' vs ' + second:20} {count:6} {mean:+16.2f} "
                  f"{f'[{mean - half:+.2f}, {mean + half:+.2f}]':>18} {statistics.stdev(diffs):6.2f} "
                  f"{time.perf_counter() - start:6.0f}s", flush=True)


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _elapsed(start: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = _clock()
    return wall - start[0], cpu - start[1]


def _summary(label: str, times: list[tuple[float, float]]) -> str:
    """Median and 95th percentile of wall-clock and CPU times, in ms."""
    parts = []
    for name, index in (("wall", 0), ("cpu", 1)):
        values = sorted(t[index] for t in times)
        parts.append(f"{name} median {1000 * statistics.median(values):8.3f} p95 "
                     f"{1000 * values[int(0.95 * len(values))]:8.3f}")
    return f"{label:38} n={len(times):4}  " + "   ".join(parts) + "  (ms)"


def _timed_moves(rules: Rules, bot: Agent, other: Agent,
                 rounds: int) -> tuple[list[tuple[float, float]], list[int]]:
    """``bot``'s times per move at the even seats of ``rounds`` bench rounds against ``other``,
    and, for the master, its worlds on each move with a choice."""
    times: list[tuple[float, float]] = []
    worlds: list[int] = []
    for index in range(rounds):
        match = Match(rules, deal=bench_deal(rules, "times", index))
        while (seat := match.turn) is not None:
            view = match.view(seat)
            if seat % 2 == 0:
                start = _clock()
                card = bot.choose(view)
                times.append(_elapsed(start))
                if isinstance(bot, MasterAgent) and len(play_classes(view.hand, rules.points_table)) > 1:
                    worlds.append(bot.last_worlds)
            else:
                card = other.choose(view)
            match.play(card)
    return times, worlds


def move_times(preset: str, rounds: int, options: dict[str, dict[str, int]]) -> None:
    """Print each level's time per move (one core), playing against the level below."""
    rules = Rules.preset(preset)
    below = {"greedy": "random", "expert": "greedy", "master": "expert"}
    for level, opponent in below.items():
        bot = make_agent(level, seed=1, **options.get(level, {}))
        times, worlds = _timed_moves(rules, bot, make_agent(opponent, seed=2), rounds)
        print(_summary(f"{preset} {level} move", times), flush=True)
        if isinstance(bot, MasterAgent):
            print(f"{preset} master worlds a move (searched moves): median {statistics.median(worlds):.0f}, "
                  f"mean {statistics.fmean(worlds):.0f}, n={len(worlds)}", flush=True)


def master_times(preset: str, rounds: int, opponents: Sequence[str],
                 options: dict[str, dict[str, int]]) -> None:
    """Print the master's time per move against each opponent: the style it reads there decides
    how the end is played (solved against the expert, rolled out against the others)."""
    rules = Rules.preset(preset)
    pool = {entrant.name: entrant for entrant in default_pool() if entrant.make is not None}
    for opponent in opponents:
        entrant = pool.get(opponent) or builtin(opponent)
        assert entrant.make is not None
        master = make_agent("master", seed=1, **options.get("master", {}))
        times, _ = _timed_moves(rules, master, entrant.make(seed=2), rounds)
        print(_summary(f"{preset} master against {opponent}", times), flush=True)


def endgame_times(rounds: int) -> None:
    """Print the exact solve time of a Greek round's last 12 plays, and the master's whole move there."""
    rules = Rules.preset("greek")
    expert = make_agent("expert")
    master = make_agent("master", seed=1)
    rng = random.Random(0)
    solves: list[tuple[float, float]] = []
    moves: list[tuple[float, float]] = []
    for index in range(rounds):
        match = Match(rules, deal=bench_deal(rules, "endgame", index))
        while len(match.plays[-1]) < 36:
            match.play(expert.choose(match.view(match.turn or 0)))
        view = match.view(match.turn or 0)
        sampler = Sampler(view)
        world = sampler.states(sampler.pools(rng, 1))[0]
        start = _clock()
        solve(rules, world, view.side)
        solves.append(_elapsed(start))
        start = _clock()
        master.choose(view)
        moves.append(_elapsed(start))
    print(_summary("greek endgame solve, last 12 plays", solves))
    print(_summary("greek master move, last 12 plays", moves))


def main() -> None:
    """Run the benchmark with the command line's sizes."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=2000, help="duplicate deals per pairing")
    parser.add_argument("--master-deals", type=int, help="duplicate deals for pairings with master")
    parser.add_argument("--workers", type=int, default=2, help="processes for the duplicate deals")
    parser.add_argument("--iterations", type=int, help="the master's worlds per move (default its own)")
    parser.add_argument("--time-rounds", type=int, default=10, help="rounds per level timed")
    parser.add_argument("--first-deal", type=int, default=0, help="index of the first bench deal")
    parser.add_argument("--pairing", action="append", metavar="PRESET:FIRST:SECOND",
                        help="only these pairings (repeatable), e.g. greek:master:expert")
    parser.add_argument("--master-opponents", nargs="+", metavar="NAME",
                        help="also time the master against these: levels, or the gauntlet pool's "
                             "opponents by name (noisy-expert-2, pisti-hunter, ...)")
    parser.add_argument("--skip-strength", action="store_true", help="only the timings")
    parser.add_argument("--skip-times", action="store_true", help="only the strength")
    args = parser.parse_args()
    options = {"master": {"iterations": args.iterations}} if args.iterations else {}
    pairings = [tuple(spec.split(":")) for spec in args.pairing] if args.pairing else PAIRINGS
    if any(len(pairing) != 3 for pairing in pairings):
        parser.error("a pairing looks like greek:master:expert")
    if not args.skip_times:
        print("== move times, one process (wall clock, and CPU time which load on the machine spares) ==")
        for preset in ("greek", "pisti"):
            move_times(preset, args.time_rounds, options)
            master_times(preset, args.time_rounds, args.master_opponents or [], options)
        endgame_times(max(20, args.time_rounds * 4))
    if not args.skip_strength:
        print("== strength: duplicate deals, mean point difference per round of the first ==")
        strength(pairings, args.deals, args.master_deals or args.deals, args.first_deal,
                 args.workers, options)


if __name__ == "__main__":
    main()
