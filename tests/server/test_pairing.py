"""Pairing: the nearest ratings first, the range widening with waiting time, whole tables."""

from __future__ import annotations

from kseri.server.pairing import RANGE_GROWTH, RANGE_START, Seek, groups, nearest_bot_level
from kseri.server.ratings import BOT_RATINGS


def seeker(name: str, rating: float, since: float = 0.0) -> Seek:
    return Seek(name, name, name, "greek", 20, rating, since=since)


def names(found: list[list[Seek]]) -> list[list[str]]:
    return [[seek.id for seek in group] for group in found]


def test_the_nearest_ratings_are_paired_first() -> None:
    seeks = [seeker("a", 1500), seeker("b", 1580), seeker("c", 1590), seeker("d", 1300)]
    assert names(groups(seeks, 2, now=0.0)) == [["b", "c"]]


def test_the_range_widens_while_waiting() -> None:
    far = 1500 + RANGE_START + 10 * RANGE_GROWTH
    seeks = [seeker("a", 1500), seeker("b", far)]
    assert groups(seeks, 2, now=9.0) == []
    assert names(groups(seeks, 2, now=10.0)) == [["a", "b"]]
    # one of the two waiting long enough is enough
    late = [seeker("a", 1500, since=0.0), seeker("b", far, since=10.0)]
    assert names(groups(late, 2, now=10.0)) == [["a", "b"]]


def test_tables_of_three_and_four() -> None:
    seeks = [seeker(str(i), 1500 + 10 * i) for i in range(7)]
    found = groups(seeks, 3, now=0.0)
    assert [len(group) for group in found] == [3, 3]
    assert len(groups(seeks, 4, now=0.0)) == 1



def test_the_bot_offered_is_the_ladders_level_nearest_the_rating() -> None:
    greek = BOT_RATINGS["greek"]
    assert nearest_bot_level("greek", greek["expert-35"] + 20) == "expert-35"
    assert nearest_bot_level("greek", greek["expert-18"] - 15) == "expert-18"
    assert nearest_bot_level("greek", 3000) == "master"
    assert nearest_bot_level("greek", 0) == "expert-5"  # random and greedy are no rungs
    assert nearest_bot_level("children", 1500) == "expert"  # a family not measured
