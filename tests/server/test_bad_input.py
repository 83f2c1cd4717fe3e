"""Bad input never hurts: each bad message gets a clear error, the table is untouched and the
server keeps serving everyone else."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from serverkit import CLIENT_MESSAGES, LAX, SERVER_MESSAGES, Client, Json, Server, human
from websockets.asyncio.client import connect as connect_async
from websockets.sync.client import ClientConnection, connect


async def two_player_table(server: Server) -> tuple[Client, Client, Client]:
    created = server.create([human("Eleni"), human("Nikos")], rules="greek,target=30", casual=False)
    table_id = created["table"]["id"]
    joined = server.join(table_id)
    eleni = await Client.connect(server, table_id, created["token"])
    nikos = await Client.connect(server, table_id, joined["token"])
    watcher = await Client.connect(server, table_id)

    def dealt(state: Json) -> bool:
        return state["view"] is not None and state["view"]["phase"] == "playing"

    await asyncio.gather(*(client.play_until(dealt) for client in (eleni, nikos, watcher)))
    return eleni, nikos, watcher


async def refused(client: Client, message: Any, code: str, watcher: Client) -> str:
    """Send ``message`` (JSON-encoded unless bytes or str) and check it is refused with ``code``
    and changes nothing anyone can see."""
    seq = watcher.states[-1]["seq"]
    if isinstance(message, bytes | str):
        await client.connection.send(message)
    else:
        await client.connection.send(json.dumps(message))
    answer = await client.receive()
    assert answer["type"] == "error" and answer["code"] == code, (answer.get("event"), answer.get("code"))
    # a ping after it proves nothing else came first, and the watcher saw nothing new
    await watcher.send({"type": "ping"})
    assert (await watcher.receive())["type"] == "pong"
    assert watcher.states[-1]["seq"] == seq
    message_text: str = answer["message"]
    return message_text


async def test_each_bad_request_gets_its_error_and_changes_nothing(server: Server) -> None:
    eleni, nikos, watcher = await two_player_table(server)
    state = eleni.states[-1]
    view, seq = state["view"], state["seq"]
    mover, other = (eleni, nikos) if view["turn"] == 0 else (nikos, eleni)
    hand = mover.states[-1]["view"]["hand"]
    elsewhere = next(c for c in ("AS", "KH", "QD", "2C", "3H", "4S", "5D", "6C", "7H") if c not in hand)
    assert "JSON" in await refused(mover, "{not json", "bad-json", watcher)
    assert "type" in await refused(mover, {"type": "dance"}, "bad-message", watcher)
    assert "card" in await refused(mover, {"type": "play", "seq": seq}, "bad-message", watcher)
    await refused(mover, b"\x00\x01", "bad-message", watcher)
    await refused(mover, {"type": "play", "card": "XX", "seq": seq}, "not-in-hand", watcher)
    not_held = {"type": "play", "card": elsewhere, "seq": seq}
    assert elsewhere in await refused(mover, not_held, "not-in-hand", watcher)
    out_of_turn = {"type": "play", "card": "AS", "seq": seq}
    assert "turn" in await refused(other, out_of_turn, "not-your-turn", watcher)
    await refused(mover, {"type": "play", "card": hand[0], "seq": seq + 1000}, "stale", watcher)
    await refused(mover, {"type": "ready"}, "not-playing", watcher)
    await refused(mover, {"type": "hint"}, "hints-off", watcher)
    await refused(watcher, {"type": "play", "card": hand[0], "seq": seq}, "not-seated", watcher)
    await refused(mover, {"type": "hello", "protocol": 1}, "bad-message", watcher)
    await refused(mover, json.dumps({"type": "ping", "pad": "x" * 5000}), "too-large", watcher)
    # a wrong token or protocol at hello, and messages before hello
    raw = await connect_async(server.ws(state["table"]["id"]), ping_interval=None)
    newcomer = Client(raw, None)
    await refused(newcomer, {"type": "play", "card": hand[0], "seq": seq}, "bad-message", watcher)
    await refused(newcomer, {"type": "hello", "protocol": 3}, "unsupported-protocol", watcher)
    await refused(newcomer, {"type": "hello", "protocol": 1, "token": "x" * 32}, "bad-token", watcher)
    await newcomer.close()
    nowhere = await connect_async(server.ws("no-such-table"), ping_interval=None)
    assert json.loads(await nowhere.recv())["code"] == "no-such-table"
    await nowhere.close()
    # the play that is due still goes through, once
    await mover.send({"type": "play", "card": hand[0], "seq": seq})
    for client in (watcher, mover):
        played = await client.expect("state")
        assert played["event"]["kind"] == "play" and played["event"]["card"] == hand[0]
    # sending it again (as after a lost connection) is refused: that state is gone
    await refused(mover, {"type": "play", "card": hand[1], "seq": seq}, "stale", watcher)


async def test_a_flood_is_throttled_and_others_are_served(server: Server) -> None:
    eleni, nikos, watcher = await two_player_table(server)
    for _ in range(70):  # 40 at once, then refused (past 40 refusals in a row it would be closed)
        await watcher.connection.send(json.dumps({"type": "ping"}))
    answers = [await watcher.receive() for _ in range(70)]
    codes = {a.get("code") for a in answers if a["type"] == "error"}
    assert codes == {"throttled"} and sum(a["type"] == "pong" for a in answers) >= 20
    # the players were not affected: the one to move still plays
    view = eleni.states[-1]["view"]
    mover = (eleni, nikos)[view["turn"]]
    latest = mover.states[-1]
    await mover.send({"type": "play", "card": latest["view"]["hand"][0], "seq": latest["seq"]})
    assert (await eleni.expect("state"))["event"]["kind"] == "play"


# -- fuzzing ----------------------------------------------------------------------------------

CARDS = [r + s for r in "23456789TJQKA" for s in "CDHS"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
message_types = st.sampled_from(["hello", "play", "ready", "hint", "ping", "nope", ""])
shaped = st.fixed_dictionaries(
    {"type": message_types},
    optional={
        "card": st.sampled_from(CARDS) | st.text(max_size=6) | json_values,
        "seq": st.integers(min_value=-3, max_value=400) | json_values,
        "protocol": st.integers(0, 3) | json_values,
        "token": st.none() | st.text(max_size=40),
        "since": st.none() | st.integers(-2, 50),
        "cut": st.none() | st.text(max_size=40),
        "extra": json_values,
    },
)
frames = shaped.map(json.dumps) | json_values.map(json.dumps) | st.text(max_size=60) | st.binary(max_size=30)


class SyncPlayer:
    """A seated player on a blocking WebSocket, for Hypothesis to drive."""

    def __init__(self, connection: ClientConnection, token: str | None) -> None:
        self.connection = connection
        self.latest: Json = {}
        self.turn_seq = 0
        self.exchange(json.dumps({"type": "hello", "protocol": 1, "token": token}))

    def exchange(self, frame: str | bytes | None, pongs: int = 1) -> list[Json]:
        """Send one frame (if any), then a ping; everything answered before the last pong."""
        if frame is not None:
            self.connection.send(frame)
        self.connection.send(json.dumps({"type": "ping"}))
        answers = []
        while pongs:
            answer = json.loads(self.connection.recv(timeout=20))
            SERVER_MESSAGES.validate(answer)
            if answer["type"] == "state":
                self.latest = answer
                if answer["event"] and answer["event"]["kind"] in ("play", "round-start"):
                    self.turn_seq = answer["seq"]
            if answer["type"] == "pong":
                pongs -= 1
            else:
                answers.append(answer)
        return answers


@pytest.fixture(scope="module")
def fuzz_table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SyncPlayer, SyncPlayer]]:
    path = tmp_path_factory.mktemp("fuzz") / "kseri.db"
    server = Server(f"sqlite+aiosqlite:///{path}", {"--limits": LAX + ",rate=10000,burst=20000",
                                                   "--grace": "600"}).start()
    created = server.create([human(), human()], rules="greek", casual=False)
    table_id = created["table"]["id"]
    joined = server.join(table_id)
    with ExitStack() as stack:
        players = tuple(SyncPlayer(stack.enter_context(connect(server.ws(table_id), max_size=None)), token)
                        for token in (created["token"], joined["token"]))
        for player in players:
            player.exchange(json.dumps({"type": "ready"}))
        yield players[0], players[1]
    server.stop()


near_plays = st.tuples(st.integers(0, 7), st.sampled_from([0, 0, 0, -1, 1, -4]),
                       st.sampled_from([False, False, True]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["frame", "near play"]), raw=frames, near=near_plays)
def test_fuzzed_messages_are_refused_cleanly_or_are_legal_plays(
        fuzz_table: tuple[SyncPlayer, SyncPlayer], kind: str, raw: str | bytes,
        near: tuple[int, int, bool]) -> None:
    """Random frames, and plays near the legal ones: a card by its place in the hand (or a
    card beyond it), a seq near the latest, sometimes from the wrong seat."""
    players = fuzz_table
    for player in players:
        player.exchange(None)
    if players[0].latest["view"]["phase"] != "playing":  # a round ended: deal the next one
        for player in players:
            player.exchange(json.dumps({"type": "ready"}))
    while any(p.latest["view"] is None or p.latest["view"]["phase"] != "playing" for p in players):
        assert players[0].latest["table"]["status"] != "finished", "the fuzzing outlasted a whole match"
        for player in players:  # the deal follows the readies a moment later
            player.exchange(None)
    mover = players[players[0].latest["view"]["turn"]]
    if kind == "near play":
        place, offset, wrong_seat = near
        if wrong_seat:
            mover = players[1 - players[0].latest["view"]["turn"]]
        hand = mover.latest["view"]["hand"]
        card = hand[place] if place < len(hand) else CARDS[place]
        frame: str | bytes = json.dumps({"type": "play", "card": card, "seq": mover.latest["seq"] + offset})
    else:
        frame = raw
    mine, turn_seq = mover.latest, mover.turn_seq
    try:
        message = json.loads(frame)
    except (ValueError, UnicodeDecodeError):
        message = None
    valid = isinstance(message, dict) and CLIENT_MESSAGES.is_valid(message)
    is_ping = message == {"type": "ping"}
    answers = mover.exchange(frame, pongs=2 if is_ping else 1)
    legal = (valid and message["type"] == "play" and message["card"] in mine["view"]["hand"]
             and mine["view"]["turn"] == mine["view"]["seat"]
             and type(message["seq"]) is int and turn_seq <= message["seq"] <= mine["seq"])
    event("a legal play" if legal else "refused" if not is_ping else "ping")
    if legal:
        plays = [a["event"]["card"] for a in answers if a["type"] == "state" and a["event"]["kind"] == "play"]
        assert plays[:1] == [message["card"]], answers
    elif is_ping:
        assert answers == []
    else:
        assert len(answers) == 1 and answers[0]["type"] == "error", (message, answers)
