"""Puzzles full screen (Textual): the position drawn with its cards, a number key (or a click)
names the card, Enter goes to the next puzzle, q stops. The same :class:`PuzzleSession` as the
line mode decides what comes next and what an answer does."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.events import Key
from textual.widgets import Footer, Static

from kseri.analysis.puzzles import Puzzle
from kseri.tui.puzzle import PuzzleSession, describe
from kseri.tui.widgets import CardFace

PUZZLE_CSS = """
#title { height: auto; background: $primary-darken-1; padding: 0 1; text-style: bold; }
#facts { height: auto; padding: 0 1; }
.row { height: 5; width: auto; padding: 0 1; }
#keys { height: auto; padding: 0 1; color: $text-muted; }
#outcome { height: auto; padding: 0 1; margin-top: 1; border: round $success; }
.hidden { display: none; }
"""


class PuzzleApp(App[int]):
    """Shows the session's puzzles one at a time until ``count`` are done, none is left or q."""

    CSS = PUZZLE_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "next", "Next"),
        Binding("q", "stop", "Stop"),
    ]

    def __init__(self, session: PuzzleSession, count: int | None = None) -> None:
        super().__init__()
        self.session = session
        self.count = count
        self.puzzle: Puzzle | None = None
        self.answered = False

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(id="title", markup=False)
            yield Static(id="facts", markup=False)
            yield Horizontal(CardFace(id="top"), id="centre", classes="row")
            yield Horizontal(id="hand", classes="row")
            yield Static(id="keys", markup=False)
            yield Static(id="outcome", classes="hidden", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.action_next()

    def action_next(self) -> None:
        """The next puzzle, once this one is answered (or at the start)."""
        if self.puzzle is not None and not self.answered:
            return
        if self.count is not None and self.session.tried >= self.count:
            self.action_stop()
            return
        self.puzzle = self.session.next()
        self.answered = False
        outcome = self.query_one("#outcome", Static)
        if self.puzzle is None:
            outcome.update(self.session.words["puzzle.none"] + "\n" + self.session.farewell())
            outcome.remove_class("hidden")
            return
        outcome.add_class("hidden")
        lines = describe(self.puzzle, self.session.lang)
        self.query_one("#title", Static).update(lines[0])
        self.query_one("#facts", Static).update("\n".join(lines[1:-1]))
        self.query_one("#top", CardFace).show(self.puzzle.view.centre_top)
        hand = self.query_one("#hand", Horizontal)
        hand.remove_children()
        hand.mount_all(CardFace(card, index=index) for index, card in enumerate(self.puzzle.view.hand))
        keys = self.session.words["puzzle.keys"].format(n=len(self.puzzle.view.hand))
        self.query_one("#keys", Static).update(keys)

    def action_stop(self) -> None:
        """Stop (the progress so far is kept)."""
        self.exit(0)

    def choose(self, index: int) -> None:
        """Answer with the hand's card number ``index`` (from 0)."""
        puzzle = self.puzzle
        if puzzle is None or self.answered or not 0 <= index < len(puzzle.view.hand):
            return
        self.answered = True
        lines = self.session.answer(puzzle, str(puzzle.view.hand[index]))
        outcome = self.query_one("#outcome", Static)
        outcome.update("\n".join(lines))
        outcome.remove_class("hidden")
        for face in self.query(CardFace):
            best = face.index is not None and face.card is not None and face.card in puzzle.answers
            face.set_class(best, "hint")

    def on_key(self, event: Key) -> None:
        if event.character is not None and event.character.isdigit() and event.character != "0":
            self.choose(int(event.character) - 1)
            event.stop()

    def on_card_face_chosen(self, message: CardFace.Chosen) -> None:
        self.choose(message.index)


__all__ = ["PuzzleApp"]
