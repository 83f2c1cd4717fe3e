"""Matchpoints on hand-worked deals, and properties over random fields."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kseri.bench import matchpoints as mp


def test_hand_worked_board() -> None:
    # results 10, 3, 3, -5: a beats 3 -> 3; b ties c, beats d -> 1.5; d -> 0
    assert mp.board_matchpoints({"a": 10, "b": 3, "c": 3, "d": -5}) == {
        "a": 3.0, "b": 1.5, "c": 1.5, "d": 0.0}


def test_totals_and_rank() -> None:
    # board 1: a 2, b 1, c 0; board 2: c 2, a 0.5, b 0.5 -> a 2.5, b 1.5, c 2
    total = mp.total_matchpoints([{"a": 5, "b": 1, "c": 0}, {"a": 0, "b": 0, "c": 9}])
    assert total == {"a": 2.5, "b": 1.5, "c": 2.0}
    assert mp.rank({"a": 1, "b": 1, "c": 0, "d": 0, "e": -1}) == {
        "a": 1, "b": 1, "c": 3, "d": 3, "e": 5}
    assert mp.place_label("e", {"a": 1, "b": 1, "e": 0}) == "#3 of 3"


@given(st.dictionaries(st.text(min_size=1, max_size=3), st.integers(-50, 50), min_size=1))
def test_board_sum(results: dict[str, int]) -> None:
    n = len(results)
    assert sum(mp.board_matchpoints(results).values()) == n * (n - 1) / 2
    places = mp.rank(results)
    for p in results:
        for q in results:
            if results[p] > results[q]:
                assert places[p] < places[q]
