"""The HTTP API: fuzzed by Schemathesis against its own OpenAPI document, and its answers to
the usual mistakes; the web page and invite links."""

from __future__ import annotations

from pathlib import Path

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import positive_data_acceptance
from serverkit import Server, bot, human

from kseri.agents import AGENTS


def test_the_api_keeps_its_openapi_promises(server: Server) -> None:
    """Schemathesis: generated requests for every operation; no server error, and every answer
    matches the documented status codes, content types and schemas."""
    schema = schemathesis.openapi.from_url(f"{server.http}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 7
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def check(case: schemathesis.Case) -> None:
            # rules are checked beyond the schema (the preset must exist, options must fit
            # together): a schema-valid body may still get 422 with the reason
            case.call_and_validate(excluded_checks=[positive_data_acceptance])

        check()


def error(answer: httpx.Response, status: int, code: str) -> str:
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert body["error"]["code"] == code
    message: str = body["error"]["message"]
    return message


def test_mistakes_get_clear_errors(server: Server) -> None:
    api = f"{server.http}/api"
    assert "preset" in error(httpx.post(f"{api}/tables", json={"rules": "bridge"}), 422, "bad-rules")
    assert "2 players" in error(httpx.post(f"{api}/tables", json={"seats": [human()] * 3}), 422, "bad-seats")
    levels = error(httpx.post(f"{api}/tables", json={"seats": [human(), bot("wizard")]}), 422, "bad-seats")
    assert "greedy" in levels and "master" in levels
    error(httpx.post(f"{api}/tables", json={"rules": "greek", "colour": "red"}), 422, "bad-request")
    error(httpx.get(f"{api}/tables/nope"), 404, "no-such-table")
    error(httpx.post(f"{api}/tables/nope/join", json={}), 404, "no-such-table")
    created = server.create([human("Eleni"), human()])
    table_id = created["table"]["id"]
    assert "seat 0 is taken" in error(httpx.post(f"{api}/tables/{table_id}/join", json={"seat": 0}), 409,
                                      "seat-taken")
    server.join(table_id, name="Nikos")
    assert "every seat" in error(httpx.post(f"{api}/tables/{table_id}/join", json={}), 409, "seat-taken")
    error(httpx.get(f"{api}/tables/{table_id}/record"), 409, "not-finished")
    error(httpx.post(f"{api}/tables/{table_id}/rematch"), 401, "bad-token")
    bearer = {"Authorization": f"Bearer {created['token']}"}
    error(httpx.post(f"{api}/tables/{table_id}/rematch", headers=bearer), 409, "not-finished")


def test_the_lobby_lists_public_tables_only(server: Server) -> None:
    public = server.create([human(), bot()])["table"]["id"]
    private = server.create([human(), bot()], public=False)["table"]["id"]
    listed = {t["id"] for t in httpx.get(f"{server.http}/api/lobby").json()["tables"]}
    assert public in listed and private not in listed
    # the private table is still reachable by its invite link
    assert httpx.get(f"{server.http}/api/tables/{private}").json()["public"] is False


def test_the_web_page_invite_links_and_static_files(server: Server) -> None:
    web = Path(__file__).resolve().parents[2] / "src" / "kseri" / "web"
    page = httpx.get(f"{server.http}/")
    assert page.status_code == 200 and page.text == (web / "index.html").read_text()
    assert httpx.get(f"{server.http}/t/anything").text == page.text
    asset = next(p for p in sorted(web.rglob("*")) if p.is_file() and p.name != "index.html")
    served = httpx.get(f"{server.http}/static/{asset.relative_to(web).as_posix()}")
    assert served.status_code == 200 and served.content == asset.read_bytes()
    assert httpx.get(f"{server.http}/openapi.json").json()["info"]["title"] == "kseri"


def test_the_rules_list_every_bot_level_weakest_first(server: Server) -> None:
    levels = httpx.get(f"{server.http}/api/rules").json()["levels"]
    assert levels == list(AGENTS) and levels == ["random", "expert-5", "expert-18", "expert-35", "greedy",
                                                 "expert-62", "learned", "expert", "master"]
    for level in levels:  # each one seats a bot
        created = server.create([human(), bot(level)])
        assert created["table"]["seats"][1]["level"] == level
