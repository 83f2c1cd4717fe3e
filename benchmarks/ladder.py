"""Where the expert's strength dial lands on the players' rating scale: the sweep that placed the
ladder's rungs (``kseri/agents/ladder.py``, ``docs/bots.md`` "The ladder").

The expert at each strength of ``--strengths`` joins random, greedy and the expert in one
tournament of the bench (every pair on the same duplicate deals, Bradley-Terry on the Elo scale),
and each player's rating is printed anchored with random at 1000, as ``BOT_RATINGS`` is. The
dialled experts are registered as levels of this process only (``s05`` is strength 0.05).

    PYTHONPATH=src python benchmarks/ladder.py --rules greek --deals 200
    PYTHONPATH=src python benchmarks/ladder.py --rules pisti --strengths 0.1 0.3 0.6
"""

from __future__ import annotations

import argparse
from functools import partial

from kseri import Rules
from kseri.agents import AGENTS
from kseri.agents.tempered import dialled_expert
from kseri.bench.report import summarize
from kseri.bench.tournament import TournamentConfig, builtin_player, run_tournament

STRENGTHS = (0.03, 0.06, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6, 0.75, 0.9)
"""The strengths of the sweep that placed the rungs."""
ANCHOR = 1000
"""The rating of ``random`` on the players' scale."""


def main() -> None:
    """Run the sweep and print each player's anchored rating with its interval, weakest first."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="greek", help="a preset (a rule family)")
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals a pair")
    parser.add_argument("--strengths", type=float, nargs="+", default=list(STRENGTHS))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    names = []
    for strength in args.strengths:
        name = f"s{round(strength * 100):02d}"
        AGENTS[name] = partial(dialled_expert, strength=strength, name=name)
        names.append(name)
    players = tuple(builtin_player(level) for level in ("random", "greedy", "expert", *names))
    config = TournamentConfig(players, Rules.preset(args.rules), deals=args.deals, matches=0, seed=args.seed)
    ladder = summarize(run_tournament(config))["ladder"]
    shift = ANCHOR - next(row["elo"] for row in ladder if row["name"] == "random")
    print(f"{args.rules}, {args.deals} duplicate deals a pair, random at {ANCHOR}:")
    for row in reversed(ladder):
        low, high = row["interval"]
        print(f"  {row['name']:>8} {row['elo'] + shift:6.0f}  [{low + shift:.0f}, {high + shift:.0f}]")


if __name__ == "__main__":
    main()
