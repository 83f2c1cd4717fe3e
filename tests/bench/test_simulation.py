"""Simulations: the same tally and records, in match order, wherever their pieces are played."""

from typing import Any

import pytest

from kseri import Rules
from kseri.bench.executors import Executor, ProcessPool
from kseri.bench.simulation import run_simulation, simulated_match
from kseri.records import record_from_match


def test_a_process_pool_gives_the_records_and_tally_of_this_process() -> None:
    rules = Rules.preset("pisti")
    runs = []
    for executor in (Executor(), ProcessPool(2)):
        records: list[dict[str, Any]] = []
        done: list[int] = []
        tally = run_simulation(rules, 30, "pool", executor, records.append, done.append)
        assert sum(done) == 30 and len(done) > 1  # several pieces
        runs.append((tally, records))
    assert runs[0] == runs[1]
    tally, records = runs[0]
    assert tally.matches == 30 and sum(tally.wins) == 30 and tally.rounds > 30
    # Match 17's record is the 18th line, as a run of one match at a time writes it.
    assert records[17] == record_from_match(simulated_match(rules, "pool", 17))


def test_a_simulation_needs_a_match() -> None:
    with pytest.raises(ValueError, match="at least one match, not 0"):
        run_simulation(Rules.preset("pisti"), 0, "none", Executor())
