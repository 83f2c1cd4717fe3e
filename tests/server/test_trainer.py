"""The memory trainer's routes on a real server (server/api/trainer.py): the drill's positions
and marks (a signed-in player's standing kept, nothing stored on bad input), and a casual
table's quiz and counting aid from the seat's own view; a rated table and a table without hints
are refused."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
from playerkit import Browser
from serverkit import Client, Server, bot, error, human

from kseri.analysis.memory import Moment, counting_grid, drill_view, questions
from kseri.cards import RANK_NAMES
from kseri.rules import Rules
from kseri.views import view_from_json

Json = dict[str, Any]


def right_answers(asked: tuple[Any, ...]) -> Json:
    """The true answer to each question, as a client sends it."""
    answers: Json = {}
    for question in asked:
        truth = question.truth
        if isinstance(truth, int):
            answers[question.id] = truth
        elif question.kind == "cards":
            answers[question.id] = [str(card) for card in truth]
        else:
            answers[question.id] = [RANK_NAMES[rank] for rank in truth]
    return answers


def test_a_drill_position_is_set_without_its_answers_and_marked(server: Server) -> None:
    got = httpx.get(f"{server.http}/api/trainer/position", params={"moment": "last", "preset": "pisti",
                                                                    "seed": 5})
    assert got.status_code == 200, got.text
    position = got.json()
    assert position["id"] == "pisti:last:5" and position["batch"] == 6
    assert [q["id"] for q in position["questions"]] == ["jacks", "point_cards", "kseri_ranks", "rank_out"]
    assert "truth" not in got.text
    view = drill_view(Rules.preset("pisti"), 5, Moment.LAST)
    assert view_from_json(position["view"]) == view  # seat 0's view, as the pure function makes it
    answers = right_answers(questions(view))
    answers["rank_out"] += 2  # one wrong
    marked = httpx.post(f"{server.http}/api/trainer/answer", json={"id": position["id"], "answers": answers})
    assert marked.status_code == 200, marked.text
    body = marked.json()
    assert [m["credit"] for m in body["marks"]] == [1.0, 1.0, 1.0, 0.0]
    assert body["credit"] == 3.0 and body["questions"] == 4 and body["standing"] is None
    assert body["marks"][3]["truth"] == answers["rank_out"] - 2
    drawn = httpx.get(f"{server.http}/api/trainer/position").json()
    assert drawn["moment"] == "middle" and drawn["preset"] == "greek"


def test_bad_drill_input_is_refused_and_nothing_is_stored(start_server: Callable[..., Server],
                                                          database_url: str) -> None:
    server = start_server(database_url)
    player = Browser(server)
    player.sign_up("Mnemosyne")
    assert player.http.get("/api/trainer/standing").json() == {"moments": {}}
    position = player.http.get("/api/trainer/position", params={"moment": "early", "seed": 3}).json()
    view = drill_view(Rules.preset("greek"), 3, Moment.EARLY)
    right = right_answers(questions(view))
    assert "no question 'queens'" in error(player.post("/api/trainer/answer", {
        "id": position["id"], "answers": {"queens": 1}}), 404, "no-such-question")
    assert "whole number" in error(player.post("/api/trainer/answer", {
        "id": position["id"], "answers": {**right, "jacks": "many"}}), 422, "bad-answer")
    assert "not a card" in error(player.post("/api/trainer/answer", {
        "id": position["id"], "answers": {"point_cards": ["11X"]}}), 422, "bad-answer")
    assert "not a rank" in error(player.post("/api/trainer/answer", {
        "id": position["id"], "answers": {"kseri_ranks": ["Z"]}}), 422, "bad-answer")
    error(player.post("/api/trainer/answer", {"id": "greek:dawn:3", "answers": {}}), 404, "no-such-position")
    error(player.post("/api/trainer/answer", {"id": position["id"], "answers": right}, csrf=False),
          403, "bad-csrf")
    error(player.http.get("/api/trainer/position", params={"preset": "poker"}), 422, "no-such-preset")
    assert player.http.get("/api/trainer/standing").json() == {"moments": {}}  # nothing stored
    first = player.post("/api/trainer/answer", {"id": position["id"], "answers": right}).json()
    assert first["standing"] == {"positions": 1, "credit": 4.0, "questions": 4, "streak": 1, "best_streak": 1,
                                 "best_position": 4.0}
    second = player.post("/api/trainer/answer", {"id": position["id"], "answers": {**right, "jacks": 0}})
    assert second.json()["standing"]["streak"] == 0 and second.json()["standing"]["best_streak"] == 1
    assert player.http.get("/api/trainer/standing").json()["moments"]["early"]["positions"] == 2
    assert error(httpx.get(f"{server.http}/api/trainer/standing"), 401, "guest")
    player.close()


def test_a_casual_table_quizzes_the_seat_on_its_own_view(server: Server) -> None:
    created = server.create([human("Eleni"), bot()], rules="greek")
    table_id, token = created["table"]["id"], created["token"]
    auth = {"Authorization": f"Bearer {token}"}

    async def play() -> None:
        client = await Client.connect(server, table_id, token)
        state = await client.play_until(lambda s: s["view"] is not None and s["view"]["turn"] == 0
                                        and len(s["view"]["plays"]) >= 4)
        view = view_from_json(state["view"])
        asked = await asyncio.to_thread(httpx.get, f"{server.http}/api/tables/{table_id}/quiz", headers=auth)
        assert asked.status_code == 200, asked.text
        quiz = asked.json()
        assert quiz["seq"] == state["seq"] and quiz["questions"] == [q.to_json() for q in questions(view)]
        answers = right_answers(questions(view))
        marked = await asyncio.to_thread(httpx.post, f"{server.http}/api/tables/{table_id}/quiz",
                                         json={"seq": quiz["seq"], "answers": answers}, headers=auth)
        assert [m["exact"] for m in marked.json()["marks"]] == [True] * 4
        aid = await asyncio.to_thread(httpx.get, f"{server.http}/api/tables/{table_id}/counting",
                                      headers=auth)
        assert aid.json()["grid"] == counting_grid(view)
        stale = await asyncio.to_thread(httpx.post, f"{server.http}/api/tables/{table_id}/quiz",
                                        json={"seq": quiz["seq"] - 1, "answers": answers}, headers=auth)
        error(stale, 409, "moved-on")
        nobody = await asyncio.to_thread(httpx.get, f"{server.http}/api/tables/{table_id}/counting")
        error(nobody, 401, "bad-token")
        await client.close()

    asyncio.run(play())
    error(httpx.get(f"{server.http}/api/tables/nothing-here/quiz", headers=auth), 404, "no-such-table")


def test_a_table_without_hints_is_refused(server: Server) -> None:
    created = server.create([human("Eleni"), human("Nikos")], casual=False)
    auth = {"Authorization": f"Bearer {created['token']}"}
    table_id = created["table"]["id"]
    for route in ("quiz", "counting"):
        error(httpx.get(f"{server.http}/api/tables/{table_id}/{route}", headers=auth), 403, "not-casual")


def test_a_rated_table_never_offers_the_trainer(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    eleni, nikos = Browser(server), Browser(server)
    eleni.sign_up("Eleni")
    nikos.sign_up("Nikos")
    seeks = [browser.post("/api/seeks", {"family": "greek", "clock": 60}).json()["id"]
             for browser in (eleni, nikos)]
    status = eleni.http.get(f"/api/seeks/{seeks[0]}", params={"wait": 10}).json()
    assert status["status"] == "paired", status
    table_id = status["table"]
    for route in ("quiz", "counting"):
        assert "rated" in error(eleni.http.get(f"/api/tables/{table_id}/{route}"), 403, "rated")
    error(eleni.post(f"/api/tables/{table_id}/quiz", {"seq": 1, "answers": {"jacks": 2}}), 403, "rated")
    eleni.close()
    nikos.close()
