"""The round's plays in every state message (``history``): who played what, what it took, the
marks, plays the server made for a player, the last sweep; the same after a reconnection."""

from __future__ import annotations

import httpx
from serverkit import Client, Json, Server, bot, human

from kseri.records import replay_record, verify_record


def play_events(states: list[Json]) -> list[Json]:
    return [s["event"] for s in states if s["event"] and s["event"]["kind"] == "play"]


async def test_history_lists_the_rounds_plays_and_the_last_sweep(server: Server) -> None:
    created = server.create([human("Eleni"), bot("greedy")], rules="greek,target=30")
    table = created["table"]["id"]
    eleni = await Client.connect(server, table, created["token"])
    # the round's last play: she stops there, before saying ready, so the next round waits
    state = await eleni.play_until(lambda s: s["view"] is not None and s["view"]["phase"] != "playing")
    round_states = [s for s in eleni.states if s["history"] and s["history"]["round"] == 0]
    plays = play_events(round_states)
    history = state["history"]
    assert history["round"] == 0
    assert [(p["seat"], p["card"], p["taken"], p["marks"]) for p in history["plays"]] == [
        (p["seat"], p["card"], p["taken"], p["marks"]) for p in plays]
    assert all(p["auto"] is None for p in history["plays"])
    # the centre left at the end goes to the last capturer, as the round's result says
    result = state["view"]["round_results"][-1]
    centre = len(state["view"]["centre_dealt"])
    for play in history["plays"]:
        centre = 0 if play["taken"] else centre + 1
    if centre and result["last_capturer"] is not None:
        assert history["sweep"] == {"seat": result["last_capturer"], "cards": centre}
    else:
        assert history["sweep"] is None
    await eleni.close()
    # a reload gets the same list
    again = await Client.connect(server, table, created["token"])
    latest = await again.expect("state")
    assert latest["history"] == history
    await again.close()


async def test_a_card_played_when_the_clock_ran_out_is_marked(server: Server) -> None:
    created = server.create([human("Eleni"), bot("greedy")], rules="greek,target=30", clock=1)
    eleni = await Client.connect(server, created["table"]["id"], created["token"])
    await eleni.play_until(lambda s: s["view"] is not None and s["view"]["turn"] == 0)
    while True:
        message = await eleni.expect("state", timeout=10)
        if message["event"] and message["event"]["kind"] == "play":
            break
    assert message["event"]["seat"] == 0 and message["event"]["auto"] == "clock"
    assert message["history"]["plays"][-1]["auto"] == "clock"
    await eleni.close()


async def test_resigning_ends_the_match_and_the_record_says_so(server: Server) -> None:
    created = server.create([human("Eleni"), bot("greedy")], rules="greek")
    table = created["table"]["id"]
    eleni = await Client.connect(server, table, created["token"])
    await eleni.play_until(lambda s: s["view"] is not None and s["view"]["turn"] == 0)
    async with httpx.AsyncClient() as http:
        refused = await http.post(f"{server.http}/api/tables/{table}/resign")
        assert refused.status_code == 401
        answer = await http.post(f"{server.http}/api/tables/{table}/resign",
                                 headers={"Authorization": f"Bearer {created['token']}"})
        assert answer.status_code == 200 and answer.json()["status"] == "finished"
        assert answer.json()["winner"] == 1
        again = await http.post(f"{server.http}/api/tables/{table}/resign",
                                headers={"Authorization": f"Bearer {created['token']}"})
        assert again.status_code == 409 and again.json()["error"]["code"] == "not-playing"
        record = (await http.get(f"{server.http}/api/tables/{table}/record")).json()
    kinds = []
    while not kinds or kinds[-1] != "match-end":
        message = await eleni.expect("state")
        kinds.append(message["event"]["kind"])
    assert kinds[-2:] == ["resign", "match-end"]
    assert message["history"]["resigned"] == 0 and message["view"]["winner"] == 1
    assert record["resigned"] == 0 and record["winner"] == 1 and record["complete"]
    assert replay_record(record) == [] and verify_record(record) == []
    await eleni.close()
