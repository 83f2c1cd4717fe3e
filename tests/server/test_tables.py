"""Table life: hints, rematches, stand-ins for absent players, turn clocks."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
from serverkit import Client, Json, Server, bot, finished, human


def over(state: Json) -> bool:
    return state["event"] is not None and state["event"]["kind"] == "match-end"


async def test_a_casual_table_gives_hints_for_the_hand(server: Server) -> None:
    created = server.create([human("Eleni"), bot("random")], rules="greek,target=30")
    eleni = await Client.connect(server, created["table"]["id"], created["token"])
    state = await eleni.play_until(lambda s: s["view"] is not None and s["view"]["turn"] == 0)
    await eleni.send({"type": "hint"})
    answer = await eleni.expect("hint")
    assert sorted(v["card"] for v in answer["values"]) == sorted(state["view"]["hand"])
    assert answer["best"] == answer["values"][0]["card"]
    values = [v["value"] for v in answer["values"]]
    assert values == sorted(values, reverse=True)
    await eleni.close()


async def test_rematch_same_rules_and_seats_both_players_back(server: Server) -> None:
    rules = "greek,target=1,target_rule=higher-wins"
    created = server.create([human("Eleni"), human("Nikos"), ], rules=rules)
    table_id = created["table"]["id"]
    joined = server.join(table_id, name="Nikos")
    players = [await Client.connect(server, table_id, token) for token in (created["token"], joined["token"])]
    await asyncio.gather(*(p.play_until(over) for p in players))
    first = httpx.post(f"{server.http}/api/tables/{table_id}/rematch",
                       headers={"Authorization": f"Bearer {joined['token']}"}).json()
    assert first["seat"] == 1 and first["table"]["rules"] == players[0].states[-1]["table"]["rules"]
    new_id = first["table"]["id"]
    assert new_id != table_id and [s["taken"] for s in first["table"]["seats"]] == [False, True]
    # the other player hears of it on the old table, and asking again joins the same rematch
    news = await players[0].expect("state")
    assert news["event"] == {"kind": "rematch", "table": new_id} and news["table"]["rematch"] == new_id
    second = httpx.post(f"{server.http}/api/tables/{table_id}/rematch",
                        headers={"Authorization": f"Bearer {created['token']}"}).json()
    assert second["table"]["id"] == new_id and second["seat"] == 0 and second["token"] != created["token"]
    assert [s["name"] for s in second["table"]["seats"]] == ["Eleni", "Nikos"]
    for player in players:
        await player.close()
    again = [await Client.connect(server, new_id, grant["token"]) for grant in (second, first)]
    ends = await asyncio.gather(*(p.play_until(over) for p in again))
    assert ends[0]["table"]["winner"] is not None
    for player in again:
        await player.close()


async def test_an_absent_partner_is_replaced_by_a_bot_and_may_come_back(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, grace="0.3")
    created = server.create([human("Eleni"), bot(), human("Nikos"), bot()], rules="partnership,target=20")
    table_id = created["table"]["id"]
    joined = server.join(table_id, name="Nikos")
    eleni = await Client.connect(server, table_id, created["token"])
    nikos = await Client.connect(server, table_id, joined["token"])

    def nikos_played(state: Json) -> bool:
        return state["event"] is not None and state["event"]["kind"] == "play" and state["event"]["seat"] == 2

    await asyncio.gather(eleni.play_until(nikos_played), nikos.play_until(nikos_played))
    await nikos.close()

    def standin_played(state: Json) -> bool:
        return nikos_played(state) and state["table"]["seats"][2]["standin"]

    # Eleni plays on; after the grace period a bot plays Nikos's cards
    await eleni.play_until(standin_played)
    back = await Client.connect(server, table_id, joined["token"])
    welcome_back = await eleni.presence_until(lambda table: table["seats"][2]["connected"])
    assert welcome_back["table"]["seats"][2]["standin"] is False
    mark = eleni.states[-1]["seq"]

    def nikos_played_again(state: Json) -> bool:
        return nikos_played(state) and state["seq"] > mark

    await asyncio.gather(eleni.play_until(nikos_played_again), back.play_until(nikos_played_again))
    # he is back in charge: the next play of seat 2 is his own card choice, seen without a stand-in
    assert not eleni.states[-1]["table"]["seats"][2]["standin"]
    ends = await asyncio.gather(eleni.play_until(finished), back.play_until(finished))
    assert ends[0]["table"]["winner"] is not None
    for client in (eleni, back):
        await client.close()


async def test_a_turn_clock_plays_for_a_player_who_waits_too_long(server: Server) -> None:
    created = server.create([human("Eleni"), bot("greedy")], rules="greek,target=30", clock=1)
    eleni = await Client.connect(server, created["table"]["id"], created["token"])
    state = await eleni.play_until(lambda s: s["view"] is not None and s["view"]["turn"] == 0)
    hand = state["view"]["hand"]
    # she does nothing: within about a second a stand-in plays one of her cards
    while True:
        message = await eleni.expect("state", timeout=10)
        if message["event"] and message["event"]["kind"] == "play":
            break
    assert message["event"]["seat"] == 0 and message["event"]["card"] in hand
    assert message["table"]["clock"] == 1
    await eleni.close()


async def test_states_carry_the_turn_deadline_with_a_clock_and_null_without(server: Server) -> None:
    created = server.create([human("Eleni"), bot("greedy")], rules="greek,target=30", clock=120)
    eleni = await Client.connect(server, created["table"]["id"], created["token"])
    state = await eleni.play_until(lambda s: s["view"] is not None and s["view"]["turn"] == 0)
    deadline = state["turn_deadline"]
    assert deadline is not None and 0 < deadline["at"] - deadline["now"] <= 120
    await eleni.close()
    # a reload (a fresh hello without since) gets the time left, not a fresh clock
    again = await Client.connect(server, created["table"]["id"], created["token"])
    latest = await again.expect("state")
    assert latest["view"]["turn"] == 0 and latest["view"]["hand"] == state["view"]["hand"]
    assert latest["turn_deadline"]["at"] - latest["turn_deadline"]["now"] <= deadline["at"] - deadline["now"]
    assert abs(latest["turn_deadline"]["at"] - deadline["at"]) < 1, "the same deadline"
    await again.close()

    unclocked = server.create([human("Nikos"), bot("greedy")], rules="greek,target=30")
    nikos = await Client.connect(server, unclocked["table"]["id"], unclocked["token"])
    state = await nikos.play_until(lambda s: s["view"] is not None and s["view"]["turn"] == 0)
    assert state["turn_deadline"] is None
    assert all(s["turn_deadline"] is None for s in nikos.states)
    await nikos.close()
