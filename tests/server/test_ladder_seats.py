"""The ladder on a real server: every level's rating per family served, and a rung seated at a
table plays its bot's moves there and in the record."""

from __future__ import annotations

import httpx
from serverkit import Client, Server, bot, finished, human

from kseri.agents import LADDER, RUNGS
from kseri.agents.ladder import WEAKEST_FIRST
from kseri.records import replay_record, verify_record
from kseri.server.ratings import BOT_RATINGS


def test_every_level_has_a_rating_in_each_measured_family(server: Server) -> None:
    families = httpx.get(f"{server.http}/api/ratings/bots").json()["families"]
    assert families == BOT_RATINGS and set(families) == {"greek", "pisti", "classic"}
    for family, ratings in families.items():
        assert list(ratings) == list(WEAKEST_FIRST), family
        assert ratings["random"] == 1000, "the anchor"
        ladder = [ratings[level] for level in LADDER if level != "master"]
        assert ladder == sorted(ladder), (family, ladder)  # the rungs, then the expert above them
    greek = families["greek"]
    for rung, target in zip(RUNGS, (1000, 1200, 1400, 1600), strict=True):
        assert abs(greek[rung] - target) <= 75, (rung, greek[rung])


async def test_a_rung_plays_a_match_at_a_table(server: Server) -> None:
    created = server.create([human("Eleni"), bot("expert-35")], rules="pisti,target=20")
    table = created["table"]
    assert table["seats"][1] == {**table["seats"][1], "kind": "bot", "level": "expert-35"}
    eleni = await Client.connect(server, table["id"], created["token"])
    await eleni.play_until(finished)
    await eleni.close()
    record = httpx.get(f"{server.http}/api/tables/{table['id']}/record").json()
    assert replay_record(record) == [] and verify_record(record) == []
    assert "expert-35" in record["names"][1], record["names"]
