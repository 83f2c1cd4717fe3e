"""The line-by-line mode: the same game as the full-screen app, for pipes, scripts and screen
readers. Each event is printed as a line; the card to play is read by number or by name."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from kseri.cards import Card
from kseri.engine import View
from kseri.tui.session import GameSession, Interrupted, PlayEvent, SessionError
from kseri.tui.text import (
    breakdown_sentence,
    describe_play,
    does,
    marks_summary,
    memory_lines,
    plural,
    standings,
    winner_sentence,
)

HELP = "a number (1-{n}) or a card like 10d, h hint, m memory, s save, q quit and save"
PROMPT = "Your turn (1-{n}, a card, h, m, s, q): "


class PlainGame:
    """Runs sessions line by line on text streams until the player stops."""

    def __init__(self, session: GameSession, *, delay: float = 0.0, hint_iterations: int | None = None,
                 out: TextIO = sys.stdout, inp: TextIO = sys.stdin) -> None:
        self.session = session
        self.delay = delay
        self.hint_iterations = hint_iterations
        self._out = out
        self._inp = inp
        self._printed: tuple[str, int, int] | None = None

    def say(self, text: str = "") -> None:
        """Print a line at once (a pipe must see it before the next prompt)."""
        print(text, file=self._out, flush=True)

    def ask(self, prompt: str) -> str:
        """Read one line; end of input counts as quitting."""
        self._out.write(prompt)
        self._out.flush()
        line = self._inp.readline()
        if not line:
            raise EOFError
        return line.strip()

    def run(self) -> int:
        """Play until the player quits or declines another match; the exit status."""
        self._intro()
        while True:
            session = self.session
            with session.signals_interrupt():  # each match defers signals during its own plays
                try:
                    while self._step() and self.session is session:
                        pass
                except (Interrupted, EOFError) as stop:
                    self.say()
                    self._save_and_tell("stopped" if isinstance(stop, EOFError) else f"interrupted ({stop})")
                    return 130 if isinstance(stop, Interrupted) else 0
            if self.session is session:
                return 0

    def _intro(self) -> None:
        session = self.session
        seats = ", ".join(f"{name} (seat {seat})" for seat, name in enumerate(session.names))
        self.say(f"kseri: {session.rules.name} rules, {seats}; match seed {session.seed}")
        self.say(f"Type {HELP.format(n=session.rules.batch_size)}.")
        view = session.view()
        if view.plays or view.round_index:
            self.say(f"Resumed in round {view.round_index + 1}, after {plural(len(view.plays), 'play')}.")
        if session.state == "round-over":
            self._round_table(view)

    def _step(self) -> bool:
        """Advance by one event; ``False`` when the player is done."""
        session = self.session
        state = session.state
        if state == "bot":
            card = session.choose_bot()
            if self.delay:
                time.sleep(self.delay)
            self._report(session.play_bot(card))
        elif state == "human":
            return self._human_turn()
        elif state == "round-over":
            answer = self.ask("Press Enter for the next round (q to quit and save): ")
            if answer.lower() in ("q", "quit"):
                self._save_and_tell("saved")
                return False
            session.next_round()
            view = session.view()
            self.say(f"Round {view.round_index + 1}: {does(session.names[view.dealer], 'deal')}.")
        else:
            return self._match_over()
        return True

    def _report(self, event: PlayEvent) -> None:
        self.say(describe_play(event, self.session.names))
        if event.dealt:
            view = self.session.view()
            self.say(f"New cards are dealt ({view.stock_size} left in the stock).")
        if event.round_over:
            self._round_table(self.session.view())

    def _human_turn(self) -> bool:
        view = self.session.view()
        moment = (self.session.seed, view.round_index, len(view.plays))
        if moment != self._printed:  # after a hint, memory or save, only the question again
            self._print_state(view)
            self._printed = moment
        hand = view.hand
        answer = self.ask(PROMPT.format(n=len(hand)))
        command = answer.lower()
        actions: dict[str, Callable[[], bool]] = {
            "h": self._hint, "hint": self._hint,
            "m": self._memory, "memory": self._memory,
            "s": self._save, "save": self._save,
            "q": self._quit, "quit": self._quit,
            "?": self._help, "help": self._help,
        }
        if command in actions:
            return actions[command]()
        if not answer:
            self.say(f"Please choose a card: {HELP.format(n=len(hand))}.")
            return True
        card: Card | str = answer
        if answer.isdigit():
            number = int(answer)
            if not 1 <= number <= len(hand):
                self.say(f"There is no card {number}: your hand has {len(hand)} (1-{len(hand)}).")
                return True
            card = hand[number - 1]
        try:
            event = self.session.play(card)
        except SessionError as error:
            self.say(f"Not played: {error}.")
            return True
        self._report(event)
        return True

    def _print_state(self, view: View) -> None:
        session = self.session
        top = f"{plural(view.centre_size, 'card')}, {view.centre_top.pretty()} on top" \
            if view.centre_top is not None else "empty"
        others = ", ".join(f"{name} {view.hand_sizes[seat]}" for seat, name in enumerate(session.names)
                           if seat != session.human)
        if view.face_down:
            top += f" ({view.face_down} face down)"
        stock = f"Stock: {view.stock_size}"
        if view.shown is not None:
            stock += f", its bottom card {view.shown.pretty()}"
        self.say(f"-- Round {view.round_index + 1}. Centre: {top}. {stock}. Cards in hand: {others}.")
        captured = []
        for side, name in enumerate(session.side_names()):
            marks = f" ({marks_summary(view.marks[side])})" if view.marks[side] else ""
            captured.append(f"{name} {view.captured_sizes[side]}{marks}")
        self.say(f"   Captured: {', '.join(captured)}. Score: {standings(view, session.side_names())}.")
        cards = "  ".join(f"{i}) {card.pretty()}" for i, card in enumerate(view.hand, 1))
        self.say(f"Your hand: {cards}")

    def _round_table(self, view: View) -> None:
        result = view.round_results[-1]
        names = self.session.side_names()
        self.say(f"== Round {len(view.round_results)} is over.")
        for side, name in enumerate(names):
            self.say(f"   {name}: {breakdown_sentence(result, side)}.")
        self.say(f"   Match: {standings(view, names)}.")

    def _match_over(self) -> bool:
        session = self.session
        view = session.view()
        self.say(f"== {winner_sentence(view, session.side_names())}, "
                 f"{standings(view, session.side_names())}.")
        if session.record_path is not None:
            self.say(f"The record is saved in {session.record_path}; replay it with: "
                     f"kseri show {session.record_path}")
        answer = self.ask("Play again? [y/N]: ")
        if answer.lower() not in ("y", "yes"):
            return False
        self.session = session.rematch()
        self._intro()
        return True

    def _hint(self) -> bool:
        self.say("The master bot is thinking...")
        try:
            estimates = self.session.hint(self.hint_iterations)
        except SessionError as error:
            self.say(f"No hint: {error}.")
            return True
        self.say("Hint, best first (points the master expects for your side over the others): "
                 + ", ".join(f"{c.pretty()} {v:+.1f}" for c, v in estimates))
        return True

    def _memory(self) -> bool:
        for line in memory_lines(self.session.view()):
            self.say(line.plain)
        return True

    def _save(self) -> bool:
        self._save_and_tell("saved")
        return True

    def _quit(self) -> bool:
        self._save_and_tell("saved")
        return False

    def _help(self) -> bool:
        self.say(f"Type {HELP.format(n=len(self.session.view().hand))}.")
        return True

    def _save_and_tell(self, what: str) -> None:
        session = self.session
        if session.state == "match-over" and session.record_path is None:
            return
        path = session.save()
        self.say(f"Game {what}: {path}")
        if session.state != "match-over":
            self.say(f"Resume it with: kseri play --resume {path}")
