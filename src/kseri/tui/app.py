"""The full-screen terminal apps (Textual): :class:`PlayApp` for ``kseri play`` and
:class:`ReplayApp` for ``kseri show``. They read only views and play events."""

from __future__ import annotations

import asyncio
import signal
import time
from collections import deque
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from kseri.agents import centre_cards
from kseri.engine import Phase, View
from kseri.tui.replay import Replay
from kseri.tui.session import GameSession, PlayEvent, SessionError
from kseri.tui.text import (
    card_text,
    describe_play,
    does,
    kseri_count,
    marks_summary,
    memory_lines,
    plural,
    standings,
    winner_sentence,
)
from kseri.tui.widgets import CardFace, cards_text, score_table

APP_CSS = """
Screen { layout: vertical; }
#topbar { height: 1; background: $primary-darken-1; color: $text; padding: 0 1; }
#opponents { height: 3; }
.opponent { width: 1fr; height: 3; border: round $panel-lighten-2; padding: 0 1; }
.opponent.turn { border: heavy $accent; }
#middle { height: 1fr; }
#table { width: 1fr; padding: 0 1; align: left middle; }
#centre-row { height: 5; }
#centre-info { width: 1fr; padding: 0 2; }
#last-play { height: auto; margin-top: 1; }
#side { width: 42; align: left top; }
#memory, #recent { height: auto; max-height: 100%; border: round $panel-lighten-2; padding: 0 1; }
#side.remembering #recent, #memory { display: none; }
#side.remembering #memory { display: block; }
#status { height: auto; max-height: 2; padding: 0 1; background: $boost; }
#status.yours { background: $accent 30%; text-style: bold; }
#bottom { height: 5; }
#hand { width: auto; height: 5; padding: 0 1; }
#scores { width: 1fr; max-width: 56; height: 5; padding: 0 1; }
RoundOver { align: center middle; }
#dialog { width: 78; max-width: 100%; height: auto; max-height: 100%; border: thick $accent;
          background: $surface; padding: 0 2; }
#dialog-prompt { margin-top: 1; text-style: bold; }
"""


class RoundOver(ModalScreen[bool]):
    """The score table after a round; Enter goes on. After the last round: play again?"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,escape", "go_on", "Go on"),
        Binding("y", "answer(True)", "Yes", show=False),
        Binding("n", "answer(False)", "No", show=False),
        Binding("q", "leave", "Quit"),
    ]

    def __init__(self, heading: Text, table: Table, prompt: str, *, final: bool) -> None:
        super().__init__()
        self.heading = heading
        self.table = table
        self.prompt = prompt
        self.final = final

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.heading, id="dialog-heading")
            yield Static(self.table, id="dialog-table")
            yield Static(self.prompt, id="dialog-prompt")

    def action_go_on(self) -> None:
        """Next round; after the last one, the default answer: no more."""
        self.dismiss(not self.final)

    def action_answer(self, answer: bool) -> None:
        """Play again or not (after the last round; before it, only yes goes on)."""
        if self.final or answer:
            self.dismiss(answer)

    def action_leave(self) -> None:
        """Save (if the match goes on) and quit."""
        self.dismiss(False)


class PlayApp(App[str | None]):
    """A match against bots, full screen. Returns a line for the terminal (where the game was
    saved) when it exits."""

    TITLE = "kseri"
    CSS = APP_CSS
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"play_number({n})", f"Play card {n}", show=False) for n in range(1, 10)),
        Binding("left", "move(-1)", "Previous card", show=False),
        Binding("right", "move(1)", "Next card", show=False),
        Binding("enter", "play_cursor", "Play", show=False),
        Binding("h", "hint", "Hint"),
        Binding("m", "memory", "Memory"),
        Binding("s", "save", "Save"),
        Binding("q", "quit_game", "Quit"),
        Binding("ctrl+c", "quit_game", "Quit", show=False, priority=True),
    ]

    def __init__(self, session: GameSession, *, delay: float = 0.6,
                 hint_iterations: int | None = None) -> None:
        super().__init__()
        self.session = session
        self.delay = delay
        self.hint_iterations = hint_iterations
        self.cursor = 0
        self.hint_card: int | None = None
        self._screen_open = False
        self._signals: list[int] = []
        self._recent: deque[Text] = deque(maxlen=session.rules.players + 1)

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        session = self.session
        yield Static(id="topbar")
        with Horizontal(id="opponents"):
            for seat in range(session.rules.players):
                if seat != session.human:
                    yield Static(id=f"seat-{seat}", classes="opponent")
        with Horizontal(id="middle"):
            with Vertical(id="table"):
                with Horizontal(id="centre-row"):
                    yield CardFace(id="centre-card")
                    yield Static(id="centre-info")
                yield Static(id="last-play")
            with Vertical(id="side"):
                yield Static(id="memory")
                yield Static(id="recent")
        yield Static(id="status")
        with Horizontal(id="bottom"):
            with Horizontal(id="hand"):
                for index in range(session.rules.batch_size):
                    yield CardFace(index=index, id=f"card-{index + 1}", classes="hand-card")
            yield Static(id="scores")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#recent", Static).border_title = "Last plays"
        self.query_one("#memory", Static).border_title = "Memory aid (m: last plays)"
        loop = asyncio.get_running_loop()
        for signum in (getattr(signal, "SIGHUP", None), signal.SIGTERM):
            if signum is not None:
                try:
                    loop.add_signal_handler(signum, self.action_quit_game)  # a hang-up saves too
                except (NotImplementedError, RuntimeError):
                    continue
                self._signals.append(signum)
        self._start_match()

    def on_unmount(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in self._signals:
            loop.remove_signal_handler(signum)

    def _start_match(self) -> None:
        session = self.session
        self._recent.clear()
        view = session.view()
        self._log_deal(view)
        if view.plays:
            self._note(Text(f"Resumed after {plural(len(view.plays), 'play')}.", style="dim"))
        self._advance()

    # -- drawing -----------------------------------------------------------------------------

    def _redraw(self, view: View) -> None:
        session = self.session
        names = session.names
        dealer = names[view.dealer]
        self.query_one("#topbar", Static).update(
            Text.assemble(("kseri ", "bold"), f"· {session.rules.name} rules · round {view.round_index + 1}"
                          f" · {dealer} dealt · seed {session.seed}")
        )
        for seat in range(session.rules.players):
            if seat == session.human:
                continue
            box = self.query_one(f"#seat-{seat}", Static)
            partner = session.rules.partnerships and session.rules.side_of(seat) == view.side
            box.border_title = names[seat] + (" (partner)" if partner else "")
            box.border_subtitle = "dealer" if seat == view.dealer else ""
            box.set_class(view.turn == seat, "turn")
            count = view.hand_sizes[seat]
            box.update(Text.assemble(("▮" * count, "blue"), f" {plural(count, 'card')}"))
        self._draw_centre(view)
        self._draw_hand(view)
        self._draw_scores(view)
        if self.query_one("#side").has_class("remembering"):
            self.query_one("#memory", Static).update(Text("\n").join(memory_lines(view)))

    def _draw_centre(self, view: View) -> None:
        self.query_one("#centre-card", CardFace).show(view.centre_top)
        lines = [Text.assemble(("Centre: ", "bold"), plural(view.centre_size, "card"))]
        if view.face_down:
            lines.append(Text(f"{view.face_down} of them face down"))
        lines.append(Text.assemble(("Stock: ", "bold"), plural(view.stock_size, "card")))
        if view.shown is not None:
            lines.append(Text.assemble("Bottom of the stock: ", card_text(view.shown)))
        self.query_one("#centre-info", Static).update(Text("\n").join(lines))

    def _draw_hand(self, view: View) -> None:
        hand = view.hand
        if hand:
            self.cursor = min(self.cursor, len(hand) - 1)
        yours = view.turn == self.session.human
        for index, face in enumerate(self.query(".hand-card").results(CardFace)):
            face.display = index < len(hand)
            face.show(hand[index] if index < len(hand) else None)
            face.set_class(yours and index == self.cursor, "cursor")
            face.set_class(self.hint_card == index, "hint")

    def _draw_scores(self, view: View) -> None:
        table = Table(box=None, show_edge=False, pad_edge=False, expand=True)
        table.add_column("", no_wrap=True, overflow="ellipsis", ratio=1)
        table.add_column("captured", justify="right", no_wrap=True)
        table.add_column("score", justify="right", no_wrap=True)
        for side, name in enumerate(self.session.side_names()):
            kseris = kseri_count(view.marks[side])
            captured = Text(str(view.captured_sizes[side]))
            if kseris:
                captured.append(" " + "✦" * kseris, style="bold yellow")
            table.add_row(Text(name, style="bold" if side == view.side else ""), captured,
                          str(view.totals[side]))
        table.add_row(Text("target", style="dim"), "", Text(str(view.target), style="dim"))
        self.query_one("#scores", Static).update(table)

    def _status(self, text: str | Text, *, yours: bool = False) -> None:
        status = self.query_one("#status", Static)
        status.update(text)
        status.set_class(yours, "yours")

    def _log_deal(self, view: View) -> None:
        dealer = self.session.names[view.dealer]
        self._note(Text(f"Round {view.round_index + 1}: {does(dealer, 'deal')}.", style="bold"))
        pile = centre_cards(view)
        self._note(Text.assemble("Centre: ", cards_text(pile) if pile else Text("empty", style="dim")))

    def _note(self, line: Text) -> None:
        """Add a line to the last plays (only the last few stay: players remember, not look)."""
        self._recent.append(line)
        self.query_one("#recent", Static).update(Text("\n").join(self._recent))

    def _show_event(self, event: PlayEvent) -> None:
        session = self.session
        sentence = describe_play(event, session.names)
        last = Text(sentence, style="bold")
        self.query_one("#last-play", Static).update(last)
        line = Text.assemble(card_text(event.card, bold=True), " ", sentence)
        self._note(line)
        for mark in event.marks:
            who = session.names[event.seat]
            title = "Kseri!" if "kseri" in mark.kind else "Bonus"
            self.notify(f"{who}: {marks_summary([mark])}", title=title)
        if event.dealt:
            self._note(Text("New cards are dealt.", style="dim"))

    # -- the flow of the game --------------------------------------------------------------

    def _advance(self) -> None:
        """Draw the table and start whatever comes next: a bot's play, the score table, or wait."""
        session = self.session
        view = session.view()
        self._redraw(view)
        state = session.state
        if state == "bot":
            turn = view.turn
            assert turn is not None
            self._status(f"{session.names[turn]} is playing…")
            self._bot_turn()
        elif state == "human":
            self._status(f"Your turn: press 1-{len(view.hand)}, or ←/→ and Enter, or click a card."
                         "  h hint · m memory", yours=True)
        else:
            self._status("")
            # Let the last play be seen before the score table covers the table.
            self.set_timer(max(self.delay, 0.001), self._round_over)

    @work(exclusive=True, group="bot")
    async def _bot_turn(self) -> None:
        start = time.monotonic()
        view = self.session.bot_view()
        card = await asyncio.to_thread(self.session.choose_bot, view)
        remaining = self.delay - (time.monotonic() - start)
        if remaining > 0:
            await asyncio.sleep(remaining)
        event = self.session.play_bot(card)
        self._show_event(event)
        self._advance()

    def _round_over(self) -> None:
        if self._screen_open:
            return
        session = self.session
        view = session.view()
        result = view.round_results[-1]
        sides = session.side_names()
        table = score_table(result, view, sides)
        if view.phase is Phase.MATCH_OVER:
            won = view.winner == view.side
            heading = Text(winner_sentence(view, sides) + "!", style="bold green" if won else "bold")
            prompt = "Play again? y / N"
            if session.record_path is not None:
                prompt = f"Record saved: {session.record_path}\n{prompt}"
        else:
            heading = Text(f"Round {view.round_index + 1} is over", style="bold")
            prompt = "Enter: next round · q: save and quit"
        self._screen_open = True
        final = view.phase is Phase.MATCH_OVER
        self.push_screen(RoundOver(heading, table, prompt, final=final), self._after_round)

    def _after_round(self, go_on: bool | None) -> None:
        self._screen_open = False
        session = self.session
        if session.state == "match-over":
            if not go_on:
                self.exit(self._farewell())
                return
            self.session = session.rematch()
            self.hint_card = None
            self._start_match()
            return
        if not go_on:
            self.action_quit_game()
            return
        session.next_round()
        self.hint_card = None
        self._log_deal(session.view())
        self._advance()

    # -- the player's keys -----------------------------------------------------------------

    def _play_index(self, index: int) -> None:
        session = self.session
        if self._screen_open:
            return
        if session.state != "human":
            self.bell()
            self._status("Wait: it is not your turn yet.")
            return
        hand = session.view().hand
        if not 0 <= index < len(hand):
            self.bell()
            self._status(f"There is no card {index + 1}: you hold {plural(len(hand), 'card')}.", yours=True)
            return
        try:
            event = session.play(hand[index])
        except SessionError as error:
            self._status(f"Not played: {error}", yours=True)
            return
        self.hint_card = None
        self._show_event(event)
        self._advance()

    def action_play_number(self, number: int) -> None:
        """Play the card with this number."""
        self._play_index(number - 1)

    def action_play_cursor(self) -> None:
        """Play the card under the cursor."""
        self._play_index(self.cursor)

    def on_card_face_chosen(self, message: CardFace.Chosen) -> None:
        self._play_index(message.index)

    def action_move(self, step: int) -> None:
        """Move the cursor along the hand."""
        hand = self.session.view().hand
        if hand:
            self.cursor = (self.cursor + step) % len(hand)
            self._draw_hand(self.session.view())

    def action_memory(self) -> None:
        """Show the memory aid (the cards seen this round) instead of the last plays, or back."""
        self.query_one("#side").toggle_class("remembering")
        self._redraw(self.session.view())

    def action_hint(self) -> None:
        """Ask the master bot for its estimate of each play."""
        if self.session.state != "human":
            self._status("Hints are for your turn.")
            return
        self._status("The master bot is thinking…", yours=True)
        self._hint()

    @work(exclusive=True, group="hint")
    async def _hint(self) -> None:
        session = self.session
        view = session.view()
        try:
            estimates = await asyncio.to_thread(session.hint, self.hint_iterations, view)
        except SessionError as error:
            self._status(f"No hint: {error}", yours=True)
            return
        if session.view() != view or not estimates:
            return
        best = estimates[0][0]
        self.hint_card = self.cursor = view.hand.index(best)
        line = Text("Hint", style="bold")
        line.append(" (round points the master expects, against the others): ")
        for position, (card, value) in enumerate(estimates):
            if position:
                line.append(" · ")
            line.append_text(card_text(card, bold=position == 0))
            line.append(f" {value:+.1f}")
        self._status(line, yours=True)
        self._draw_hand(view)

    def action_save(self) -> None:
        """Save the game record now."""
        path = self.session.save()
        self.notify(f"Saved in {path}", title="Game saved")

    def action_quit_game(self) -> None:
        """Save an unfinished match and leave."""
        self.exit(self._farewell())

    async def action_quit(self) -> None:
        """Textual's own quit (Ctrl-Q) saves too."""
        self.action_quit_game()

    def _farewell(self) -> str | None:
        session = self.session
        if session.state == "match-over":
            return f"Record saved: {session.record_path}" if session.record_path is not None else None
        path = session.save()
        return f"Game saved: {path}\nResume it with: kseri play --resume {path}"


class ReplayApp(App[None]):
    """Step through a finished match, every hand shown."""

    TITLE = "kseri show"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    #topbar { height: 1; background: $primary-darken-1; padding: 0 1; }
    #scroll { height: 1fr; }
    #board { height: auto; padding: 1 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,space,n", "step(1)", "Next"),
        Binding("left,p,backspace", "step(-1)", "Back"),
        Binding("pagedown,down", "round(1)", "Next round"),
        Binding("pageup,up", "round(-1)", "Round start"),
        Binding("home", "goto(0)", "Start", show=False),
        Binding("end", "goto(-1)", "End", show=False),
        Binding("q,escape", "quit", "Quit"),
    ]

    def __init__(self, replay: Replay) -> None:
        super().__init__()
        self.replay = replay
        self.position = 0

    def compose(self) -> ComposeResult:
        yield Static(id="topbar")
        with VerticalScroll(id="scroll", can_focus=False):
            yield Static(id="board")
        yield Footer()

    def on_mount(self) -> None:
        self._draw()

    def _draw(self) -> None:
        replay = self.replay
        step = replay.steps[self.position]
        view = step.views[0]
        self.query_one("#topbar", Static).update(
            f"kseri show · {replay.rules.name} rules · round {view.round_index + 1} · "
            f"step {self.position + 1} of {len(replay.steps)}"
        )
        lines: list[Text] = [Text(step.caption, style="bold")]
        if step.event is not None and step.event.round_over:
            if view.last_capturer is not None:
                lines.append(Text(f"The rest of the centre goes to {replay.names[view.last_capturer]}."))
            if view.winner is not None:
                lines.append(Text(f"{replay.side_names[view.winner]} won the match.", style="bold green"))
        lines.append(Text())
        width = max(len(name) for name in replay.names)
        for seat, seat_view in enumerate(step.views):
            marker = "▶ " if view.turn == seat else "  "
            line = Text(f"{marker}{replay.names[seat]:<{width}}  ")
            line.append_text(cards_text(seat_view.hand) if seat_view.hand else Text("—", style="dim"))
            lines.append(line)
        lines.append(Text())
        pile = centre_cards(view) if view.centre_size else []
        lines.append(Text.assemble(("Centre, bottom to top: ", "bold"),
                                   cards_text(pile) if pile else Text("empty", style="dim")))
        lines.append(Text(f"Stock: {view.stock_size}"))
        for side, name in enumerate(replay.side_names):
            marks = f"  ({marks_summary(view.marks[side])})" if view.marks[side] else ""
            lines.append(Text(f"{name}: {plural(view.captured_sizes[side], 'card')} captured{marks}"))
        lines.append(Text(f"Match: {standings(view, replay.side_names)}", style="bold"))
        board: list[Text | Table] = [Text("\n").join(lines)]
        if step.event is not None and step.event.round_over:
            result = view.round_results[-1]
            board.append(score_table(result, view, replay.side_names))
        self.query_one("#board", Static).update(Group(*board))

    def action_step(self, delta: int) -> None:
        """Go forwards or back by one play."""
        self.position = max(0, min(len(self.replay.steps) - 1, self.position + delta))
        self._draw()

    def action_round(self, delta: int) -> None:
        """Go to the next round's deal, or back to this round's (or the previous one's) deal."""
        steps = self.replay.steps
        deals = [i for i, step in enumerate(steps) if step.event is None]
        if delta > 0:
            later = [i for i in deals if i > self.position]
            self.position = later[0] if later else len(steps) - 1
        else:
            earlier = [i for i in deals if i < self.position]
            self.position = earlier[-1] if earlier else 0
        self._draw()

    def action_goto(self, position: int) -> None:
        """Go to the first step (0) or the last (-1)."""
        self.position = position % len(self.replay.steps)
        self._draw()
