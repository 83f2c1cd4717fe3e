"""The full-screen puzzles, driven headless through Textual's pilot: one solved, one failed."""

from __future__ import annotations

import io

from rich.console import Console

from kseri.analysis.puzzles import starting_set
from kseri.tui.puzzle import Progress, PuzzleSession
from kseri.tui.puzzle_app import PuzzleApp


def screen_text(app: PuzzleApp) -> str:
    """The terminal's text as the player sees it."""
    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(), record=True,
                      force_terminal=True, color_system="truecolor")
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


async def test_a_puzzle_solved_by_key_and_one_failed_then_stop() -> None:
    progress = Progress()
    session = PuzzleSession(starting_set(), progress, lang="fr")
    app = PuzzleApp(session, count=3)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        first = app.puzzle
        assert first is not None
        text = screen_text(app)
        assert f"Problème {first.id}" in text and "Touches" in text
        await pilot.press("9" if len(first.view.hand) < 9 else "0")   # no such card: nothing happens
        assert not app.answered
        await pilot.press(str(first.view.hand.index(first.answers[0]) + 1))
        await pilot.pause()
        assert app.answered and "Bravo" in screen_text(app)
        await pilot.press(str(first.view.hand.index(first.answers[0]) + 1))  # answered: ignored
        assert session.tried == 1
        await pilot.press("enter")
        await pilot.pause()
        second = app.puzzle
        assert second is not None and second.id != first.id and not app.answered
        wrong = next(i for i, card in enumerate(second.view.hand) if card not in second.answers)
        await pilot.press(str(wrong + 1))
        await pilot.pause()
        assert "Pas tout à fait" in screen_text(app)
        await pilot.press("q")
    assert progress.solved == [first.id] and progress.failed == [second.id]
    assert session.tried == 2 and session.solved == 1
