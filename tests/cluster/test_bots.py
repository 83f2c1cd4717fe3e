"""A table nobody is connected to (bots playing) moves on its own when its owner dies."""

from __future__ import annotations

import time
from collections.abc import Callable

from clusterkit import Cluster, verified_record
from serverkit import bot


def test_a_bots_table_is_taken_over_without_any_client(start_cluster: Callable[..., Cluster]) -> None:
    cluster = start_cluster(2, bot_delay="0.05")
    table_id = cluster.servers[0].create([bot("random"), bot("greedy")])["table"]["id"]
    assert cluster.owner(table_id) is cluster.servers[0]
    cluster.servers[0].kill()
    deadline = time.monotonic() + 60
    while not cluster.rows("SELECT finished FROM tables WHERE id = $1", table_id)[0]["finished"]:
        assert time.monotonic() < deadline, "the table never finished"
        time.sleep(0.5)
    assert "took table" in cluster.servers[1].output()
    assert cluster.owner(table_id) is cluster.servers[1]
    verified_record(cluster.servers[1], table_id)
