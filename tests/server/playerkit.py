"""Test tools for the players' layer: a browser-like HTTP client holding a session cookie, and
a WebSocket player that signs in with that cookie."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import websockets
from serverkit import SERVER_MESSAGES, Server

from kseri.agents.expert import ExpertAgent
from kseri.views import view_from_json

Json = dict[str, Any]
Chooser = Callable[[Json], str]
"""How a test player picks its card from the view the server sent (as JSON)."""


def first_card(view: Json) -> str:
    """The first card of the hand: quick, and often a poor play."""
    return str(view["hand"][0])


def worst_card(view: Json) -> str:
    """The card the expert values least: a clear mistake whenever the hand holds a better one."""
    return str(ExpertAgent().ranked(view_from_json(view))[-1][0])


class Browser:
    """One browser: a cookie jar, the session's CSRF token once signed in."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.http, timeout=30)
        self.csrf = ""
        self.username = ""

    def post(self, path: str, body: Json | None = None, *, csrf: bool = True,
             **headers: str) -> httpx.Response:
        sent = ({"X-CSRF-Token": self.csrf} if csrf and self.csrf else {}) | headers
        return self.http.post(path, json=body if body is not None else {}, headers=sent)

    def enter(self, how: str, username: str, password: str, seats: list[Json] | None = None,
              status: int = 200) -> Json:
        answer = self.post(f"/api/account/{how}", {"username": username, "password": password,
                                                    "seats": seats or []})
        assert answer.status_code == status, answer.text
        data: Json = answer.json()
        if answer.is_success:
            self.csrf, self.username = data["csrf"], data["username"]
        return data

    def sign_up(self, username: str, password: str = "correct horse battery", **kwargs: Any) -> Json:
        return self.enter("signup", username, password, status=kwargs.pop("status", 201), **kwargs)

    def sign_in(self, username: str, password: str = "correct horse battery", **kwargs: Any) -> Json:
        return self.enter("signin", username, password, **kwargs)

    @property
    def session(self) -> str | None:
        return self.http.cookies.get("kseri_session")

    def close(self) -> None:
        self.http.close()


class Player:
    """A WebSocket player: its seat from its session cookie (or a token); plays the card its
    ``choose`` picks (the first, unless told)."""

    def __init__(self, connection: websockets.ClientConnection, choose: Chooser = first_card) -> None:
        self.connection = connection
        self.choose = choose
        self.seat: int | None = None
        self.last: Json | None = None
        self.welcome: Json = {}

    @classmethod
    async def connect(cls, browser: Browser, table_id: str, token: str | None = None,
                      choose: Chooser = first_card) -> Player:
        headers = {"Cookie": f"kseri_session={browser.session}"} if browser.session else {}
        connection = await websockets.connect(browser.server.ws(table_id), additional_headers=headers)
        player = cls(connection, choose)
        await player.send({"type": "hello", "protocol": 1, "token": token})
        welcome = await player.receive()
        assert welcome["type"] == "welcome", welcome
        player.seat, player.welcome = welcome["seat"], welcome
        return player

    async def send(self, message: Json) -> None:
        await self.connection.send(json.dumps(message))

    async def receive(self, timeout: float = 30) -> Json:
        message: Json = json.loads(await asyncio.wait_for(self.connection.recv(), timeout))
        SERVER_MESSAGES.validate(message)
        return message

    async def play_to_the_end(self, timeout: float = 120) -> Json:
        """Ready between rounds, its chosen card on its turn, until the match is over."""
        readied: set[int] = set()
        async with asyncio.timeout(timeout):
            while True:
                message = await self.receive(timeout)
                if message["type"] == "error" and message["code"] in ("stale", "not-playing"):
                    continue
                assert message["type"] != "error", message
                if message["type"] != "state":
                    continue
                self.last = message
                if message["table"]["status"] == "finished":
                    return message
                view = message["view"]
                if view is None or view["phase"] == "round-over":
                    round_index = message["fairness"]["round"]
                    if round_index not in readied:
                        readied.add(round_index)
                        await self.send({"type": "ready"})
                elif view["turn"] == self.seat:
                    await self.send({"type": "play", "card": self.choose(view), "seq": message["seq"]})

    async def play_once(self, timeout: float = 60) -> None:
        """Ready between rounds until its turn, play its chosen card, and wait until the play is
        taken (the turn moves on)."""
        played = False
        async with asyncio.timeout(timeout):
            while True:
                message = await self.receive(timeout)
                if message["type"] != "state":
                    continue
                view = message["view"]
                if view is None or view["phase"] == "round-over":
                    await self.send({"type": "ready"})
                elif view["turn"] == self.seat and not played:
                    await self.send({"type": "play", "card": self.choose(view), "seq": message["seq"]})
                    played = True
                elif played and view["turn"] != self.seat:
                    return

    async def close(self) -> None:
        await self.connection.close()


def play_out(browser: Browser, table_id: str, token: str | None = None,
             choose: Chooser = first_card) -> None:
    """Play ``browser``'s seat at a table (or ``token``'s) to the match's end, as a
    :class:`Player` on a connection of its own that plays what ``choose`` picks."""

    async def play() -> None:
        player = await Player.connect(browser, table_id, token, choose)
        await player.play_to_the_end()
        await player.close()

    asyncio.run(play())
