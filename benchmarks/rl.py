"""Research interfaces: environment steps per second, and OpenSpiel's IS-MCTS on the bench.

Speed: steps per second on one core of the Gymnasium environment (the learner's steps, random
legal actions, greedy opponents), the PettingZoo AEC environment (every seat's steps, random
legal actions) and the OpenSpiel game (plays of random playouts, deal included), each beside
the bare engine playing the same random rounds (``Match.play``, no observations) as the
baseline; medians of ``--repeats`` timed runs. The vectorised Gymnasium environment on the
compiled core (``KseriVectorEnv``, ``--envs`` games a step, greedy and then expert opponents)
counts the learner's steps of ``--vector-steps`` calls to ``step`` with random legal actions
drawn in numpy from the masks (that drawing included in the time); numba's warm-up (compiling
the kernels, or loading them from the disk cache) is timed apart, before the runs.
Strength: IS-MCTS against built-in levels on the duplicate-deal bench, the mean point
difference per round with a 95% confidence interval.

    PYTHONPATH=src python benchmarks/rl.py                        # speed, and IS-MCTS on 30 deals
    PYTHONPATH=src python benchmarks/rl.py --deals 100 --simulations 400 --levels greedy expert
    PYTHONPATH=src python benchmarks/rl.py --deals 0              # speed only
    PYTHONPATH=src python benchmarks/rl.py --deals 0 --envs 1024 --vector-steps 200
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import numpy as np
import pyspiel

from kseri import Match, Rules
from kseri.agents import make_agent
from kseri.bench.duplicate import bench_deal, duplicate_round
from kseri.bench.stats import mean_interval
from kseri.engine import random_round
from kseri.rl.gym_env import KseriEnv
from kseri.rl.ismcts import ISMCTSAgent
from kseri.rl.openspiel_game import GAME_NAME
from kseri.rl.pettingzoo_env import raw_env
from kseri.rl.vector_env import KseriVectorEnv


def engine_steps(rules: Rules, rounds: int) -> int:
    rng = random.Random(1)
    for index in range(rounds):
        random_round(Match(rules, seed=index), rng)
    return rounds * (rules.deck_size - rules.centre_size)


def gym_steps(rules: Rules, rounds: int) -> int:
    env = KseriEnv(rules, opponents="greedy", seat=None)
    rng = np.random.default_rng(1)
    steps = 0
    for index in range(rounds):
        observation, _ = env.reset(seed=index)
        done = False
        while not done:
            action = rng.choice(np.flatnonzero(observation["action_mask"]))
            observation, _, done, _, _ = env.step(int(action))
            steps += 1
    return steps


def pettingzoo_steps(rules: Rules, rounds: int) -> int:
    env = raw_env(rules)
    rng = np.random.default_rng(1)
    steps = 0
    for index in range(rounds):
        env.reset(seed=index)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
                steps += 1
    return steps


def openspiel_steps(rules: Rules, rounds: int) -> int:
    game = pyspiel.load_game(GAME_NAME, {"preset": rules.name})
    rng = random.Random(1)
    steps = 0
    for _ in range(rounds):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
    return steps


def vector_rate(rules: Rules, envs: int, steps: int, repeats: int, opponents: str) -> float:
    """Median learner steps per second of ``KseriVectorEnv`` over ``repeats`` timed runs of
    ``steps`` calls to ``step``, random legal actions drawn in numpy from the masks."""
    env = KseriVectorEnv(envs, rules, opponents=opponents, seat=None)
    observations, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            masks = observations["action_mask"]
            actions = (rng.random(masks.shape, np.float32) * masks).argmax(axis=1)
            observations, *_ = env.step(actions)
        rates.append(envs * steps / (time.perf_counter() - start))
    return statistics.median(rates)


def vector_warm_up(rules: Rules) -> float:
    """Seconds for numba to compile the vectorised environment's kernels or load them from
    its disk cache (the first environment's reset and step)."""
    start = time.perf_counter()
    env = KseriVectorEnv(1, rules)
    env.reset(seed=0)
    env.step(env.action_masks().argmax(axis=1))
    return time.perf_counter() - start


def rate(run: Callable[[Rules, int], int], rules: Rules, rounds: int, repeats: int) -> float:
    """Median steps per second over ``repeats`` timed runs."""
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        steps = run(rules, rounds)
        rates.append(steps / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default="greek")
    parser.add_argument("--rounds", type=int, default=40, help="rounds per timed run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--deals", type=int, default=30, help="duplicate deals per IS-MCTS pairing")
    parser.add_argument("--simulations", type=int, default=200, help="IS-MCTS simulations per move")
    parser.add_argument("--levels", nargs="+", default=["greedy", "expert"])
    parser.add_argument("--envs", type=int, default=1024, help="games in the vectorised environment")
    parser.add_argument("--vector-steps", type=int, default=100, help="vectorised steps per timed run")
    args = parser.parse_args()
    rules = Rules.from_spec(args.rules)
    print(f"rules {rules.name}; steps per second on one core, "
          f"median of {args.repeats} runs of {args.rounds} rounds")
    baseline = rate(engine_steps, rules, args.rounds, args.repeats)
    print(f"  engine (Match.play, random plays)        {baseline:10,.0f}  (baseline)")
    for label, run in (("gymnasium (learner steps, greedy bots)", gym_steps),
                       ("pettingzoo AEC (all seats)", pettingzoo_steps),
                       ("openspiel (random playouts)", openspiel_steps)):
        value = rate(run, rules, args.rounds, args.repeats)
        print(f"  {label:<40} {value:10,.0f}  ({value / baseline:.2f} x baseline)")
    print(f"  numba warm-up of the vectorised environment: {vector_warm_up(rules):.2f} s "
          "(compile, or load from the disk cache)")
    for opponents in ("greedy", "expert"):
        value = vector_rate(rules, args.envs, args.vector_steps, args.repeats, opponents)
        label = f"vector ({args.envs} envs, {opponents} bots)"
        print(f"  {label:<40} {value:10,.0f}  ({value / baseline:.2f} x baseline)")
    for level in args.levels if args.deals else ():
        agent = ISMCTSAgent(seed=1, simulations=args.simulations)
        opponent = make_agent(level, seed=1)
        start = time.perf_counter()
        diffs = [duplicate_round(rules, bench_deal(rules, "rl-ismcts", index), [agent, opponent])
                 for index in range(args.deals)]
        elapsed = time.perf_counter() - start
        interval = mean_interval(diffs)
        low = f"{interval.low:+.2f}" if interval.low is not None else "?"
        high = f"{interval.high:+.2f}" if interval.high is not None else "?"
        print(f"ismcts ({args.simulations} simulations) vs {level}: "
              f"{interval.estimate:+.2f} points a round "
              f"[{low}, {high}] over {args.deals} duplicate deals ({elapsed:.0f} s)")


if __name__ == "__main__":
    main()
