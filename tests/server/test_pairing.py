"""Pairing: the nearest ratings first, the range widening with waiting time, whole tables; in a
cluster, the seats kept before they are told, and a takeover never undone by a stale round."""

from __future__ import annotations

import asyncio
from typing import Any

from kseri.server.accounts import User
from kseri.server.pairing import RANGE_GROWTH, RANGE_START, Pairing, Seek, groups, nearest_bot_level
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


class SlowKeeper:
    """A cluster's keeper (``relay.Relay`` in a real one) whose answers can be held back."""

    def __init__(self) -> None:
        self.kept: list[dict[str, Any]] = []
        self.held = True
        self.kept_answer, self.holding_answer = asyncio.Event(), asyncio.Event()
        self.kept_answer.set()
        self.holding_answer.set()
        self.keeping, self.asked = asyncio.Event(), asyncio.Event()

    async def keep(self, seeks: list[dict[str, Any]]) -> None:
        self.keeping.set()
        await self.kept_answer.wait()
        self.kept = seeks

    async def holding(self) -> bool:
        held = self.held  # as Redis answers when asked, however late the answer arrives
        self.asked.set()
        await self.holding_answer.wait()
        return held


async def seat_in_order(family: str, clock: int, rated: bool, seeks: list[Seek]) -> None:
    for seat, seek in enumerate(seeks):
        seek.seat = {"table": "t1", "seat": seat, "token": f"token-{seat}"}


async def test_a_seat_is_told_only_once_it_is_kept() -> None:
    pairing, keeper = Pairing(seat_in_order, bot_offer=60), SlowKeeper()
    pairing.keeper = keeper
    eleni = await pairing.seek(User("e", "Eleni", "", ""), 1500, "greek", 20)
    nikos = await pairing.seek(User("n", "Nikos", "", ""), 1500, "greek", 20)
    keeper.kept_answer.clear()
    pairing.start()
    try:
        async with asyncio.timeout(30):
            while not (eleni.seat and keeper.keeping.is_set()):  # seated, its keeping under way
                await asyncio.sleep(0.01)
            assert pairing.status(eleni)["status"] == "waiting"
            keeper.kept_answer.set()
            await eleni.news.wait()
        assert pairing.status(eleni) == {"status": "paired", "table": "t1", "seat": eleni.seat["seat"],
                                         "token": eleni.seat["token"]}
        seated = sorted(stored["id"] for stored in keeper.kept if stored["seat"])
        assert seated == sorted([eleni.id, nikos.id])
    finally:
        keeper.kept_answer.set()
        await pairing.stop()


async def test_seeks_taken_over_during_a_stale_round_are_not_lost() -> None:
    """A process back from a hang asks whether it still holds its old seeks (no); before the
    answer arrives, a request makes it take the seeks over. The old round must not forget what
    was taken over."""
    pairing, keeper = Pairing(seat_in_order, bot_offer=60), SlowKeeper()
    pairing.keeper = keeper
    await pairing.seek(User("stale", "Stale", "", ""), 1500, "three-player", 20)
    restored = Seek("kept", "cleo", "Cleo", "greek", 20, 1500, seat={"table": "t9", "seat": 1, "token": "x"})
    restored.paired_at = restored.since
    stored = restored.stored(restored.since)
    keeper.held = False
    keeper.holding_answer.clear()
    pairing.start()

    async def take() -> list[dict[str, Any]]:
        keeper.held = True
        return [stored]

    try:
        async with asyncio.timeout(30):
            await keeper.asked.wait()  # the round asks; the answer waits
            taking = asyncio.create_task(pairing.take_over(take))
            for _ in range(10):  # the takeover runs as far as it can
                await asyncio.sleep(0)
            keeper.holding_answer.set()
            await taking
            while [seek["id"] for seek in keeper.kept] != ["kept"]:  # the next round keeps what was taken
                await asyncio.sleep(0.01)
        assert list(pairing.seeks) == ["kept"]
        assert pairing.status(pairing.seeks["kept"])["status"] == "paired"
    finally:
        keeper.holding_answer.set()
        await pairing.stop()
