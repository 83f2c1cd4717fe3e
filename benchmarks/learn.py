"""What the tutorial costs: the time to play every lesson through the engine into its scripts
(once per language; the server caches it), beside the baseline of playing the same number of
plays on fresh matches; and the weight of what the page loads for it.

Run: ``PYTHONPATH=src python benchmarks/learn.py [--repeats 7]``. Prints medians in milliseconds
and sizes in bytes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from kseri.engine import Match
from kseri.learn import LANGUAGES, LESSONS, build_tutorial
from kseri.learn.text import lesson_texts

WEB = Path(__file__).resolve().parents[1] / "src" / "kseri" / "web"


def median_ms(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def engine_baseline() -> None:
    """As many plays as the lessons make (preludes and steps), on fresh seeded matches."""
    for lesson in LESSONS:
        match = Match(seed=lesson.id)
        plays = lesson.prelude + 2 * len(lesson.steps)
        for _ in range(min(plays, 48)):
            match.play(match.legal_plays()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    for lang in LANGUAGES:
        lesson_texts(lang)  # the text files are read once
    print(f"build_tutorial('en'): {median_ms(lambda: build_tutorial('en'), args.repeats):.1f} ms (median)")
    print(f"baseline, the same plays on fresh matches: {median_ms(engine_baseline, args.repeats):.1f} ms")
    for lang in LANGUAGES:
        body = json.dumps(build_tutorial(lang), ensure_ascii=False).encode()
        print(f"/api/learn/{lang}: {len(body)} bytes, {len(gzip.compress(body))} gzipped")
    for path in (WEB / "js" / "learn.js", WEB / "css" / "learn.css"):
        print(f"{path.relative_to(WEB)}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
