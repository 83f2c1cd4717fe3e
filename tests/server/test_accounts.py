"""Accounts on a real server: sign-up to deletion, cookies, forgery, throttling, enumeration,
secrets kept out of logs and answers, guests keeping their games, WebSocket sign-in."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable

import httpx
from playerkit import Browser, Player, play_out
from serverkit import Server, bot, human

PASSWORD = "correct horse battery"


def error(answer: httpx.Response, status: int, code: str) -> str:
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert body["error"]["code"] == code, body
    message: str = body["error"]["message"]
    return message


def test_sign_up_in_and_out_with_a_safe_session_cookie(start_server: Callable[..., Server],
                                                       sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    eleni = Browser(server)
    answer = eleni.post("/api/account/signup", {"username": "Eleni", "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith("kseri_session=")
    flags = {part.strip().split("=")[0].lower(): part for part in cookie.split(";")[1:]}
    assert "httponly" in flags and flags["samesite"].strip().lower() == "samesite=lax"
    assert "secure" not in flags  # plain http on loopback; https gets Secure
    body = answer.json()
    assert set(body) == {"id", "username", "csrf", "claimed"} and body["username"] == "Eleni"
    eleni.csrf = body["csrf"]
    assert eleni.http.get("/api/account").json()["username"] == "Eleni"
    # signing out is state-changing: it needs the CSRF token
    error(eleni.post("/api/account/signout", csrf=False), 403, "bad-csrf")
    assert eleni.post("/api/account/signout").status_code == 204
    error(eleni.http.get("/api/account"), 401, "not-signed-in")
    eleni.sign_in("eleni")  # usernames are case-insensitive
    assert eleni.http.get("/api/account").json()["username"] == "Eleni"


def test_an_unknown_user_and_a_wrong_password_get_the_same_answer(start_server: Callable[..., Server],
                                                                   sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    Browser(server).sign_up("Nikos")
    guest = Browser(server)
    wrong = guest.post("/api/account/signin", {"username": "Nikos", "password": "not the password"})
    unknown = guest.post("/api/account/signin", {"username": "Nobody", "password": "not the password"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {
        "error": {"code": "bad-credentials", "message": "wrong username or password"}}
    assert "set-cookie" not in wrong.headers and "set-cookie" not in unknown.headers


def test_usernames_are_unique_case_insensitively_after_normalisation(start_server: Callable[..., Server],
                                                                     database_url: str) -> None:
    server = start_server(database_url, limits="signups_per_hour=10")
    browser = Browser(server)
    browser.sign_up("Eleni")
    for same in ("ELENI", "eleni", "Ｅｌｅｎｉ"):  # the last in full-width letters (NFKC: Eleni)
        answer = browser.post("/api/account/signup", {"username": same, "password": PASSWORD})
        assert "is taken" in error(answer, 409, "username-taken")
    checks = {
        "ab": "3 to 20 characters, not 2",
        "a" * 21: "3 to 20 characters, not 21",
        "bad name!": "not ' ' '!'",
        "_under": "starts with a letter or a digit",
    }
    for name, message in checks.items():
        answer = browser.post("/api/account/signup", {"username": name, "password": PASSWORD})
        assert message in error(answer, 422, "bad-username")
    short = browser.post("/api/account/signup", {"username": "Maria", "password": "short"})
    assert "8 to 128 characters" in error(short, 422, "bad-password")
    same = browser.post("/api/account/signup", {"username": "Katerina", "password": "KATERINA"})
    assert "must not be the username" in error(same, 422, "bad-password")
    assert Browser(server).sign_up("Γιώργος")["username"] == "Γιώργος"  # Greek letters are letters


def test_forged_requests_are_refused(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    eleni = Browser(server)
    eleni.sign_up("Eleni")
    body = {"username": "Eleni", "password": PASSWORD}
    # a page on another site cannot sign a visitor in (or up)
    error(eleni.post("/api/account/signin", body, Origin="https://evil.example"), 403, "cross-site")
    error(eleni.post("/api/account/signin", body, **{"Sec-Fetch-Site": "cross-site"}), 403, "cross-site")
    own = eleni.post("/api/account/signin", body, Origin=server.http, **{"Sec-Fetch-Site": "same-origin"})
    assert own.status_code == 200
    eleni.csrf = own.json()["csrf"]
    # the cookie alone does not change anything
    change = {"current": PASSWORD, "new": "a new long password"}
    error(eleni.post("/api/account/password", change, csrf=False), 403, "bad-csrf")
    guessed = eleni.post("/api/account/password", change, csrf=False, **{"X-CSRF-Token": "guess"})
    error(guessed, 403, "bad-csrf")
    error(eleni.post("/api/account/delete", {"password": PASSWORD}, csrf=False), 403, "bad-csrf")
    error(eleni.post("/api/seeks", {"family": "greek", "clock": 20}, csrf=False), 403, "bad-csrf")
    eleni.sign_in("Eleni")  # still there, password unchanged


def test_sign_ins_are_throttled_per_account_and_per_address(start_server: Callable[..., Server],
                                                            sqlite_url: str) -> None:
    server = start_server(sqlite_url, limits="failed_signins=2,signups_per_hour=2")
    Browser(server).sign_up("Eleni")
    Browser(server).sign_up("Nikos")
    error(Browser(server).post("/api/account/signup", {"username": "Third", "password": PASSWORD}),
          429, "throttled")
    attacker = Browser(server)
    for _ in range(2):
        error(attacker.post("/api/account/signin", {"username": "Eleni", "password": "guess guess"}),
              401, "bad-credentials")
    # the account is locked for a while, even with the right password
    locked = attacker.post("/api/account/signin", {"username": "Eleni", "password": PASSWORD})
    error(locked, 429, "throttled")
    assert int(locked.headers["retry-after"]) > 0
    # ... and the address, after five times the limit across accounts (unknown ones too)
    for name in ("Nikos", "Nikos", "Maria", "Maria", "Petros", "Petros", "Anna", "Anna"):
        error(attacker.post("/api/account/signin", {"username": name, "password": "guess guess"}),
              401, "bad-credentials")
    error(attacker.post("/api/account/signin", {"username": "Nikos", "password": PASSWORD}), 429, "throttled")


def test_no_password_or_session_secret_in_logs_or_answers(start_server: Callable[..., Server],
                                                         sqlite_url: str) -> None:
    server = start_server(sqlite_url, log_level="debug")
    eleni = Browser(server)
    answers = [eleni.post("/api/account/signup", {"username": "Eleni", "password": PASSWORD})]
    eleni.csrf = answers[0].json()["csrf"]
    session = eleni.session
    assert session
    answers.append(eleni.post("/api/account/password", {"current": PASSWORD, "new": "second secret pass"}))
    answers.append(eleni.http.get("/api/account"))
    answers.append(eleni.http.get("/api/account/data"))
    answers.append(Browser(server).post("/api/account/signin", {"username": "Eleni", "password": PASSWORD}))
    output = server.output()
    assert "POST /api/account/signup" in output  # the debug log did record the requests
    for secret in (PASSWORD, "second secret pass", session):
        assert secret not in output
        for answer in answers:
            assert secret not in answer.text
    for answer in answers:
        assert "argon2" not in answer.text


def test_changing_the_password_ends_the_other_sessions(start_server: Callable[..., Server],
                                                       sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    phone, laptop = Browser(server), Browser(server)
    phone.sign_up("Eleni")
    laptop.sign_in("Eleni")
    error(laptop.post("/api/account/password", {"current": "wrong password", "new": "a new long password"}),
          403, "bad-credentials")
    error(laptop.post("/api/account/password", {"current": PASSWORD, "new": "short"}), 422, "bad-password")
    assert laptop.post("/api/account/password", {"current": PASSWORD, "new": "a new long password"}
                       ).status_code == 204
    assert laptop.http.get("/api/account").status_code == 200
    error(phone.http.get("/api/account"), 401, "not-signed-in")
    error(Browser(server).post("/api/account/signin", {"username": "Eleni", "password": PASSWORD}),
          401, "bad-credentials")
    Browser(server).sign_in("Eleni", "a new long password")


def finished_guest_game(server: Server, name: str) -> tuple[str, str]:
    """A guest's match against a bot, played to the end; the table and the guest's token."""
    created = server.create([human(name), bot("random")])
    table, token = created["table"]["id"], created["token"]
    play_out(Browser(server), table, token)
    return table, token


def test_a_guest_who_signs_up_keeps_the_games_of_this_browser(start_server: Callable[..., Server],
                                                             database_url: str) -> None:
    server = start_server(database_url)
    table, token = finished_guest_game(server, "Eleni")
    other_table, other_token = finished_guest_game(server, "Someone else")
    eleni = Browser(server)
    claimed = eleni.sign_up("Eleni", seats=[{"table": table, "token": token},
                                            {"table": other_table, "token": "not the token"}])["claimed"]
    assert claimed == [{"table": table, "seat": 0}]
    lines = eleni.http.get("/api/players/eleni/games").text.splitlines()
    assert [json.loads(line)["table"] for line in lines] == [table]
    record = json.loads(lines[0])
    assert record["format"] == "kseri-record/1" and record["complete"] and record["seat"] == 0
    # someone else's seat is not taken over by knowing its table
    nikos = Browser(server)
    nikos.sign_up("Nikos", seats=[{"table": table, "token": token},
                                  {"table": other_table, "token": other_token}])
    lines = nikos.http.get("/api/players/Nikos/games").text.splitlines()
    assert [json.loads(line)["table"] for line in lines] == [other_table]


def test_a_websocket_takes_its_seat_from_the_session_cookie(start_server: Callable[..., Server],
                                                           sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    created = server.create([human("Eleni"), bot("greedy")])
    table, token = created["table"]["id"], created["token"]
    eleni = Browser(server)
    eleni.sign_up("Eleni")
    assert eleni.post("/api/account/seats", {"seats": [{"table": table, "token": token}]}).json() == {
        "claimed": [{"table": table, "seat": 0}]}
    stranger = Browser(server)
    stranger.sign_up("Stranger")

    async def check() -> None:
        mine = await Player.connect(eleni, table)  # no token: the cookie says who it is
        assert mine.seat == 0
        watcher = await Player.connect(stranger, table)
        assert watcher.seat is None
        await mine.play_to_the_end()
        await mine.close()
        await watcher.close()

    asyncio.run(check())


def test_a_deleted_account_is_gone_and_its_games_show_a_deleted_player(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    table, token = finished_guest_game(server, "Eleni")
    eleni = Browser(server)
    user_id = eleni.sign_up("Eleni", seats=[{"table": table, "token": token}])["id"]
    data = eleni.http.get("/api/account/data")
    assert data.status_code == 200 and "attachment" in data.headers["content-disposition"]
    exported = data.json()
    assert exported["account"]["username"] == "Eleni" and [g["table"] for g in exported["games"]] == [table]
    assert [set(s) for s in exported["account"]["sessions"]] == [{"created", "expires"}]
    assert "password" not in json.dumps(exported) and eleni.session not in json.dumps(exported)
    error(eleni.post("/api/account/delete", {"password": "wrong password"}), 403, "bad-credentials")
    answer = eleni.post("/api/account/delete", {"password": PASSWORD})
    assert answer.status_code == 204 and 'kseri_session=""' in answer.headers["set-cookie"]
    error(eleni.http.get("/api/account"), 401, "not-signed-in")
    error(Browser(server).post("/api/account/signin", {"username": "Eleni", "password": PASSWORD}),
          401, "bad-credentials")
    error(eleni.http.get("/api/players/Eleni"), 404, "no-such-player")
    record = httpx.get(f"{server.http}/api/tables/{table}/record").json()
    assert record["names"][0] == "deleted player"
    database = sqlite3.connect(sqlite_url.split("///", 1)[1])
    try:
        for table_name, column in (("users", "id"), ("sessions", "user_id"), ("ratings", "user_id"),
                                   ("rating_history", "user_id"), ("seats", "user_id")):
            sql = f"SELECT count(*) FROM {table_name} WHERE {column} = ?"
            assert database.execute(sql, (user_id,)).fetchone() == (0,), sql
        assert database.execute("SELECT count(*) FROM users WHERE username = 'Eleni'").fetchone() == (0,)
    finally:
        database.close()
    Browser(server).sign_up("Eleni")  # the name is free again
