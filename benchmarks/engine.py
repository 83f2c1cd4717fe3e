"""Engine speed: random full rounds per second, the cost of ``Match.copy()`` and of ``play`` + ``undo``.

Each figure is the median over repeats of the CPU time of this process (one core; the machine
may be shared), printed beside the same figure for the baseline: the plain reference
implementation of the rules (``tests/engine/reference.py``), run in the same process.

A round goes through the public API, the deal included::

    match = Match(rules, seed=index)
    while match.turn is not None:
        match.play(rng.choice(match.legal_plays()))

``--parts`` adds where a Greek round's time goes, in microseconds: the start (``Match(...)``:
the dealer draw, the deal and its SHA-512 shuffle), the plays before the last one, and the
last play (the sweep, the scoring and the match's settling).

Usage: ``PYTHONPATH=src python benchmarks/engine.py [--repeats 7] [--rounds 2000] [--parts]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "engine"))

import reference

from kseri import Match, Rules
from kseri.cards import ALL_CARDS
from kseri.engine import Deal, shuffled, uniform_below

MakeMatch = Callable[[Rules, int], Any]
ENGINES: dict[str, tuple[MakeMatch, int]] = {
    # name: (how to start a match, how many times the baseline does less work)
    "kseri.engine": (lambda rules, seed: Match(rules, seed=seed), 1),
    "reference": (lambda rules, seed: reference.Match(rules, seed=seed), 20),
}


def rounds_per_second(make: MakeMatch, rules: Rules, rounds: int, seed: int) -> float:
    """Random full rounds per CPU second, the deal included."""
    rng = random.Random(seed)
    start = time.process_time()
    for index in range(rounds):
        match = make(rules, index)
        while match.turn is not None:
            match.play(rng.choice(match.legal_plays()))
    return rounds / (time.process_time() - start)


class NoGame:
    """A stand-in match that keeps no game: 48 plays from a 6-card hand, to time the loop alone."""

    def __init__(self, rules: Rules, seed: int) -> None:
        self.left = 48
        self.hand = [0, 1, 2, 3, 4, 5]

    @property
    def turn(self) -> int | None:
        return 0 if self.left else None

    def legal_plays(self) -> list[int]:
        return self.hand[:]

    def play(self, card: int) -> None:
        self.left -= 1


def mid_round(make: MakeMatch, plays: int) -> Any:
    """A Greek match some plays into its first round."""
    match, rng = make(Rules.preset("greek"), 1), random.Random(1)
    for _ in range(plays):
        match.play(rng.choice(match.legal_plays()))
    return match


def micros(action: Callable[[], object], number: int) -> float:
    """CPU microseconds per call of ``action``."""
    start = time.process_time()
    for _ in range(number):
        action()
    return (time.process_time() - start) / number * 1e6


def play_and_undo(match: Any) -> Callable[[], object]:
    """One play of the first legal card, then its undo."""

    def action() -> object:
        match.play(match.legal_plays()[0])
        return match.undo()

    return action


def parts(rounds: int, repeats: int) -> dict[str, float]:
    """Median CPU microseconds per Greek round of each part of a random round."""
    rules = Rules.preset("greek")
    rng = random.Random(0)
    starts = [Match(rules, seed=index) for index in range(rounds)]
    choices = []
    for match in starts:
        played = match.copy()
        choices.append([])
        while played.turn is not None:
            choices[-1].append(rng.choice(played.legal_plays()))
            played.play(choices[-1][-1])
    before_last = []
    for match, cards in zip(starts, choices, strict=True):
        before_last.append(match.copy())
        for card in cards[:-1]:
            before_last[-1].play(card)

    def start() -> None:
        for index in range(rounds):
            Match(rules, seed=index)

    def dealer_draw() -> None:
        for index in range(rounds):
            uniform_below(f"{index}:dealer", 0, 2)

    def deal() -> None:
        for index in range(rounds):
            Deal.shuffle(rules, 0, f"{index}:0")

    def shuffle() -> None:
        for index in range(rounds):
            shuffled(ALL_CARDS[:52], f"{index}:0", 0)

    def copies() -> None:
        for match in starts:
            match.copy()

    def late_copies() -> None:
        for match in before_last:
            match.copy()

    def plays_but_last() -> None:
        for match in starts:
            match = match.copy()
            for _ in range(47):
                match.play(rng.choice(match.legal_plays()))

    def last_plays() -> None:
        for match, cards in zip(before_last, choices, strict=True):
            match.copy().play(cards[-1])

    def micros_per_round(action: Callable[[], None]) -> float:
        runs = []
        for _ in range(repeats):
            begin = time.process_time()
            action()
            runs.append((time.process_time() - begin) / rounds * 1e6)
        return statistics.median(runs)

    copy = micros_per_round(copies)
    return {
        "start: Match(rules, seed)": micros_per_round(start),
        "  dealer draw (one SHA-512)": micros_per_round(dealer_draw),
        "  Deal.shuffle": micros_per_round(deal),
        "    of which shuffled(deck)": micros_per_round(shuffle),
        "47 plays with legal_plays + choice": micros_per_round(plays_but_last) - copy,
        "the last play (sweep, score, settle)": micros_per_round(last_plays) - micros_per_round(late_copies),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="repeats of each figure (median)")
    parser.add_argument("--rounds", type=int, default=2000, help="rounds per repeat for the engine")
    parser.add_argument("--parts", action="store_true", help="also print where a Greek round's time goes")
    args = parser.parse_args()
    figures: dict[str, dict[str, str]] = {}
    for name, (make, slower) in ENGINES.items():
        column = figures.setdefault(name, {})
        for preset in ("greek", "pisti"):
            rules = Rules.preset(preset)
            runs = [rounds_per_second(make, rules, max(1, args.rounds // slower), seed)
                    for seed in range(args.repeats)]
            column[f"{preset} rounds/s"] = f"{statistics.median(runs):,.0f}"
        match = mid_round(make, 20)
        number = 20000 // slower
        for row, action in (("copy (us)", match.copy), ("play+undo (us)", play_and_undo(match))):
            column[row] = f"{statistics.median(micros(action, number) for _ in range(args.repeats)):.2f}"
    print(f"python {sys.version.split()[0]}, CPU time of one process, medians of {args.repeats} repeats")
    print(f"{'figure':16}" + "".join(f"{name:>15}" for name in figures))
    for row in figures["kseri.engine"]:
        print(f"{row:16}" + "".join(f"{column[row]:>15}" for column in figures.values()))
    loop = statistics.median(
        rounds_per_second(NoGame, Rules.preset("greek"), args.rounds, seed) for seed in range(args.repeats)
    )
    print(f"the loop alone (a stand-in match that keeps no game): {loop:,.0f} rounds/s")
    if args.parts:
        print(f"where a Greek round's time goes (us per round; the loop alone: {1e6 / loop:.1f}):")
        for part, value in parts(args.rounds, args.repeats).items():
            print(f"  {part:40}{value:8.1f}")


if __name__ == "__main__":
    main()
