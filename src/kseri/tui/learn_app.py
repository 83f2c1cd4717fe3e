"""The tutorial full screen (Textual): the same lesson scripts as :mod:`kseri.tui.learn`, with
the cards drawn; number keys (or a click) play a card or pick an answer, Enter goes on, q stops."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.events import Key
from textual.widgets import Footer, Input, Static

from kseri.cards import Card
from kseri.tui.widgets import CardFace

JSON = dict[str, Any]

LEARN_CSS = """
#title { height: auto; background: $primary-darken-1; padding: 0 1; text-style: bold; }
#intro { height: auto; padding: 0 1; color: $text-muted; }
.row { height: 5; width: auto; padding: 0 1; }
#counts, #seen { height: auto; padding: 0 1; }
#keys { height: auto; padding: 0 1; color: $text-muted; }
#ask { height: auto; padding: 0 1; margin-top: 1; background: $accent 30%; text-style: bold; }
#feedback { height: auto; padding: 0 1; color: $warning; }
#outcome { height: auto; padding: 0 1; margin-top: 1; border: round $success; }
.hidden { display: none; }
#answer { width: 20; margin: 0 1; }
"""


class LearnApp(App[int]):
    """Teaches the lessons of a tutorial (``build_tutorial``) one step at a time."""

    CSS = LEARN_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "next", "Next"),
        Binding("q", "quit_tutorial", "Stop"),
    ]

    def __init__(self, tutorial: JSON, lesson_ids: list[str] | None = None) -> None:
        super().__init__()
        self.ui: dict[str, str] = tutorial["ui"]
        self.lessons: list[JSON] = [lesson for lesson in tutorial["lessons"]
                                    if not lesson_ids or lesson["id"] in lesson_ids]
        self.lesson_index = 0
        self.step_index = 0
        self.answered = False
        self.finished = False

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(id="title", markup=False)
            yield Static(id="intro", markup=False)
            yield Horizontal(id="centre", classes="row")
            yield Static(id="counts", markup=False)
            yield Static(id="seen", markup=False)
            yield Horizontal(id="hand", classes="row")
            yield Static(id="keys", markup=False)
            yield Static(id="ask", markup=False)
            yield Static(id="feedback", classes="hidden", markup=False)
            yield Input(id="answer", classes="hidden", type="integer")
            yield Static(id="outcome", classes="hidden", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    @property
    def lesson(self) -> JSON:
        return self.lessons[self.lesson_index]

    @property
    def step(self) -> JSON:
        step: JSON = self.lesson["steps"][self.step_index]
        return step

    # -- drawing ------------------------------------------------------------------------------

    def show(self) -> None:
        """Draw the current step (asking, or answered with what happened)."""
        lesson, step = self.lesson, self.step
        progress = self.ui["progress"].format(n=self.lesson_index + 1, total=len(self.lessons))
        self._text("#title", f"{progress}: {lesson['title']}")
        self._text("#intro", lesson["intro"] if self.step_index == 0 and not self.answered else "")
        table = step.get("after" if self.answered else "before") if step["kind"] == "play" else None
        centre: list[Card | None] = []
        hand: list[Card] = []
        counts = seen = ""
        if table is not None:
            centre = [Card(code) for code in table["centre"]] or [None]
            hand = [Card(code) for code in table["hand"]]
            parts = [self.ui["opponentCards"].format(n=table["opponent"]),
                     self.ui["stock"].format(n=table["stock"]),
                     self.ui["captured"].format(n=table["captured"][0])]
            if table["face_down"]:
                parts.append(self.ui["faceDown"].format(n=table["face_down"]))
            if table["shown"]:
                parts.append(self.ui["shown"].format(card=Card(table["shown"]).pretty()))
            counts = " · ".join(parts)
            if table["seen"]:
                seen = self.ui["seen"].format(cards=" ".join(Card(code).pretty() for code in table["seen"]))
        elif step["kind"] == "choice" and step.get("cards"):
            centre = [Card(code) for code in step["cards"]]
        elif step["kind"] == "count":
            seen = f"{self.ui['yourCards']}: {' '.join(Card(code).pretty() for code in step['captured'])}\n" \
                   f"{self.ui['opponentCaptured'].format(n=step['opponent_cards'])}"
        self._cards("#centre", centre[-8:], chooser=False)
        self._cards("#hand", hand, chooser=not self.answered)
        self._text("#counts", counts)
        self._text("#seen", seen)
        ask = step["do"]
        if step["kind"] == "choice":
            ask += "\n" + "\n".join(f"  {index}) {option}" for index, option in enumerate(step["options"], 1))
        choices = len(hand) if step["kind"] == "play" else len(step.get("options", ()))
        keys = self.ui["keysHelp"].format(n=choices) if choices and not self.answered else ""
        self._text("#keys", keys)
        self._text("#ask", "" if self.answered else ask)
        answer = self.query_one("#answer", Input)
        answer.set_class(step["kind"] != "count" or self.answered, "hidden")
        if step["kind"] == "count" and not self.answered:
            answer.focus()
        self.query_one("#outcome", Static).set_class(not self.answered, "hidden")
        if self.answered:
            self.query_one("#outcome", Static).update(self._outcome())

    def _text(self, selector: str, text: str) -> None:
        """Show ``text`` in a line of the screen, or hide the line when there is none."""
        line = self.query_one(selector, Static)
        line.update(text)
        line.set_class(not text, "hidden")

    def _cards(self, selector: str, cards: list[Card | None] | list[Card], *, chooser: bool) -> None:
        row = self.query_one(selector, Horizontal)
        row.remove_children()
        row.mount_all([CardFace(card, index=index if chooser else None) for index, card in enumerate(cards)])

    def _outcome(self) -> str:
        step = self.step
        lines = []
        if step["kind"] == "play":
            for event in step["events"]:
                lines.append(event["text"])
                lines += [f"** {mark['text']}" for mark in event["marks"]]
        elif step["kind"] == "count":
            lines += [f"{self.ui['right']} {step['answer']}", step["breakdown"]]
        else:
            lines.append(f"{self.ui['right']} {step['options'][step['answer']]}")
        lines.append(step["done"])
        last_step = self.step_index == len(self.lesson["steps"]) - 1
        if last_step:
            lines.append(f"✓ {self.lesson['title']}: {self.ui['completed']}")
            if self.lesson_index == len(self.lessons) - 1:
                lines.append(self.ui["allDone"])
        lines.append(f"⏎ Enter: {self.ui['next']}")
        return "\n".join(lines)

    # -- answers ------------------------------------------------------------------------------

    def try_card(self, index: int) -> None:
        """The learner chose the card at ``index`` of the hand."""
        step = self.step
        hand: list[str] = step["before"]["hand"]
        if step["kind"] != "play" or self.answered or not 0 <= index < len(hand):
            return
        if hand[index] == step["card"]:
            self._right()
        else:
            self._text("#feedback", step["wrong"].get(hand[index], self.ui["notRight"]))

    def try_option(self, index: int) -> None:
        """The learner picked answer ``index`` of a question."""
        step = self.step
        if step["kind"] != "choice" or self.answered or not 0 <= index < len(step["options"]):
            return
        if index == step["answer"]:
            self._right()
        else:
            self._text("#feedback", self.ui["notRight"])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        step = self.step
        if step["kind"] != "count" or self.answered:
            return
        value = event.value.strip()
        if not value.lstrip("-").isdigit():
            self._text("#feedback", self.ui["notNumber"])
        elif int(value) == step["answer"]:
            event.input.value = ""
            self._right()
        else:
            self._text("#feedback", self.ui["notRight"])

    def _right(self) -> None:
        self.answered = True
        self._text("#feedback", "")
        self.set_focus(None)
        self.show()

    def on_card_face_chosen(self, message: CardFace.Chosen) -> None:
        self.try_card(message.index)

    def on_key(self, event: Key) -> None:
        if event.character and event.character.isdigit() and not isinstance(self.focused, Input):
            index = int(event.character) - 1
            if self.step["kind"] == "play":
                self.try_card(index)
            else:
                self.try_option(index)
            event.stop()

    def action_next(self) -> None:
        """Go on to the next step or lesson, once this step is done; the end leaves the app."""
        if not self.answered:
            return
        if self.step_index + 1 < len(self.lesson["steps"]):
            self.step_index += 1
        elif self.lesson_index + 1 < len(self.lessons):
            self.lesson_index += 1
            self.step_index = 0
        else:
            self.finished = True
            self.exit(0)
            return
        self.answered = False
        self.show()

    def action_quit_tutorial(self) -> None:
        self.exit(0)
