"""Tournaments in the page (js/tournaments.js), in real Chromium, at a laptop's size and a
phone's: from the lobby to creating one, a rival's entry showing up without a reload, the start
sending the organiser to their table; and a tournament watched live from its first round to its
final standings while two players play it over WebSockets."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import PHONE, ContextFactory, PageErrors, axe_findings, screenshot, sign_up
from playerkit import Browser, Player
from playwright.sync_api import expect
from serverkit import LAX, Server
from test_tournament_arena import keep_playing

LAPTOP = {"width": 1366, "height": 657}
QUICK = "greek,target=1,target_rule=higher-wins"


@pytest.fixture
def tournament_server(tmp_path: Path) -> Iterator[Server]:
    """A server of its own (its own accounts and tournaments)."""
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}",
                    {"--bot-delay": "0.05", "--limits": LAX + ",signups_per_hour=50"}).start()
    yield server
    server.stop()


def play_tables(browser: Browser, tournament_id: str, rounds: int) -> None:
    """In a thread: play this player's table of each round to its end."""
    async def run() -> None:
        played: set[str] = set()
        while len(played) < rounds:
            answer = await asyncio.to_thread(browser.http.get, f"/api/tournaments/{tournament_id}")
            data = answer.json()
            if data["status"] == "finished":
                return
            table = data["my_table"]
            if table and table not in played:
                played.add(table)
                player = await Player.connect(browser, table)
                await player.play_to_the_end()
                await player.close()
            await asyncio.sleep(0.3)

    asyncio.run(run())


def sit_ready(browser: Browser, tournament_id: str, done: threading.Event) -> None:
    """In a thread: take this player's seat at the round's table, say ready, stay until ``done``."""
    async def run() -> None:
        table = None
        while table is None:
            answer = await asyncio.to_thread(browser.http.get, f"/api/tournaments/{tournament_id}")
            table = answer.json()["my_table"]
            await asyncio.sleep(0.2)
        player = await Player.connect(browser, table)
        await player.send({"type": "ready"})
        await asyncio.to_thread(done.wait, 120)
        await player.close()

    asyncio.run(run())


@pytest.mark.parametrize(("viewport", "size"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_a_tournament_from_the_lobby_to_the_table(tournament_server: Server, new_context: ContextFactory,
                                                   page_errors: PageErrors, viewport: dict[str, int],
                                                   size: str) -> None:
    url = tournament_server.http
    page = page_errors.watch(new_context(viewport).new_page())
    sign_up(page.context, url, f"org{size}")
    page.goto(f"{url}/")
    page.click("#tournaments-link")
    page.wait_for_url(re.compile(r"/tournaments$"))
    expect(page.locator(".tournaments .muted")).to_have_text("No tournaments yet: create the first.")
    page.fill("#tournament-name", "Friday Swiss")
    page.fill("#tournament-rounds", "2")
    page.fill("#tournament-minutes", "30")
    page.select_option("#tournament-rated", "1")
    page.select_option("#tournament-bot", "random")
    screenshot(page, f"tournaments-{size}-list")
    assert axe_findings(page) == []
    page.click("#tournament-create")
    page.wait_for_url(re.compile(r"/tournaments/[\w-]+$"))
    tournament_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("h1")).to_have_text("Friday Swiss")
    expect(page.locator("#tournament-status")).to_contain_text("Open for entries")
    expect(page.locator("#tournament-status")).to_contain_text("1 entrant")
    expect(page.locator("#tournament-rated")).to_have_text(
        "Rated: every game counts for the family's rating. "
        "The odd one out plays a bot (Beginner) and scores the bye's point.")
    rival = Browser(tournament_server)
    rival.sign_up(f"riv{size}")
    assert rival.post(f"/api/tournaments/{tournament_id}/join").status_code == 204
    # pushed over the tournament's WebSocket: the rival shows up without a reload
    expect(page.locator("#tournament-status")).to_contain_text("2 entrants")
    expect(page.locator("#tournament-standings tbody tr")).to_have_count(2)
    screenshot(page, f"tournaments-{size}-open")
    assert axe_findings(page) == []
    done = threading.Event()
    seated = threading.Thread(target=sit_ready, args=(rival, tournament_id, done))
    seated.start()
    page.click("#tournament-start")
    page.wait_for_url(re.compile(r"/t/[^/#]+$"))  # sent to the table of round 1
    expect(page.locator(".hand .card-button")).to_have_count(6)
    screenshot(page, f"tournaments-{size}-table", full_page=False)
    done.set()
    seated.join(30)
    rival.close()
    assert page_errors.errors == []


def test_typing_a_tournaments_name_survives_the_lists_refresh(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    """The list of tournaments refreshes every few seconds; the form below it keeps what is
    being typed and the focus (it was once drawn anew each time)."""
    context = new_context(LAPTOP)
    sign_up(context, server, "namer")
    page = page_errors.watch(context.new_page())
    page.goto(f"{server}/tournaments")
    page.focus("#tournament-name")
    page.keyboard.type("Friday")
    with page.expect_response(re.compile(r"/api/tournaments$")):
        pass  # a refresh of the list, come while the name is being typed
    expect(page.locator("#tournament-list, .tournaments .muted").first).to_be_visible()
    page.keyboard.type(" Swiss")
    expect(page.locator("#tournament-name")).to_have_value("Friday Swiss")
    expect(page.locator("#tournament-name")).to_be_focused()


@pytest.mark.parametrize(("viewport", "size"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_standings_update_live_to_the_end(tournament_server: Server, new_context: ContextFactory,
                                          page_errors: PageErrors, viewport: dict[str, int],
                                          size: str) -> None:
    players = [Browser(tournament_server) for _ in range(2)]
    for index, player in enumerate(players):
        player.sign_up(f"p{index}{size}")
    created = players[0].post("/api/tournaments", {"name": "Quick duplicate", "rules": QUICK, "rounds": 2,
                                                   "format": "duplicate", "starts_in": 3600})
    assert created.status_code == 201, created.text
    tournament_id = created.json()["id"]
    assert players[1].post(f"/api/tournaments/{tournament_id}/join").status_code == 204

    page = page_errors.watch(new_context(viewport).new_page())
    page.goto(f"{tournament_server.http}/tournaments/{tournament_id}")
    expect(page.locator("#tournament-status")).to_contain_text("Open for entries")
    # the rules in words, not the server's spec
    expect(page.locator("#tournament-status")).to_contain_text(
        "Greek (Target score: 1; When both reach the target: The higher score wins)")
    asked: list[str] = []  # the page's requests from here on: none for the tournament's data
    page.on("request", lambda request: asked.append(request.url))
    assert players[0].post(f"/api/tournaments/{tournament_id}/start").status_code == 204
    expect(page.locator("#tournament-status")).to_contain_text("Round 1 of 2")
    expect(page.locator(".round[data-round='1'] .pairings li")).to_have_count(1)
    threads = [threading.Thread(target=play_tables, args=(p, tournament_id, 2)) for p in players]
    for thread in threads:
        thread.start()
    expect(page.locator("#standings-title")).to_have_text("Final standings", timeout=120_000)
    for thread in threads:
        thread.join(60)
    expect(page.locator(".round")).to_have_count(2)
    expect(page.locator(".round .result").first).to_have_text(re.compile(r"^\d+–\d+$"))
    expect(page.locator("#tournament-standings tbody tr")).to_have_count(2)
    expect(page.locator(".commitment code")).to_have_count(2)  # the secret, once it is over
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "no sideways scroll"
    assert page.evaluate(BROKEN_HEADS) == [] and page.evaluate(STANDINGS_FIT)
    screenshot(page, f"tournaments-{size}-final")
    assert axe_findings(page) == []
    assert [u for u in asked if "/api/tournaments" in u] == [], "every update pushed, none polled"
    for player in players:
        player.close()
    assert page_errors.errors == []


BROKEN_HEADS = """() => [...document.querySelectorAll('#tournament-standings th')].flatMap(th => {
  const text = th.firstChild, broken = [], words = /\\S+/g;
  for (let m; (m = words.exec(text.data));) {
    const range = document.createRange();
    range.setStart(text, m.index);
    range.setEnd(text, m.index + m[0].length);
    if (range.getClientRects().length > 1) broken.push(m[0]);
  }
  return broken;
})"""
"""The words of the standings' column heads that break over two lines (none should)."""
STANDINGS_FIT = ("() => { const t = document.querySelector('#tournament-standings'); "
                 "return t.scrollWidth <= t.parentElement.clientWidth; }")
"""Whether the standings fit their panel, with nothing to scroll sideways."""


HIDDEN_PAGE = """
window.__hidden = false;
for (const [name, value] of [["hidden", () => window.__hidden],
                             ["visibilityState", () => (window.__hidden ? "hidden" : "visible")]]) {
  Object.defineProperty(Document.prototype, name, { get: value, configurable: true });
}
window.__notices = [];
const RealNotification = window.Notification;
window.Notification = class extends RealNotification {
  static get permission() { return RealNotification.permission; }
  constructor(title, options) {
    window.__notices.push([title, options.body]);
    super(title, options);
  }
};
localStorage.setItem("kseri.notify", "1");
"""
"""The page told hidden when ``window.__hidden`` is set (a tab in the background), and each
notification it shows recorded in ``window.__notices``, the notifications turned on."""


@pytest.mark.parametrize(("viewport", "size"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_a_round_start_pushed_with_a_notice_to_a_hidden_page(tournament_server: Server,
                                                             new_context: ContextFactory,
                                                             page_errors: PageErrors,
                                                             viewport: dict[str, int], size: str) -> None:
    organiser, me = Browser(tournament_server), Browser(tournament_server)
    organiser.sign_up(f"boss{size}")
    me.sign_up(f"me{size}")
    created = organiser.post("/api/tournaments", {"name": "Night Swiss", "rules": QUICK, "rounds": 1,
                                                  "starts_in": 3600})
    assert created.status_code == 201, created.text
    tournament_id = created.json()["id"]
    context = new_context(viewport)
    context.grant_permissions(["notifications"])
    context.add_cookies([{"name": "kseri_session", "value": me.session or "", "url": tournament_server.http}])
    context.add_init_script(HIDDEN_PAGE)
    page = page_errors.watch(context.new_page())
    page.goto(f"{tournament_server.http}/tournaments/{tournament_id}")
    expect(page.locator("#tournament-status")).to_contain_text("1 entrant")
    expect(page.locator("#tournament-join")).to_be_visible()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))

    assert me.post(f"/api/tournaments/{tournament_id}/join").status_code == 204  # from another tab
    expect(page.locator("#tournament-status")).to_contain_text("2 entrants", timeout=30_000)
    expect(page.locator("#tournament-withdraw")).to_be_visible()
    expect(page.locator("#tournament-standings tbody tr")).to_have_count(2)
    screenshot(page, f"tournaments-{size}-joined-live")
    assert [u for u in asked if "/api/tournaments" in u] == [], "the entry was pushed, not polled"

    page.evaluate("window.__hidden = true")
    assert organiser.post(f"/api/tournaments/{tournament_id}/start").status_code == 204
    page.wait_for_url(re.compile(r"/t/[^/#]+$"), timeout=30_000)  # the table pushed: sent there
    page.wait_for_function("window.__notices.length > 0", timeout=30_000)
    title, body = page.evaluate("window.__notices[0]")
    assert title == "▶ Round 1 · Kseri"
    assert body == "Night Swiss: round 1 has begun and your table is ready."
    assert [u for u in sockets if "/ws/tournaments/" in u] == [], "the socket opened before told it"
    table = show_table(me, tournament_id)
    assert page.url.endswith(f"/t/{table}")
    organiser.close()
    me.close()
    assert page_errors.errors == []


def show_table(browser: Browser, tournament_id: str) -> str:
    """This player's table of the round under way, as the server tells it."""
    table: str = browser.http.get(f"/api/tournaments/{tournament_id}").json()["my_table"]
    return table


def clocked_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                   names: str) -> tuple[Path, Server, list[Browser]]:
    """A server on a clock the test sets (the file returned, at 12:00 UTC) and three players
    signed up as ``names.format(0)``, ``names.format(1)``, ``names.format(2)``."""
    now = tmp_path / "now.txt"
    now.write_text("2026-12-04T12:00:00+00:00")
    monkeypatch.setenv("KSERI_CLOCK_FILE", str(now))
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}", {"--limits": LAX}).start()
    try:
        players = [Browser(server) for _ in range(3)]
        for index, player in enumerate(players):
            player.sign_up(names.format(index))
    except BaseException:
        server.stop()
        raise
    return now, server, players


@pytest.mark.parametrize(("viewport", "size"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_forfeits_shown_live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_context: ContextFactory,
                             page_errors: PageErrors, viewport: dict[str, int], size: str) -> None:
    # the server's clock set by the test: the time to come runs out when the test says so
    now, server, players = clocked_server(tmp_path, monkeypatch, f"f{{}}{size}")
    try:
        created = players[0].post("/api/tournaments", {"name": "Early birds", "rules": QUICK, "rounds": 1,
                                                       "starts_in": 3600, "show_within": 30})
        tournament_id = created.json()["id"]
        for player in players[1:]:
            assert player.post(f"/api/tournaments/{tournament_id}/join").status_code == 204
        page = page_errors.watch(new_context(viewport).new_page())
        page.goto(f"{server.http}/tournaments/{tournament_id}")
        expect(page.locator("#tournament-show-within")).to_contain_text("within 30 s")
        assert players[0].post(f"/api/tournaments/{tournament_id}/start").status_code == 204
        expect(page.locator(".round[data-round='1'] .pairings li")).to_have_count(2)
        now.write_text("2026-12-04T12:00:31+00:00")  # nobody came
        expect(page.locator("#standings-title")).to_have_text("Final standings", timeout=60_000)
        expect(page.locator(".result.forfeit")).to_have_text("neither came: lost by both")
        expect(page.locator("#tournament-standings thead th").last).to_have_text("Forfeits")
        forfeits = page.locator("#tournament-standings tbody tr td:last-child")
        expect(forfeits).to_have_text(["0", "1", "1"])  # the bye first: a point, no forfeit
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "no sideways"
        assert page.evaluate(BROKEN_HEADS) == [] and page.evaluate(STANDINGS_FIT)
        screenshot(page, f"tournaments-{size}-forfeits")
        assert axe_findings(page) == []
        for player in players:
            player.close()
    finally:
        server.stop()
    assert page_errors.errors == []


@pytest.mark.parametrize(("viewport", "size"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_an_arena_watched_live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_context: ContextFactory,
                               page_errors: PageErrors, viewport: dict[str, int], size: str) -> None:
    now, server, players = clocked_server(tmp_path, monkeypatch, f"a{{}}{size}")
    try:
        created = players[0].post("/api/tournaments", {"name": "Lunch arena", "rules": QUICK,
                                                       "format": "arena", "minutes": 1, "starts_in": 3600})
        tournament_id = created.json()["id"]
        for player in players[1:]:
            assert player.post(f"/api/tournaments/{tournament_id}/join").status_code == 204
        page = page_errors.watch(new_context(viewport).new_page())
        page.goto(f"{server.http}/tournaments/{tournament_id}")
        expect(page.locator("#tournament-status")).to_contain_text("Arena (paired again at once")
        assert players[0].post(f"/api/tournaments/{tournament_id}/start").status_code == 204
        expect(page.locator("#tournament-status")).to_contain_text("Arena under way until")
        finals: dict[str, dict[str, object]] = {}
        threads = [threading.Thread(target=lambda p=p: asyncio.run(keep_playing(p, tournament_id, finals)))
                   for p in players]
        for thread in threads:
            thread.start()
        expect(page.locator(".round .pairings li")).to_have_count(4, timeout=120_000)  # four games seen live
        now.write_text("2026-12-04T12:01:00+00:00")
        expect(page.locator("#standings-title")).to_have_text("Final standings", timeout=120_000)
        for thread in threads:
            thread.join(60)
        expect(page.locator(".round h2")).to_have_text("Games")
        expect(page.locator("#tournament-standings thead th")).to_have_text(["Place", "Player", "Points"])
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "no sideways"
        screenshot(page, f"tournaments-{size}-arena")
        assert axe_findings(page) == []
        for player in players:
            player.close()
    finally:
        server.stop()
    assert page_errors.errors == []
