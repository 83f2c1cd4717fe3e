"""Issue 19, finding 5: a forfeited match has one result, the same in the table, the record, the
profile, the games list, the rating history and the analysis, on a real server."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
from playerkit import Browser, Player
from serverkit import Server
from test_rated import seek
from test_rated_limits import paired_later as paired


def finished_table(server: Server, table_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        table: dict[str, Any] = httpx.get(f"{server.http}/api/tables/{table_id}").json()
        if table["status"] == "finished":
            return table
        assert time.monotonic() < deadline, f"table {table_id} never finished: {table}"
        time.sleep(0.1)


def rated_games(server: Server, username: str, games: int) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while True:
        entries = httpx.get(f"{server.http}/api/players/{username}").json()["ratings"]
        if entries and entries[0]["games"] >= games:
            entry: dict[str, Any] = entries[0]
            return entry
        assert time.monotonic() < deadline, f"{username} was not rated {games} times"
        time.sleep(0.1)


def games_listed(server: Server, username: str, result: str) -> list[str]:
    answer = httpx.get(f"{server.http}/api/players/{username}/games", params={"result": result}, timeout=30)
    assert answer.status_code == 200, answer.text
    return [line for line in answer.text.splitlines() if line]


def test_a_forfeit_has_one_result_in_every_view(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, grace="1")
    eleni, nikos = Browser(server), Browser(server)
    eleni.sign_up("Eleni")
    nikos.sign_up("Nikos")
    browsers = {"Eleni": eleni, "Nikos": nikos}

    async def nikos_leaves() -> str:
        """Both play, then Nikos leaves while Eleni plays on: he forfeits."""
        first, second = seek(eleni), seek(nikos)
        table_id: str = paired(eleni, first)["table"]
        paired(nikos, second)
        player = await Player.connect(eleni, table_id)
        leaver = await Player.connect(nikos, table_id)
        playing = asyncio.create_task(player.play_to_the_end())
        await leaver.play_once()
        await leaver.close()
        final = await playing
        await player.close()
        assert final["event"]["forfeit"] == leaver.seat
        return table_id

    async def both_leave() -> str:
        """Both play once and both leave: whoever's turn comes first forfeits."""
        first, second = seek(eleni), seek(nikos)
        table_id: str = paired(eleni, first)["table"]
        paired(nikos, second)
        players = [await Player.connect(browser, table_id) for browser in (eleni, nikos)]
        await asyncio.gather(*(player.play_once() for player in players))
        for player in players:
            await player.close()
        finished_table(server, table_id)
        return table_id

    async def nikos_resigns() -> str:
        """Both play once, then Nikos resigns: rated like a forfeit."""
        first, second = seek(eleni), seek(nikos)
        table_id: str = paired(eleni, first)["table"]
        token = paired(nikos, second)["token"]
        players = [await Player.connect(browser, table_id) for browser in (eleni, nikos)]
        await asyncio.gather(*(player.play_once() for player in players))
        resigned = nikos.post(f"/api/tables/{table_id}/resign", Authorization=f"Bearer {token}")
        assert resigned.status_code == 200, resigned.text
        for player in players:
            await player.close()
        return table_id

    tables = [asyncio.run(nikos_leaves()), asyncio.run(both_leave()), asyncio.run(nikos_resigns())]
    games = len(tables)
    rated_games(server, "Eleni", games)
    wins = {"Eleni": 0, "Nikos": 0}
    for table_id in tables:
        table = finished_table(server, table_id)
        winner = table["winner"]
        assert winner in (0, 1), table
        names = {seat["seat"]: seat["name"] for seat in table["seats"]}
        wins[names[winner]] += 1
        record = httpx.get(f"{server.http}/api/tables/{table_id}/record").json()
        assert record["complete"] is True and record["winner"] == winner, record
        assert record["resigned"] == 1 - winner  # the seat that forfeited
        analysis = httpx.get(f"{server.http}/api/tables/{table_id}/analysis", timeout=120)
        assert analysis.status_code == 200, analysis.text
        assert [player["name"] for player in analysis.json()["players"]] == [names[0], names[1]]
    assert wins["Eleni"] >= 2  # Nikos forfeited the first and resigned the third
    for name, won in wins.items():
        statistics = httpx.get(f"{server.http}/api/players/{name}").json()["statistics"]
        tally = (statistics["games"], statistics["wins"], statistics["draws"])
        assert tally == (games, won, 0), (name, statistics)
        assert len(games_listed(server, name, "win")) == won
        assert len(games_listed(server, name, "loss")) == games - won
        assert games_listed(server, name, "draw") == []
        history = rated_games(server, name, games)["history"]
        assert [entry["table"] for entry in history] == tables
    for name in browsers:  # each rating moved the way its result says
        history = rated_games(server, name, games)["history"]
        before = 1500
        for table_id, entry in zip(tables, history, strict=True):
            table = finished_table(server, table_id)
            won = {seat["name"]: seat["seat"] for seat in table["seats"]}[name] == table["winner"]
            assert (entry["rating"] > before) == won, (name, table_id, entry)
            before = entry["rating"]
