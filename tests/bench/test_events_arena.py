"""Arena pairing on hand-worked queues."""

from __future__ import annotations

from kseri.bench.arena import pair_waiting


def test_closest_score() -> None:
    # 9 meets 8 (gap 1), 4 meets 3 (gap 1)
    assert pair_waiting({"a": 9, "b": 8, "c": 4, "d": 3}) == [("a", "b"), ("c", "d")]


def test_no_immediate_rematch() -> None:
    # a just met b: a takes c (gap 3), b waits
    assert pair_waiting({"a": 9, "b": 8, "c": 6}, {"a": "b", "b": "a"}) == [("a", "c")]
