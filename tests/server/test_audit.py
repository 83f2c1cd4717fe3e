"""The hidden-information audit: many short matches through the server, every message to
every connection checked against what its seat may know at that moment."""

from __future__ import annotations

import asyncio
import random

from serverkit import Client, Json, Server, audit, bot, human

RULES = ["greek,target=1,target_rule=higher-wins", "pisti,target=1", "partnership,target=1",
         "three-player,target=1", "classic,target=1"]
MATCHES = 100
AT_ONCE = 20


async def one_match(server: Server, index: int) -> tuple[Client, Client]:
    rules = RULES[index % len(RULES)]
    players = {"partnership": 4, "three-player": 3}.get(rules.split(",")[0], 2)
    seats = [human(f"P{index}")] + [bot("greedy" if i % 2 else "random") for i in range(1, players)]
    created = server.create(seats, rules=rules)
    table_id = created["table"]["id"]
    watcher = await Client.connect(server, table_id, since=0)
    player = await Client.connect(server, table_id, created["token"])
    rng = random.Random(index)

    def choose(view: Json) -> str:
        card: str = rng.choice(view["hand"])
        return card

    def over(state: Json) -> bool:
        return state["event"] is not None and state["event"]["kind"] == "match-end"

    await asyncio.gather(player.play_until(over, choose), watcher.play_until(over))
    await player.close()
    await watcher.close()
    return player, watcher


async def test_no_message_tells_a_seat_more_than_it_may_know(server: Server) -> None:
    checked = 0
    for start in range(0, MATCHES, AT_ONCE):
        pairs = await asyncio.gather(*(one_match(server, i) for i in range(start, start + AT_ONCE)))
        checked += sum(audit(watcher.states, [player, watcher]) for player, watcher in pairs)
    assert checked > MATCHES * 60
