"""The round's plays in every state message (``history``): who played what, what it took, the
marks, plays the server made for a player, the last sweep; the same after a reconnection."""

from __future__ import annotations

from serverkit import Client, Json, Server, bot, human


def play_events(states: list[Json]) -> list[Json]:
    return [s["event"] for s in states if s["event"] and s["event"]["kind"] == "play"]


async def test_history_lists_the_rounds_plays_and_the_last_sweep(server: Server) -> None:
    created = server.create([human("Eleni"), bot("greedy")], rules="greek,target=30")
    table = created["table"]["id"]
    eleni = await Client.connect(server, table, created["token"])
    state = await eleni.play_until(lambda s: s["event"] is not None and s["event"]["kind"] == "round-end")
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
