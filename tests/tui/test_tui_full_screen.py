"""The full-screen app, driven headless through Textual's pilot as a player would."""

from __future__ import annotations

import io
import re

from rich.console import Console
from textual.pilot import Pilot

from kseri.records import load_record
from kseri.rules import Rules
from kseri.tui.app import PlayApp, ReplayApp, RoundOver
from kseri.tui.replay import replay_steps
from kseri.tui.session import GameSession


def screen_text(app: PlayApp | ReplayApp) -> str:
    """The terminal's text as the player sees it (what ``App.export_screenshot`` draws)."""
    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(), record=True,
                      force_terminal=True, color_system="truecolor")
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


async def settle(pilot: Pilot[str | None], app: PlayApp) -> None:
    """Wait until the bots have played and the player has something to do."""
    for _ in range(500):
        await pilot.pause()
        state = app.session.state
        if state == "human" or (state in ("round-over", "match-over") and isinstance(app.screen, RoundOver)):
            return
    raise AssertionError(f"the app did not settle (state {app.session.state})")


def new_session(spec: str = "greek", seats: tuple[str, ...] = ("you", "greedy"),
                seed: int = 3) -> GameSession:
    return GameSession.start(Rules.from_spec(spec), seats, seed)


async def test_a_whole_round_with_number_keys_then_the_score_table() -> None:
    session = new_session()
    app = PlayApp(session, delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        view = session.view()
        text = screen_text(app)
        assert "kseri · greek rules · round 1" in text
        for number, card in enumerate(view.hand, 1):
            assert card.pretty() in text
            face = app.query_one(f"#card-{number}")
            assert face.region.y >= 18  # the hand sits at the bottom
        assert f"Centre: {view.centre_size} cards" in text
        assert view.centre_top is not None and view.centre_top.pretty() in text
        assert "Stock: 36 cards" in text and "Your turn: press 1-6" in text
        assert "target" in text and "151" in text
        presses = 0
        while session.state == "human":
            hand = session.view().hand
            await pilot.press(str(len(hand)))  # the last card, by its number
            presses += 1
            await settle(pilot, app)
            if session.state == "human" and presses % 6 == 1:  # the play stays readable on screen
                assert re.search(rf"You play {re.escape(hand[-1].pretty())} on ", screen_text(app))
        assert presses == 24
        assert isinstance(app.screen, RoundOver)
        text = screen_text(app)
        result = session.view().round_results[0]
        assert "Round 1 is over" in text
        for label in ("Cards captured", "Point cards", "Majority", "Kseris", "Round", "Match (to 151)"):
            assert label in text
        for side, points in enumerate(result.points):
            captured = len(result.captured[side])
            assert re.search(rf"Cards captured.*\b{captured}\b", text)
            assert re.search(rf"Round\s.*\b{points}\b", text)
        await pilot.press("enter")
        await settle(pilot, app)
        assert session.view().round_index == 1
        assert "round 2" in screen_text(app)


async def test_mouse_arrows_memory_and_turns() -> None:
    session = new_session(seed=5)
    app = PlayApp(session, delay=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        hand = session.view().hand
        await pilot.click("#card-2")
        await settle(pilot, app)
        ours = [play.card for play in session.view().plays if play.seat == session.human]
        assert ours[-1] == hand[1]
        hand = session.view().hand
        await pilot.press("right", "right", "enter")
        await settle(pilot, app)
        ours = [play.card for play in session.view().plays if play.seat == session.human]
        assert ours[-1] == hand[2]  # two steps right of the first card
        assert "Memory aid" not in screen_text(app) and "Last plays" in screen_text(app)
        await pilot.press("m")
        text = screen_text(app)
        assert "Memory aid" in text and "Seen this round" in text and "Last plays" not in text
        view = session.view()
        seen = re.search(r"Seen this round \((\d+) cards\)", text)
        assert seen and int(seen.group(1)) == len(view.plays) + len(view.centre_dealt)
        for play in view.plays:  # each card played is listed under its suit
            suit = play.card.pretty()[-1]
            rank = play.card.pretty()[:-1]
            assert re.search(rf"{suit} [^│]*\b{rank}\b", text)
        await pilot.press("m")
        assert "Memory aid" not in screen_text(app) and "Last plays" in screen_text(app)


async def test_partnership_table_shows_every_seat() -> None:
    session = new_session("partnership", ("you", "greedy", "random", "greedy"), seed=2)
    app = PlayApp(session, delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        text = screen_text(app)
        assert "Greedy" in text and "Random (partner)" in text and "Greedy 2" in text
        assert "You & Random" in text and "Greedy & Greedy 2" in text
        assert "Your turn: press 1-4" in text


async def test_quitting_saves_the_unfinished_match(tmp_path: object) -> None:
    from pathlib import Path

    record = Path(str(tmp_path)) / "game.json"
    session = GameSession.start(Rules.from_spec("greek"), ("you", "greedy"), 7, record_path=record)
    app = PlayApp(session, delay=0)
    async with app.run_test() as pilot:
        await settle(pilot, app)
        await pilot.press("1")
        await settle(pilot, app)
        await pilot.press("ctrl+q")  # Textual's own quit key saves too
    assert app.return_value == f"Game saved: {record}\nResume it with: kseri play --resume {record}"
    resumed = GameSession.resume(record)
    assert resumed.view() == session.view()


async def test_replay_steps_through_a_finished_match(tmp_path: object) -> None:
    from pathlib import Path

    record = Path(str(tmp_path)) / "done.json"
    session = GameSession.start(Rules.from_spec("greek,target=20"), ("you", "greedy"), 3, record_path=record)
    while session.state != "match-over":
        if session.state == "human":
            session.play(session.view().hand[0])
        elif session.state == "bot":
            session.play_bot(session.choose_bot())
        else:
            session.next_round()
    replay = replay_steps(record)
    app = ReplayApp(replay)
    async with app.run_test(size=(80, 24)) as pilot:
        first = replay.steps[0].views
        text = screen_text(app)
        assert "step 1 of" in text and "Round 1:" in text
        for view in first:  # every hand is shown
            assert all(card.pretty() in text for card in view.hand)
        await pilot.press("right")
        assert "step 2 of" in screen_text(app)
        assert replay.steps[1].caption in screen_text(app)
        await pilot.press("end")
        text = screen_text(app)
        assert "won the match" in text and "Point cards" in text


async def test_the_winner_and_another_match(tmp_path: object) -> None:
    from pathlib import Path

    record = Path(str(tmp_path)) / "short.json"
    session = GameSession.start(Rules.from_spec("greek,target=5,target_rule=higher-wins"), ("you", "greedy"),
                                10, record_path=record)
    assert session.view().dealer == 0  # so the round's last card is ours
    while True:  # play up to it
        view = session.view()
        if session.state == "human" and view.stock_size == 0 and sum(view.hand_sizes) == 1:
            break
        if session.state == "human":
            session.play(view.hand[0])
        else:
            session.play_bot(session.choose_bot())
    app = PlayApp(session, delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("1")
        await settle(pilot, app)
        view = session.view()
        assert session.state == "match-over" and view.winner is not None
        text = screen_text(app)
        assert ("You win the match!" if view.winner == 0 else "Greedy wins the match!") in text
        assert "Play again? y / N" in text and "Record saved: " in text
        assert load_record(record)["complete"] is True
        await pilot.press("y")
        await settle(pilot, app)
        assert app.session is not session and app.session.view().round_index == 0
        assert app.session.record_path == record.with_name("short-again-2.json")
        assert len(app.session.view().hand) == 6 and "round 1" in screen_text(app)


async def test_the_hint_key_shows_the_master_estimate_best_first() -> None:
    session = new_session(seed=5)
    app = PlayApp(session, delay=0, hint_iterations=20)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("h")
        for _ in range(200):
            await pilot.pause()
            if "Hint (" in screen_text(app):
                break
        text = screen_text(app)
        estimates = session.hint(20)  # the same view and seed give the same hint
        start = text.index("Hint (")
        shown = re.findall(r"(\S+) ([+-]\d+\.\d)", text[start: start + 300])
        assert [card for card, _ in shown] == [card.pretty() for card, _ in estimates][: len(shown)]
        assert float(shown[0][1]) == round(estimates[0][1], 1)
        best = session.view().hand.index(estimates[0][0])
        assert app.query_one(f"#card-{best + 1}").has_class("hint", "cursor")
        await pilot.press("enter")  # Enter plays the hinted card
        await settle(pilot, app)
        assert estimates[0][0] in [play.card for play in session.view().plays]
