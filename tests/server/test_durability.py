"""Reconnection with ``since``, and kill -9 of the server mid-round: nothing lost, nothing twice."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import httpx
from serverkit import Client, Json, Replay, Server, audit, finished, history, human

from kseri.records import record_from_match, replay_record, verify_record


def chooser(seed: int) -> Callable[[Json], str]:
    rng = random.Random(seed)

    def choose(view: Json) -> str:
        card: str = rng.choice(view["hand"])
        return card

    return choose


def plays_seen(client: Client) -> int:
    return sum(1 for s in client.states if s["event"] and s["event"]["kind"] == "play")


async def test_a_reconnecting_player_gets_exactly_what_they_missed(server: Server) -> None:
    created = server.create([human("Eleni"), human("Nikos")], rules="greek,target=30")
    table_id = created["table"]["id"]
    joined = server.join(table_id, name="Nikos")
    eleni = await Client.connect(server, table_id, created["token"])
    nikos = await Client.connect(server, table_id, joined["token"])

    def five_plays_and_elenis_turn(client: Client) -> Callable[[Json], bool]:
        return lambda s: plays_seen(client) >= 5 and s["view"] is not None and s["view"]["turn"] == 0

    await asyncio.gather(eleni.play_until(five_plays_and_elenis_turn(eleni), chooser(1)),
                         nikos.play_until(five_plays_and_elenis_turn(nikos), chooser(2)))
    await nikos.close()
    last_seen = nikos.states[-1]["seq"]

    # Eleni sees him leave (a presence message: comings and goings are not stored events), and
    # plays her card
    await eleni.presence_until(lambda table: not table["seats"][1]["connected"])
    mark = eleni.states[-1]["seq"]
    await eleni.play_until(lambda s: s["seq"] > mark and s["event"]["kind"] == "play", chooser(1))
    missed = eleni.states[-1]["seq"] - last_seen
    assert missed >= 1
    back = await Client.connect(server, table_id, joined["token"], since=last_seen)
    got = [await back.receive() for _ in range(missed)]
    # every state after last_seen, in order, and nothing else
    assert [m["seq"] for m in got] == list(range(last_seen + 1, last_seen + missed + 1))
    assert [m["event"] for m in got] == [s["event"] for s in eleni.states[-missed:]]
    returned = await eleni.presence_until(lambda table: table["seats"][1]["connected"])
    assert returned["table"]["seats"][1]["connected"]
    # a hello with since equal to the latest seq gets only the welcome
    quiet = await Client.connect(server, table_id, joined["token"], since=got[-1]["seq"])
    await quiet.send({"type": "ping"})
    assert (await quiet.receive())["type"] == "pong"
    await quiet.close()
    back.states = nikos.states + back.states
    await asyncio.gather(eleni.play_until(finished, chooser(3)), back.play_until(finished, chooser(4)))
    watcher = await Client.connect(server, table_id, since=0)
    full = [await watcher.receive() for _ in range(eleni.states[-1]["seq"])]
    assert audit(full, [eleni, nikos, back, watcher]) > len(full)
    for client in (eleni, back, watcher):
        await client.close()


async def test_kill_9_mid_round_loses_nothing_and_applies_nothing_twice(
        start_server: Callable[..., Server], database_url: str) -> None:
    server = start_server(database_url)
    created = server.create([human("Eleni"), human("Nikos")], rules="greek,target=30")
    table_id = created["table"]["id"]
    joined = server.join(table_id, name="Nikos")
    tokens = {0: created["token"], 1: joined["token"]}
    players = [await Client.connect(server, table_id, tokens[seat]) for seat in (0, 1)]
    choosers = [chooser(10), chooser(11)]
    await asyncio.gather(*(p.play_until(lambda s, p=p: plays_seen(p) >= 17, c)
                           for p, c in zip(players, choosers, strict=True)))
    # the player to move sends a play and the server dies at once: it may or may not be stored
    turn = players[0].states[-1]["view"]["turn"]
    mover = players[turn]
    await mover.act(mover.states[-1], choosers[turn])
    waiting = server.create([human("Ada"), human()], rules="pisti")
    server.kill()
    acknowledged = [s["event"] for s in players[0].states if s["event"] and s["event"]["kind"] == "play"]
    for player in players:
        await player.close()
    server.start()  # same port, same database
    # a table still waiting for a player is back too, its seats as they were
    assert httpx.get(f"{server.http}/api/tables/{waiting['table']['id']}").json() == waiting["table"]
    resumed = []
    for seat, player in enumerate(players):
        again = await Client.connect(server, table_id, tokens[seat], since=player.states[-1]["seq"])
        again.states = list(player.states)
        resumed.append(again)
    ends = await asyncio.gather(*(p.play_until(finished, c) for p, c in zip(resumed, choosers, strict=True)))
    assert ends[0]["table"]["winner"] == ends[1]["table"]["winner"] is not None
    # the whole story, told again to a newcomer, starts with exactly the plays acknowledged
    # before the kill, each once, and replays through the engine to the same result
    watcher = await Client.connect(server, table_id, since=0)
    total = ends[0]["seq"]
    full = [await watcher.receive() for _ in range(total)]
    events = history(full)
    plays = [e for e in events if e["kind"] == "play"]
    assert plays[: len(acknowledged)] == acknowledged
    revealed = full[-1]["fairness"]["revealed"]
    replay = Replay(full[-1]["table"]["rules"], revealed, table_id)
    for event in events:
        replay.apply(event)
    assert replay.match.is_over()
    assert list(replay.match.totals) == ends[0]["table"]["totals"]
    assert replay.view(0) == ends[0]["view"]
    # the server's record is the record of that uninterrupted replay, and it verifies
    record = httpx.get(f"{server.http}/api/tables/{table_id}/record", timeout=10).json()
    proofs = [{key: entry[key] for key in ("commitment", "secret", "cut")} for entry in revealed]
    assert record == record_from_match(replay.match, names=["Eleni", "Nikos"], fairness=proofs)
    assert replay_record(record) == [] and verify_record(record) == []
    assert audit(full, [*players, *resumed, watcher]) > 2 * len(plays)
    await watcher.close()
    for player in resumed:
        await player.close()
