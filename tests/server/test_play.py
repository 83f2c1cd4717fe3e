"""Whole matches through a real server: people-like clients and server-side bots."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import httpx
import pytest
from serverkit import Client, Json, Server, bot, finished, human


def random_card(seed: int) -> Callable[[Json], str]:
    rng = random.Random(seed)

    def choose(view: Json) -> str:
        card: str = rng.choice(view["hand"])
        return card

    return choose


@pytest.mark.parametrize(
    ("rules", "seats"),
    [
        ("greek,target=40", [human("Eleni"), bot("greedy")]),
        ("three-player,target=25", [human("Eleni"), human("Nikos"), bot("random")]),
        ("partnership,target=25", [human("Eleni"), bot("greedy"), human("Nikos"), bot("random")]),
    ],
    ids=["two-players", "three-players", "partnerships"],
)
async def test_a_whole_match_with_people_and_bots(server: Server, rules: str, seats: list[Json]) -> None:
    created = server.create(seats, rules=rules)
    table_id = created["table"]["id"]
    tokens = {created["seat"]: created["token"]}
    humans = [i for i, seat in enumerate(seats) if seat["kind"] == "human"]
    for seat in humans[1:]:
        joined = server.join(table_id, name=seats[seat]["name"])
        assert joined["seat"] == seat
        tokens[seat] = joined["token"]
    watcher = await Client.connect(server, table_id)
    players = [await Client.connect(server, table_id, tokens[seat]) for seat in humans]
    assert [p.seat for p in players] == humans
    ends = await asyncio.gather(*(p.play_until(finished, random_card(p.seat or 0)) for p in players))
    final = await watcher.play_until(finished)
    winner = final["table"]["winner"]
    assert winner is not None and all(end["table"]["winner"] == winner for end in ends)
    assert final["table"]["totals"][winner] >= final["view"]["target"]
    # the spectator saw every play of every round, and never a card in hand
    plays = [s["event"] for s in watcher.states if s["event"] and s["event"]["kind"] == "play"]
    rounds = final["view"]["round_results"]
    rules = final["view"]["rules"]
    assert len(plays) == len(rounds) * (rules["decks"] * 52 - rules["centre_size"])
    assert all(s["view"] is None or s["view"]["hand"] == [] for s in watcher.states)
    assert {p["seat"] for p in plays} == set(range(len(seats)))
    record = httpx.get(f"{server.http}/api/tables/{table_id}", timeout=5).json()
    assert record["status"] == "finished" and record["winner"] == winner
    for client in [watcher, *players]:
        await client.close()


async def test_a_bot_table_plays_itself_and_a_spectator_watches(server: Server) -> None:
    created = server.create([bot("greedy"), bot("random")], rules="greek,target=30")
    assert created["seat"] is None and created["token"] is None
    watcher = await Client.connect(server, created["table"]["id"], since=0)  # the whole story

    def match_end(state: Json) -> bool:
        return state["event"] is not None and state["event"]["kind"] == "match-end"

    final = await watcher.play_until(match_end)
    assert [s["seq"] for s in watcher.states] == list(range(1, final["seq"] + 1))
    assert final["table"]["status"] == "finished" and final["view"]["phase"] == "match-over"
    kinds = [s["event"]["kind"] for s in watcher.states if s["event"]]
    assert kinds.count("round-start") == kinds.count("round-end") == len(final["view"]["round_results"])
    await watcher.close()
