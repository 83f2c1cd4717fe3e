"""A moderator closes a table from whichever process they reach: the request goes to the
process holding the table (``server/relay.py``), as a player's requests about it do."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import httpx
from clusterkit import Cluster, two_player_table
from playerkit import Browser
from serverkit import Client, human


def ended(state: dict[str, Any]) -> bool:
    return state["event"] is not None and state["event"]["kind"] == "match-end"


def test_a_moderator_closes_tables_held_by_other_processes(start_cluster: Callable[..., Cluster]) -> None:
    cluster = start_cluster(3)
    holder, relaying, third = cluster.servers
    eleni = Browser(relaying)
    eleni.sign_up("Eleni")
    granted = subprocess.run([sys.executable, "-m", "kseri", "admin", "grant-moderator", "Eleni",
                              "--db", cluster.database_url], capture_output=True, text=True, timeout=60)
    assert granted.returncode == 0, granted.stderr
    table_id, ana_token, ben_token = two_player_table(cluster, owner=0)
    waiting = holder.create([human("Spam"), human()])["table"]["id"]

    async def close_in_play() -> list[dict[str, object]]:
        ana = await Client.connect(holder, table_id, ana_token)  # on the holder
        ben = await Client.connect(third, table_id, ben_token)  # relayed by the third process
        await asyncio.gather(*(player.play_until(lambda s: s["view"] is not None) for player in (ana, ben)))
        closing = await asyncio.to_thread(eleni.post, f"/api/moderation/tables/{table_id}/close",
                                          {"reason": "abusive table talk"})
        assert closing.status_code == 200 and closing.json() == {"closed": table_id}, closing.text
        ends = [await player.play_until(ended) for player in (ana, ben)]
        return [end["event"] for end in ends]

    ends = asyncio.run(close_in_play())
    assert [(e["winner"], e["closed"]) for e in ends] == [(None, "abusive table talk")] * 2
    assert cluster.owner(table_id) is holder  # it never moved: the holder closed it
    again = eleni.post(f"/api/moderation/tables/{table_id}/close", {"reason": "twice"})
    assert again.status_code == 409 and again.json()["error"]["code"] == "finished", again.text

    removed = eleni.post(f"{third.http}/api/moderation/tables/{waiting}/close", {"reason": "spam"})
    assert removed.status_code == 200 and removed.json() == {"closed": waiting}, removed.text
    for server in cluster.servers:
        assert httpx.get(f"{server.http}/api/tables/{waiting}", timeout=20).status_code == 404
    log = eleni.http.get("/api/moderation/log").json()["log"]
    closes = [(entry["by"], entry["reason"], entry["data"]["table"]) for entry in log
              if entry["action"] == "close-table"]
    assert closes == [("Eleni", "spam", waiting), ("Eleni", "abusive table talk", table_id)]
