"""Issue 19: quick pairing within the server's limits, and ratings that cannot be farmed, on a
real server."""

from __future__ import annotations

from collections.abc import Callable

from playerkit import Browser
from serverkit import Server, bot, human
from test_rated import paired, seek


def test_seeks_spend_the_tables_allowance_and_an_account_plays_one_rated_game_at_a_time(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, limits="tables_per_minute=1,tables_burst=5,seeks_per_minute=3")
    eleni, nikos, maria = Browser(server), Browser(server), Browser(server)
    eleni.sign_up("Eleni")
    nikos.sign_up("Nikos")
    maria.sign_up("Maria")
    for _ in range(3):  # each replaces the one before
        seek(maria, "pisti", 30)
    refused = maria.post("/api/seeks", {"family": "pisti", "clock": 30})
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == "throttled" and "seeks" in refused.json()["error"]["message"]
    assert int(refused.headers["Retry-After"]) >= 1
    first, second = seek(eleni), seek(nikos)
    table = paired(eleni, first)["table"]
    assert paired(nikos, second)["table"] == table
    again = eleni.post("/api/seeks", {"family": "greek", "clock": 60})
    assert again.status_code == 409, again.text
    assert again.json()["error"]["code"] == "in-game" and again.json()["error"]["table"] == table
    # five seeks from this address spent its five tables: it may open no other table now
    created = eleni.post("/api/tables", {"rules": "greek", "seats": [human(), bot()]})
    assert created.status_code == 429, created.text
    assert created.json()["error"]["code"] == "throttled"
