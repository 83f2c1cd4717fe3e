"""Pass and play on the server: one table, every person's seat held by one device's connection,
which is sent one seat's view at a time (none while the device is handed over), readies every
seat it holds at once, and plays for the seat shown only."""

from __future__ import annotations

import asyncio
import json

import httpx
import websockets
from serverkit import SERVER_MESSAGES, Json, Server, bot, human


async def receive(connection: websockets.ClientConnection) -> Json:
    message: Json = json.loads(await asyncio.wait_for(connection.recv(), 30))
    SERVER_MESSAGES.validate(message)
    return message


def test_a_pass_and_play_table_gives_every_person_seat_to_its_creator(server: Server) -> None:
    answer = server.create([human("Eleni"), human("Nikos"), bot("greedy")], rules="three-player",
                           pass_and_play=True)
    assert answer["seat"] == 0 and set(answer["tokens"]) == {"0", "1"}
    table = answer["table"]
    assert not table["public"] and [s["name"] for s in table["seats"]][:2] == ["Eleni", "Nikos"]
    assert all(s["taken"] for s in table["seats"])
    alone = httpx.post(server.http + "/api/tables", timeout=10,
                       json={"rules": "greek", "seats": [human(), bot()], "pass_and_play": True})
    assert alone.status_code == 422 and "two people" in alone.text


async def test_one_device_plays_every_person_one_hand_at_a_time(server: Server) -> None:
    answer = server.create([human("Eleni"), human("Nikos")], rules="greek,target=31", pass_and_play=True)
    table_id, tokens = answer["table"]["id"], list(answer["tokens"].values())
    connection = await websockets.connect(server.ws(table_id), max_size=None, ping_interval=None)
    await connection.send(json.dumps({"type": "hello", "protocol": 1, "tokens": tokens}))
    welcome = await receive(connection)
    assert welcome["type"] == "welcome" and welcome["seat"] is None
    await connection.send(json.dumps({"type": "ready"}))  # readies both seats
    shown: int | None = None
    asked: int | None = None
    seen_hands: dict[int, set[str]] = {0: set(), 1: set()}
    plays = 0
    while True:
        message = await receive(connection)
        if message["type"] == "presence":
            assert all(seat["connected"] for seat in message["table"]["seats"])
        if message["type"] == "shown":
            shown = message["seat"]
        if message["type"] != "state":
            continue
        view = message["view"]
        if view is None:
            continue
        assert view["seat"] == shown, "a view of a seat not shown"
        if shown is None:
            assert view["hand"] == [] and view["face_down_seen"] == []
        else:
            seen_hands[shown] |= set(view["hand"])
        if message["table"]["status"] == "finished":
            break
        if view["phase"] == "round-over":
            if message["event"] and message["event"]["kind"] == "round-end":
                await connection.send(json.dumps({"type": "ready"}))
            continue
        turn = view["turn"]
        if turn is None or shown != asked:  # nothing due, or the view asked for is on its way
            continue
        if shown != turn:
            if shown is not None:  # the hand-over: no hand while the device changes hands
                await connection.send(json.dumps({"type": "show", "seat": None}))
            await connection.send(json.dumps({"type": "show", "seat": turn}))
            asked = turn
            await asyncio.sleep(0.1)  # a person's pace: shows spend the connection's allowance
            continue
        await connection.send(json.dumps({"type": "play", "card": view["hand"][0], "seq": message["seq"]}))
        plays += 1
    assert plays > 20 and seen_hands[0] and seen_hands[1]
    await connection.close()


async def test_show_and_tokens_are_checked(server: Server) -> None:
    answer = server.create([human("A"), human("B")], rules="greek", pass_and_play=True)
    table_id, tokens = answer["table"]["id"], answer["tokens"]
    connection = await websockets.connect(server.ws(table_id), max_size=None, ping_interval=None)
    await connection.send(json.dumps({"type": "hello", "protocol": 1, "tokens": [tokens["0"], "x" * 32]}))
    refused = await receive(connection)
    assert refused["type"] == "error" and refused["code"] == "bad-token"
    await connection.send(json.dumps({"type": "hello", "protocol": 1, "tokens": [tokens["0"]]}))
    assert (await receive(connection))["type"] == "welcome"
    await receive(connection)  # the state
    await connection.send(json.dumps({"type": "show", "seat": 1}))
    while (message := await receive(connection))["type"] != "error":
        pass
    assert message["code"] == "not-seated" and "seat 1" in message["message"]
    await connection.close()
