"""The master's strength against the expert: at its default budget, against time, on every
preset, and beside the perfect-information ceiling, on duplicate deals.

Each figure is the mean point difference per round over the expert, or over ``--opponent`` (the
seat rotations of a deal averaged, so the luck of the cards cancels) with its 95% interval.
``--save`` writes the per-deal differences as JSON, so that two runs over the same deals (e.g.
this master and an earlier one, or the master and the ceiling) can be compared deal by deal with
``compare``.

    PYTHONPATH=src python benchmarks/master_curve.py strength --preset pisti --deals 2000
    PYTHONPATH=src python benchmarks/master_curve.py strength --preset pisti --player ceiling
    PYTHONPATH=src python benchmarks/master_curve.py strength --preset pisti --player ceiling \\
        --opponent random --iterations 320
    PYTHONPATH=src python benchmarks/master_curve.py compare a.json b.json
    PYTHONPATH=src python benchmarks/master_curve.py curve --preset pisti --ms 1 10 100 1000 \\
        --deals 100 100 40 10 --plot docs/master-curve.png
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence

from kseri import Rules
from kseri.agents import make_agent
from kseri.bench.duplicate import bench_deal, duplicate_round

SEED = "master-bench"
SAVE_EVERY = 50


def interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean and its 95% confidence interval."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / len(values) ** 0.5
    return mean, mean - half, mean + half


def margins(preset: str, player: str, deals: int, first: int, options: dict[str, float],
            save: str | None = None, opponent: str = "expert") -> list[float]:
    """The player's point difference per round over ``opponent`` (built afresh for each deal with
    the deal's index as its seed, so every player meets the same one), deal by deal (written to
    ``save`` as they come, every :data:`SAVE_EVERY` deals, so a long run's part is kept). The
    master is one agent over all the deals, so it reads the opponent as over one long match."""
    rules = Rules.preset(preset)
    level = make_agent("expert") if player == "expert" else make_agent("master", seed=0, **options)
    values: list[float] = []
    for index in range(first, first + deals):
        deal = bench_deal(rules, SEED, index)
        against = make_agent(opponent, seed=index)
        if player == "ceiling":
            from kseri.bench.ceiling import ceiling_duplicate_round
            rollouts = int(options.get("iterations", 1))
            values.append(ceiling_duplicate_round(rules, deal, against, iterations=rollouts))
        else:
            values.append(duplicate_round(rules, deal, [level, against]))
        if save and (len(values) % SAVE_EVERY == 0 or len(values) == deals):
            with open(save, "w") as file:
                json.dump(values, file)
    return values


def report(label: str, values: Sequence[float], seconds: float) -> str:
    mean, low, high = interval(values)
    return f"{label:44} deals {len(values):5}  {mean:+6.2f} [{low:+6.2f}, {high:+6.2f}]  {seconds:6.0f}s"


def strength(args: argparse.Namespace) -> None:
    options: dict[str, float] = {}
    if args.time_ms:
        options["time_ms"] = args.time_ms
    if args.iterations:
        options["iterations"] = args.iterations
    start = time.perf_counter()
    values = margins(args.preset, args.player, args.deals, args.first_deal, options, args.save, args.opponent)
    print(report(f"{args.preset} {args.player} {options or 'default budget'} vs {args.opponent}", values,
                 time.perf_counter() - start), flush=True)


def compare(args: argparse.Namespace) -> None:
    with open(args.first) as file:
        first = json.load(file)
    with open(args.second) as file:
        second = json.load(file)
    deals = min(len(first), len(second))
    if len(first) != len(second):
        print(f"{args.first} has {len(first)} deals, {args.second} {len(second)}: the first {deals} compared")
        first, second = first[:deals], second[:deals]
    mean_first, mean_second = statistics.fmean(first), statistics.fmean(second)
    print(report(f"{args.first} - {args.second} (deal by deal)",
                 [a - b for a, b in zip(first, second, strict=True)], 0.0))
    if args.ceiling:
        with open(args.ceiling) as file:
            ceiling = statistics.fmean(json.load(file)[: len(first)])
        print(f"distance covered towards the ceiling ({ceiling:+.2f}): {args.first} "
              f"{mean_first / ceiling:.1%}, {args.second} {mean_second / ceiling:.1%}")


def curve(args: argparse.Namespace) -> None:
    if len(args.deals) != len(args.ms):
        raise SystemExit("give one --deals count per --ms budget")
    rows = []
    for budget, deals in zip(args.ms, args.deals, strict=True):
        start = time.perf_counter()
        values = margins(args.preset, "master", deals, args.first_deal, {"time_ms": budget})
        mean, low, high = interval(values)
        rows.append((budget, deals, mean, low, high))
        label = f"{args.preset} master {budget:g} ms a move vs expert"
        print(report(label, values, time.perf_counter() - start), flush=True)
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        figure, axes = plt.subplots(figsize=(6, 4))
        axes.errorbar([r[0] for r in rows], [r[2] for r in rows],
                      yerr=[[r[2] - r[3] for r in rows], [r[4] - r[2] for r in rows]], marker="o", capsize=4)
        for budget, deals, mean, _, _ in rows:
            axes.annotate(f"{deals} deals", (budget, mean), textcoords="offset points", xytext=(6, -12),
                          fontsize=8)
        axes.axhline(0, color="grey", linewidth=0.8)
        axes.set_xscale("log")
        axes.set_xlabel("thinking time a move (ms, wall clock, one process)")
        axes.set_ylabel("points a round over the expert (95% interval)")
        axes.set_title(f"The master against time ({args.preset})")
        figure.tight_layout()
        figure.savefig(args.plot, dpi=120)
        print(f"wrote {args.plot}")


def main() -> None:
    """Run the subcommand the command line names."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(required=True)
    one = commands.add_parser("strength", help="the master (or the ceiling, or the expert) against the "
                              "expert (or another opponent)")
    one.add_argument("--preset", default="greek")
    one.add_argument("--player", choices=("master", "ceiling", "expert"), default="master")
    one.add_argument("--opponent", default="expert", help="a level or style (make_agent's names)")
    one.add_argument("--deals", type=int, default=2000)
    one.add_argument("--first-deal", type=int, default=0)
    one.add_argument("--time-ms", type=float, help="the master's time a move (default: its worlds budget)")
    one.add_argument("--iterations", type=int, help="the master's worlds a move (the ceiling's rollouts "
                     "of the true world: 1 by default)")
    one.add_argument("--save", help="write the per-deal differences here (JSON)")
    one.set_defaults(run=strength)
    two = commands.add_parser("compare", help="two saved runs over the same deals, deal by deal")
    two.add_argument("first")
    two.add_argument("second")
    two.add_argument("--ceiling", help="a saved ceiling run: the share of its margin each covers (runs "
                     "against the expert only: against another opponent the margins are not gains)")
    two.set_defaults(run=compare)
    three = commands.add_parser("curve", help="strength against thinking time, as a plot")
    three.add_argument("--preset", default="pisti")
    three.add_argument("--ms", type=float, nargs="+", default=[1, 10, 100, 1000])
    three.add_argument("--deals", type=int, nargs="+", default=[100, 100, 40, 10])
    three.add_argument("--first-deal", type=int, default=0)
    three.add_argument("--plot", help="write the curve here (PNG)")
    three.set_defaults(run=curve)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
