"""Pieces of the table drawn by the full-screen apps: cards, the score table."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual.events import Click
from textual.message import Message
from textual.widget import Widget

from kseri.cards import SUIT_SYMBOLS, Card
from kseri.engine import RoundResult, View
from kseri.tui.text import breakdown_rows, is_red, rank_text


class CardFace(Widget):
    """One card as a small box: the rank in two corners and the suit in the middle (red for ♦ ♥).

    ``card=None`` draws an empty place (an empty table); ``face_down`` draws the back.
    """

    DEFAULT_CSS = """
    CardFace {
        width: 7;
        height: 5;
        border: round #8a8a8a;
        background: #f4f1e8;
        color: #111111;
    }
    CardFace.red { color: #c8102e; }
    CardFace.empty { background: transparent; border: round $panel-lighten-2; color: $text-muted; }
    CardFace.back { background: #27408b; color: #9fb6ff; }
    CardFace.cursor { border: heavy $accent; }
    CardFace.hint { border: double $success; }
    CardFace:hover { border: heavy $accent-lighten-1; }
    """

    class Chosen(Message):
        """The player clicked a card of their hand."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, card: Card | None = None, *, index: int | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.index = index
        self.card: Card | None = None
        self.face_down = False
        self.show(card)

    def show(self, card: Card | None, *, face_down: bool = False) -> None:
        """Show ``card`` (``None``: an empty place)."""
        self.card = card
        self.face_down = face_down
        self.set_class(card is not None and is_red(card) and not face_down, "red")
        self.set_class(card is None and not face_down, "empty")
        self.set_class(face_down, "back")
        if self.index is not None:
            self.border_subtitle = str(self.index + 1) if card is not None else ""
        self.refresh()

    def render(self) -> Text:
        if self.face_down:
            return Text("▚▚▚▚▚\n▚▚▚▚▚\n▚▚▚▚▚")
        if self.card is None:
            return Text("\nempty", style="italic")
        rank = rank_text(self.card.rank)
        suit = SUIT_SYMBOLS[self.card.suit]
        corner = rank + suit
        return Text(f"{corner:<5}\n  {suit}  \n{corner:>5}")

    def on_click(self, event: Click) -> None:
        if self.index is not None and self.card is not None:
            event.stop()
            self.post_message(self.Chosen(self.index))


def cards_text(cards: Sequence[Card | None], *, separator: str = " ") -> Text:
    """Cards inline, coloured by suit (``▒▒`` for a face-down card)."""
    text = Text()
    for position, card in enumerate(cards):
        if position:
            text.append(separator)
        if card is None:
            text.append("▒▒", style="blue")
        else:
            text.append(card.pretty(), style="bold red" if is_red(card) else "bold")
    return text


def score_table(result: RoundResult, view: View, side_names: Sequence[str]) -> Table:
    """A round's itemised score per side, with the running match totals under it."""
    table = Table(expand=False, show_edge=False, pad_edge=False)
    table.add_column("")
    for name in side_names:
        table.add_column(name, justify="right", max_width=30)
    for label, cells in breakdown_rows(result, len(side_names)):
        style = "bold" if label == "Round" else ("dim" if label.startswith(" ") else "")
        table.add_row(Text(label.strip() if style != "dim" else "  cards", style=style),
                      *(Text(cell, style=style, justify="left" if style == "dim" else "right")
                        for cell in cells))
    table.add_section()
    table.add_row(Text(f"Match (to {view.target})", style="bold"),
                  *(Text(str(total), style="bold") for total in view.totals))
    return table
