"""The tutorial line by line in a terminal: each lesson's script (:mod:`kseri.learn.script`)
printed, with the learner's cards, counts and answers read from the input."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from kseri.cards import Card, CardError

JSON = dict[str, Any]


class Quit(Exception):
    """The learner typed q (or the input ended)."""


def pretty(code: str) -> str:
    """A card as printed: ``10♦`` for ``TD``."""
    return Card(code).pretty()


class LineTutorial:
    """Runs tutorial scripts on text streams."""

    def __init__(self, tutorial: JSON, *, out: TextIO = sys.stdout, inp: TextIO = sys.stdin) -> None:
        self.tutorial = tutorial
        self.ui: dict[str, str] = tutorial["ui"]
        self._out = out
        self._inp = inp

    def say(self, text: str = "") -> None:
        """Print a line at once (a pipe must see it before the next prompt)."""
        print(text, file=self._out, flush=True)

    def ask(self, prompt: str) -> str:
        """Read one line; q or the end of input stops the tutorial."""
        self._out.write(prompt)
        self._out.flush()
        line = self._inp.readline()
        if not line or line.strip().lower() in ("q", "quit"):
            raise Quit
        return line.strip()

    def run(self, lesson_ids: list[str] | None = None) -> int:
        """Teach the lessons (all, or those named) in order; the exit status."""
        lessons = [lesson for lesson in self.tutorial["lessons"]
                   if not lesson_ids or lesson["id"] in lesson_ids]
        try:
            for number, lesson in enumerate(lessons, start=1):
                self.lesson(lesson, number, len(lessons))
        except Quit:
            self.say()
            self.say(self.ui["quit"])
            return 0
        self.say(self.ui["allDone"])
        return 0

    def lesson(self, lesson: JSON, number: int, total: int) -> None:
        """One lesson, step by step."""
        self.say()
        self.say(f"== {self.ui['progress'].format(n=number, total=total)}: {lesson['title']}")
        self.say(lesson["intro"])
        for step in lesson["steps"]:
            self.say()
            if step["kind"] == "play":
                self.play(step)
            elif step["kind"] == "count":
                self.count(step)
            else:
                self.choice(step)
            self.say(step["done"])
        self.say(f"-- {lesson['title']}: {self.ui['completed']}")

    def table(self, table: JSON) -> None:
        """The centre, the counts and the learner's hand."""
        centre = table["centre"]
        if centre:
            cards = " ".join(pretty(code) for code in centre[:-1])
            self.say(f"{self.ui['centre']}: {cards} [{pretty(centre[-1])}]".replace(":  [", ": ["))
        else:
            self.say(self.ui["emptyCentre"])
        extras = [self.ui["stock"].format(n=table["stock"]),
                  self.ui["opponentCards"].format(n=table["opponent"]),
                  self.ui["captured"].format(n=table["captured"][0])]
        if table["face_down"]:
            extras.append(self.ui["faceDown"].format(n=table["face_down"]))
        self.say(" · ".join(extras))
        if table["shown"]:
            self.say(self.ui["shown"].format(card=pretty(table["shown"])))
        if table["seen"]:
            self.say(self.ui["seen"].format(cards=" ".join(pretty(code) for code in table["seen"])))
        hand = " ".join(f"{index}) {pretty(code)}" for index, code in enumerate(table["hand"], start=1))
        self.say(f"{self.ui['yourHand']}: {hand}")

    def play(self, step: JSON) -> None:
        """Show the table, ask for the card until it is the right one, then what followed."""
        self.table(step["before"])
        self.say(step["do"])
        hand: list[str] = step["before"]["hand"]
        while True:
            answer = self.ask(self.ui["playPrompt"].format(card=pretty(step["card"])))
            code = self._card(answer, hand)
            if code == step["card"]:
                break
            self.say(step["wrong"].get(code, self.ui["notRight"]) if code else self.ui["notRight"])
        for event in step["events"]:
            self.say(f"  {event['text']}")
            for mark in event["marks"]:
                self.say(f"  ** {mark['text']}")
        if step["after"]["seen"] and not step["before"]["seen"]:
            self.say(self.ui["seen"].format(cards=" ".join(pretty(code) for code in step["after"]["seen"])))

    @staticmethod
    def _card(answer: str, hand: list[str]) -> str | None:
        """The card code the learner means: a position in the hand or a card's name."""
        if answer.isdigit() and 1 <= int(answer) <= len(hand):
            return hand[int(answer) - 1]
        try:
            return str(Card(answer))
        except CardError:
            return None

    def count(self, step: JSON) -> None:
        """Show the captured cards and check the learner's count."""
        self.say(f"{self.ui['yourCards']}: {' '.join(pretty(code) for code in step['captured'])}")
        self.say(self.ui["opponentCaptured"].format(n=step["opponent_cards"]))
        self.say(step["do"])
        while True:
            answer = self.ask(self.ui["countPrompt"])
            if not answer.lstrip("-").isdigit():
                self.say(self.ui["notNumber"])
            elif int(answer) == step["answer"]:
                break
            else:
                self.say(self.ui["notRight"])
        self.say(f"{self.ui['right']} {step['answer']}")
        self.say(step["breakdown"])

    def choice(self, step: JSON) -> None:
        """Ask a question with numbered answers until the right one."""
        self.say(step["do"])
        options: list[str] = step["options"]
        for index, option in enumerate(options, start=1):
            self.say(f"  {index}) {option}")
        while True:
            answer = self.ask(self.ui["choicePrompt"].format(n=len(options)))
            if answer == str(step["answer"] + 1):
                break
            self.say(self.ui["notRight"])
        self.say(f"{self.ui['right']} {options[step['answer']]}")
