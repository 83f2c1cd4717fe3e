"""The memory trainer in the terminal, line by line (``kseri trainer``): a drill position's cards
played pass by, are hidden, and the four questions of :mod:`kseri.analysis.memory` are asked
one at a time; an answer that is not a number, a card or a rank is named and asked again, and
the running score is shown after each position. English only.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from kseri.analysis.memory import (
    AnswerError,
    Mark,
    Moment,
    Question,
    batch_of,
    credit,
    drill_view,
    questions,
    read_answer,
)
from kseri.cards import RANK_NAMES
from kseri.engine import View
from kseri.rules import Rules

PROMPTS = {
    "jacks": "How many Jacks are still out?",
    "point_cards": "Which point cards are still out? (cards like TD 2C AS, or none)",
    "kseri_ranks": "Which ranks would make a kseri now? (ranks like Q 10, or none)",
    "rank_out": "How many cards of rank {rank} are still out?",
}
"""Each question as the terminal asks it."""

CLEAR = "\x1b[2J\x1b[H"
"""Clears a terminal's screen (written only to a terminal)."""


@dataclass
class Score:
    """The running score of one sitting."""

    credit: float = 0.0
    questions: int = 0
    positions: int = 0
    streak: int = 0
    """Positions in a row answered without a fault."""

    def line(self) -> str:
        """The score as one line."""
        return (f"Score {self.credit:g} of {self.questions} over {self.positions} "
                f"position{'s' if self.positions != 1 else ''}; {self.streak} in a row without a fault")


class TrainerSession:
    """A sitting's positions (seeds ``seed``, ``seed + 1``, ... of ``rules`` at ``moment``) and
    what each answer does to the score."""

    def __init__(self, rules: Rules, moment: Moment, seed: int) -> None:
        self.rules = rules
        self.moment = moment
        self.seed = seed
        self.score = Score()

    def next(self) -> View:
        """The next position's view."""
        return drill_view(self.rules, self.seed + self.score.positions, self.moment)

    def record(self, marks: list[Mark]) -> None:
        """Count one position's marks."""
        self.score.credit += sum(mark.credit for mark in marks)
        self.score.questions += len(marks)
        self.score.positions += 1
        self.score.streak = self.score.streak + 1 if all(mark.exact for mark in marks) else 0


def now_lines(view: View) -> list[str]:
    """What the seat sees once the cards played are hidden."""
    rules = view.rules
    lines = [f"Batch {batch_of(view)} of {rules.batches}; {view.stock_size} cards in the stock."]
    if view.centre_top is None:
        lines.append("The centre is empty.")
    else:
        lines.append(f"The pile: {view.centre_size} card{'s' if view.centre_size != 1 else ''}, "
                     f"{view.centre_top.pretty()} on top.")
    if view.shown is not None:
        lines.append(f"The shown card: {view.shown.pretty()}.")
    lines.append("Your hand: " + " ".join(card.pretty() for card in view.hand))
    return lines


def shown(question: Question, value: object) -> str:
    """An answer or a truth in words."""
    if value is None:
        return "no answer"
    if isinstance(value, int):
        return str(value)
    assert isinstance(value, tuple)
    if not value:
        return "none"
    return " ".join(item.pretty() if question.kind == "cards" else RANK_NAMES[item] for item in value)


class LineTrainer:
    """Drill positions one after another on text streams until the count or ``q``."""

    def __init__(self, session: TrainerSession, *, out: TextIO = sys.stdout, inp: TextIO = sys.stdin,
                 pace: float = 0.7, sleep: Callable[[float], None] = time.sleep) -> None:
        self.session = session
        self._out = out
        self._inp = inp
        self._pace = pace
        self._sleep = sleep

    def _say(self, line: str) -> None:
        print(line, file=self._out, flush=True)

    def run(self, count: int | None = None) -> int:
        """Drill up to ``count`` positions (without end when ``None``); the exit status (0)."""
        while count is None or self.session.score.positions < count:
            view = self.session.next()
            self._pass_by(view)
            marks = self._ask(view)
            if marks is None:
                break
            self.session.record(marks)
            for mark in marks:
                verdict = ("Right." if mark.exact else f"Partly right ({mark.credit:g})." if mark.credit
                           else "Wrong.")
                self._say(f"{verdict} {self._prompt(mark.question).split('?')[0]}? "
                          f"The answer: {shown(mark.question, mark.question.truth)} "
                          f"(yours: {shown(mark.question, mark.answer)})")
            self._say(self.session.score.line())
        self._say(f"Bye. {self.session.score.line()}")
        return 0

    def _pass_by(self, view: View) -> None:
        """The cards played this round, one line each, then hidden (the screen cleared on a terminal)."""
        dealt = [card.pretty() for card in view.centre_dealt if card is not None]
        self._say(f"Round at the {self.session.moment.value} moment. Watch the cards played.")
        if dealt:
            self._say("Dealt face up to the centre: " + " ".join(dealt))
        for number, play in enumerate(view.plays, 1):
            who = "You" if play.seat == view.seat else f"Player {play.seat + 1}"
            took = f" (took {play.taken})" if play.taken else ""
            self._say(f"{number:>2}. {who} played {play.card.pretty()}{took}")
            self._sleep(self._pace)
        if self._out.isatty():
            print(CLEAR, end="", file=self._out, flush=True)
        self._say("The cards played are hidden now: answer from memory.")
        for line in now_lines(view):
            self._say(line)

    @staticmethod
    def _prompt(question: Question) -> str:
        name = "" if question.rank is None else RANK_NAMES[question.rank]
        rank = "10" if name == "T" else name
        return PROMPTS[question.id].format(rank=rank)

    def _ask(self, view: View) -> list[Mark] | None:
        """Each question read until it is answered in its kind; ``None`` when the player quits."""
        marks = []
        for question in questions(view):
            while True:
                print(self._prompt(question) + " ", end="", file=self._out, flush=True)
                line = self._inp.readline()
                text = line.strip()
                if not line or text.lower() in ("q", "quit"):
                    return None
                raw: object = text if question.kind == "count" else (
                    [] if text.lower() == "none" else text.replace(",", " ").split())
                try:
                    answer = read_answer(question, raw)
                except AnswerError as error:
                    self._say(str(error))
                    continue
                marks.append(Mark(question, answer, credit(question, answer)))
                break
        return marks


__all__ = ["LineTrainer", "Score", "TrainerSession", "now_lines"]
