"""The server's cycle collector: full passes on a clock (``kseri serve``), not at the trigger."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from kseri.engine import _config
from kseri.rules import Rules

PROBE = textwrap.dedent("""
    import gc, time, weakref
    from kseri.cli.serve_cmd import collect_on_a_clock

    class Node:
        pass

    def cycle_in_the_oldest_generation():
        node = Node()
        node.self = node
        gc.collect()  # the survivors of a full pass are in the oldest generation
        return weakref.ref(node)

    collect_on_a_clock(1.5)
    garbage = cycle_in_the_oldest_generation()
    # far more new long-lived objects than the trigger allows (a quarter of those already old)
    # and many passes of the younger generations: the collector's own trigger would have fired
    kept = [[Node() for _ in range(1000)] for _ in range(200)]
    print("after the young passes:", "alive" if garbage() is not None else "collected")
    deadline = time.monotonic() + 10
    while garbage() is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    print("after the clock:", "alive" if garbage() is not None else "collected")
""")


def test_full_passes_come_on_the_clock_and_not_at_the_trigger() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["after the young passes: alive", "after the clock: collected"]


def test_equal_rules_share_one_engine_config() -> None:
    """A server reads each table's rules apart: equal rules must not each build their tables."""
    first, second = Rules.from_options({"target": 101}), Rules.from_options({"target": 101})
    assert first is not second and first == second
    assert _config(first) is _config(second)
    assert _config(Rules.from_options({"target": 151})) is not _config(first)
