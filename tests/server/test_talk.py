"""Table talk through a real server on loopback: a phrase said by its id reaches every player
and spectator at the table; an unknown one, a spectator's, one past the seat's allowance, one in
a rated game when the server turns talk off there, and a muted account's are refused with a
clear error and told to nobody; a reconnecting client is not sent old phrases."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from playerkit import Browser, Player
from serverkit import LAX, Client, Json, Server, human
from sqlalchemy.ext.asyncio import create_async_engine

from kseri.server import moderation
from kseri.server.db import Store


async def next_talk(client: Client | Player, timeout: float = 20) -> Json:
    """The next ``said`` or ``error`` message (states and presence are skipped)."""
    while True:
        message = await client.receive(timeout)
        if message["type"] in ("said", "error"):
            return message


async def quiet(client: Client, seconds: float = 0.5) -> list[Json]:
    """The ``said`` messages that reach ``client`` within ``seconds`` (none expected)."""
    heard: list[Json] = []
    try:
        while True:
            message = await client.receive(seconds)
            if message["type"] == "said":
                heard.append(message)
    except TimeoutError:
        return heard


def two_seat_table(server: Server) -> tuple[str, str, str]:
    created = server.create([human("Eleni"), human("Nikos")])
    joined = server.join(created["table"]["id"], name="Nikos")
    return created["table"]["id"], created["token"], joined["token"]


def test_a_phrase_reaches_the_opponent_and_the_spectators(start_server: Callable[..., Server],
                                                          sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    table_id, eleni_token, nikos_token = two_seat_table(server)

    async def talk() -> None:
        eleni = await Client.connect(server, table_id, eleni_token)
        nikos = await Client.connect(server, table_id, nikos_token)
        watcher = await Client.connect(server, table_id)
        welcome = next(m for m in eleni.received if m["type"] == "welcome")
        assert welcome["talk"] is True
        await eleni.send({"type": "say", "phrase": "good-luck"})
        for client in (eleni, nikos, watcher):
            assert await next_talk(client) == {"type": "said", "seat": 0, "phrase": "good-luck"}
        await nikos.send({"type": "say", "phrase": "thanks"})
        for client in (eleni, nikos, watcher):
            assert await next_talk(client) == {"type": "said", "seat": 1, "phrase": "thanks"}

        # an unknown phrase (the client schema would not let it be sent: straight to the socket)
        await eleni.connection.send(json.dumps({"type": "say", "phrase": "you cheat"}))
        refused = await next_talk(eleni)
        assert refused["code"] == "unknown-phrase"
        assert "'you cheat'" in refused["message"] and "good-luck" in refused["message"]
        await eleni.connection.send(json.dumps({"type": "say", "phrase": "x" * 33}))
        assert (await next_talk(eleni))["code"] == "bad-message"
        await watcher.send({"type": "say", "phrase": "oops"})
        refused = await next_talk(watcher)
        assert refused["code"] == "not-seated" and "spectators" in refused["message"]
        assert await quiet(nikos) == [] and await quiet(eleni) == []

        # phrases are not stored: a reconnecting player is not sent the old ones
        await nikos.close()
        since = nikos.states[-1]["seq"] if nikos.states else None
        again = await Client.connect(server, table_id, nikos_token, since=since)
        assert await quiet(again) == []
        await eleni.send({"type": "say", "phrase": "well-played"})
        assert await next_talk(again) == {"type": "said", "seat": 0, "phrase": "well-played"}
        for client in (eleni, watcher, again):
            await client.close()

    asyncio.run(talk())


def test_phrases_are_rate_limited_per_seat(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, limits=LAX + ",talk_per_minute=2")  # one at once, then one in 30 s
    table_id, eleni_token, nikos_token = two_seat_table(server)

    async def talk() -> None:
        eleni = await Client.connect(server, table_id, eleni_token)
        eleni_again = await Client.connect(server, table_id, eleni_token)  # a second tab: same seat
        nikos = await Client.connect(server, table_id, nikos_token)
        await eleni.send({"type": "say", "phrase": "good-luck"})
        assert await next_talk(nikos) == {"type": "said", "seat": 0, "phrase": "good-luck"}
        assert (await next_talk(eleni))["type"] == "said"
        await eleni.send({"type": "say", "phrase": "oops"})
        refused = await next_talk(eleni)
        assert refused["code"] == "throttled" and "2 phrases a minute" in refused["message"]
        assert (await next_talk(eleni_again))["phrase"] == "good-luck"
        await eleni_again.send({"type": "say", "phrase": "oops"})
        assert (await next_talk(eleni_again))["code"] == "throttled"
        assert await quiet(nikos) == []
        await nikos.send({"type": "say", "phrase": "good-luck"})  # the other seat's allowance is its own
        assert await next_talk(eleni) == {"type": "said", "seat": 1, "phrase": "good-luck"}
        for client in (eleni, eleni_again, nikos):
            await client.close()

    asyncio.run(talk())


def rated_table(server: Server) -> tuple[Browser, Browser, str]:
    eleni, nikos = Browser(server), Browser(server)
    eleni.sign_up("Eleni")
    nikos.sign_up("Nikos")
    seeks = [b.post("/api/seeks", {"family": "greek", "clock": 60}).json()["id"] for b in (eleni, nikos)]
    tables = {b.http.get(f"/api/seeks/{s}", params={"wait": 10}).json()["table"]
              for b, s in zip((eleni, nikos), seeks, strict=True)}
    assert len(tables) == 1
    return eleni, nikos, tables.pop()


async def said_or_refused(player: Player, phrase: str) -> Json:
    await player.send({"type": "say", "phrase": phrase})
    while True:
        message = await player.receive()
        if message["type"] in ("said", "error"):
            return message


def test_talk_is_off_in_rated_games_when_the_server_says_so(start_server: Callable[..., Server],
                                                            sqlite_url: str) -> None:
    server = start_server(sqlite_url, no_rated_talk="")
    eleni, _, table_id = rated_table(server)
    casual = server.create([human("Eleni"), human("Nikos")])

    async def talk() -> None:
        player = await Player.connect(eleni, table_id)
        refused = await said_or_refused(player, "good-luck")
        assert refused["code"] == "talk-off" and "rated" in refused["message"]
        await player.close()
        at_casual = await Player.connect(eleni, casual["table"]["id"], casual["token"])
        said = await said_or_refused(at_casual, "good-luck")
        assert said == {"type": "said", "seat": 0, "phrase": "good-luck"}
        await at_casual.close()

    asyncio.run(talk())
    assert asyncio.run(welcome_of(eleni, table_id))["talk"] is False
    assert asyncio.run(welcome_of(eleni, casual["table"]["id"]))["talk"] is True


async def welcome_of(browser: Browser, table_id: str) -> Json:
    """The ``welcome`` a signed-in browser is sent at a table."""
    player = await Player.connect(browser, table_id)
    await player.close()
    return player.welcome


def test_a_muted_account_cannot_talk_and_others_still_can(start_server: Callable[..., Server],
                                                          sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    eleni, nikos, table_id = rated_table(server)

    async def mute() -> None:  # beside the running server, as ``kseri admin`` does
        engine = create_async_engine(sqlite_url)
        try:
            await moderation.sanction(Store(engine), "Nikos", "mute", "insults in another game")
        finally:
            await engine.dispose()

    async def talk() -> None:
        players = [await Player.connect(eleni, table_id), await Player.connect(nikos, table_id)]
        refused = await said_or_refused(players[1], "well-played")
        assert refused["code"] == "talk-off" and "muted" in refused["message"]
        said = await said_or_refused(players[0], "good-luck")
        assert said["type"] == "said" and said["phrase"] == "good-luck"
        while (heard := await players[1].receive())["type"] != "said":
            pass
        assert heard == said
        for player in players:
            await player.close()

    asyncio.run(mute())
    asyncio.run(talk())
