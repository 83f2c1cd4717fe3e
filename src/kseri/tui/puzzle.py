"""Puzzles in the terminal, line by line: the position as its seat saw it, a card read by name,
right or wrong with the proof, the best line and the rating's move (``kseri puzzle``).

A player's progress (rating, puzzles done, puzzles failed) is a :class:`Progress`, saved as JSON
where the command is told to keep it, so that the next run goes on near the player's level and
``--retry`` replays the failures.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from kseri.analysis.puzzles import Puzzle, PuzzleError, Rating, next_puzzle, rate_attempt
from kseri.analysis.texts import texts


@dataclass
class Progress:
    """One player's puzzle rating and history."""

    rating: Rating = field(default_factory=Rating)
    solved: list[str] = field(default_factory=list)
    """Ids of the puzzles solved."""
    failed: list[str] = field(default_factory=list)
    """Ids of the puzzles failed and not solved since."""
    streak: int = 0

    @classmethod
    def load(cls, path: Path) -> Progress:
        """The progress saved at ``path`` (a fresh one when there is no file); ``ValueError``
        naming the problem when the file is not a progress file."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()
        except (OSError, json.JSONDecodeError) as error:
            raise ValueError(f"cannot read the puzzle progress {path}: {error}") from None
        try:
            return cls(Rating(*map(float, data["rating"])), [str(i) for i in data["solved"]],
                       [str(i) for i in data["failed"]], int(data["streak"]))
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{path} is not a puzzle progress file: {error!r}") from None

    def save(self, path: Path) -> None:
        """Write the progress to ``path`` atomically."""
        data = {"rating": [self.rating.mu, self.rating.sigma], "solved": self.solved, "failed": self.failed,
                "streak": self.streak}
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(data), encoding="utf-8")
        os.replace(temporary, path)

    def record(self, puzzle: Puzzle, solved: bool) -> Rating:
        """Count an attempt at ``puzzle``; the puzzle's new rating."""
        self.rating, puzzle_rating = rate_attempt(self.rating, puzzle.rating, solved=solved)
        if solved:
            self.streak += 1
            if puzzle.id not in self.solved:
                self.solved.append(puzzle.id)
            if puzzle.id in self.failed:
                self.failed.remove(puzzle.id)
        else:
            self.streak = 0
            if puzzle.id not in self.failed:
                self.failed.append(puzzle.id)
        return puzzle_rating


def describe(puzzle: Puzzle, lang: str) -> list[str]:
    """The position as lines of text, everything the seat could see."""
    words = texts(lang)
    view = puzzle.view
    theme_names = ", ".join(words[f"theme.{theme.value}"] for theme in puzzle.themes)
    lines = [words["puzzle.title"].format(id=puzzle.id, rating=puzzle.rating.shown)]
    if theme_names:
        lines.append(words["puzzle.themes"].format(themes=theme_names))
    played = " ".join(play.card.pretty() for play in view.plays)
    if played:
        lines.append(words["puzzle.played"].format(cards=played))
    if view.centre_top is None:
        lines.append(words["puzzle.emptyCentre"])
    else:
        lines.append(words["puzzle.centre"].format(n=view.centre_size, card=view.centre_top.pretty()))
    opponent = sum(size for seat, size in enumerate(view.hand_sizes) if seat != view.seat)
    lines.append(words["puzzle.stock"].format(n=view.stock_size, m=opponent))
    mine = view.captured_sizes[view.side]
    theirs = sum(view.captured_sizes) - mine
    lines.append(words["puzzle.score"].format(mine=mine, theirs=theirs,
                                              totals="–".join(str(total) for total in view.totals)))
    if view.shown is not None:
        lines.append(words["puzzle.shown"].format(card=view.shown.pretty()))
    lines.append(words["puzzle.hand"].format(cards=" ".join(card.pretty() for card in view.hand)))
    return lines


class PuzzleSession:
    """The puzzles of one sitting: which comes next (near the player's rating, or the failures
    again with ``retry``), and what an answer does to the progress, as lines of text. Both the
    line mode and the full-screen app drive one."""

    def __init__(self, puzzles: Sequence[Puzzle], progress: Progress, *, lang: str = "en",
                 retry: bool = False) -> None:
        self.puzzles = list(puzzles)
        self.progress = progress
        self.lang = lang
        self.words = texts(lang)
        self.retry = retry
        self.seen: set[str] = set()
        self.tried = 0
        self.solved = 0

    def next(self) -> Puzzle | None:
        """The next puzzle (``None``: none left), counted as seen."""
        if self.retry:
            failed = [p for p in self.puzzles if p.id in self.progress.failed and p.id not in self.seen]
            puzzle = failed[0] if failed else None
        else:
            done = set(self.progress.solved) | set(self.progress.failed) | self.seen
            puzzle = next_puzzle(self.progress.rating, self.puzzles, done)
        if puzzle is not None:
            self.seen.add(puzzle.id)
        return puzzle

    def answer(self, puzzle: Puzzle, text: str) -> list[str]:
        """Judge the card named by ``text`` and count it: the lines to show (right or wrong, the
        proof, the best line, the rating's move, the streak). :class:`PuzzleError`, the progress
        untouched, when it is not a card of the hand."""
        solved = puzzle.check(text)
        words = self.words
        self.tried += 1
        self.solved += solved
        before = self.progress.rating.shown
        self.progress.record(puzzle, solved)
        lines = [words["puzzle.right" if solved else "puzzle.wrong"].format(card=puzzle.answers[0].pretty())]
        if puzzle.exact:
            lines.append(words["puzzle.proof.exact"])
        elif puzzle.gap.low is not None and puzzle.gap.high is not None:
            low, high = f"{puzzle.gap.low:.1f}", f"{puzzle.gap.high:.1f}"
            lines.append(words["puzzle.proof.interval"].format(low=low, high=high))
        if len(puzzle.sequence) > 1:
            moves = " ".join(card.pretty() for card in puzzle.sequence)
            lines.append(words["puzzle.sequence"].format(moves=moves))
        change = self.progress.rating.shown - before
        lines.append(words["puzzle.rating"].format(rating=self.progress.rating.shown, change=f"{change:+d}"))
        lines.append(words["puzzle.streak"].format(n=self.progress.streak))
        return lines

    def refusal(self, puzzle: Puzzle, text: str) -> str:
        """The line naming ``text`` as not a card of the hand."""
        hand = " ".join(card.pretty() for card in puzzle.view.hand)
        return self.words["puzzle.notInHand"].format(text=text or "''", cards=hand)

    def farewell(self) -> str:
        """The closing line: how many were solved."""
        return self.words["puzzle.bye"].format(solved=self.solved, tried=self.tried)


class LinePuzzles:
    """Puzzles one after another on text streams until the player quits or none is left."""

    def __init__(self, session: PuzzleSession, *, out: TextIO = sys.stdout, inp: TextIO = sys.stdin) -> None:
        self.session = session
        self._out = out
        self._inp = inp

    def _say(self, line: str) -> None:
        print(line, file=self._out, flush=True)

    def run(self, count: int | None = None) -> int:
        """Play up to ``count`` puzzles (all when ``None``); the exit status (0)."""
        session = self.session
        while count is None or session.tried < count:
            puzzle = session.next()
            if puzzle is None:
                self._say(session.words["puzzle.none"])
                break
            for line in describe(puzzle, session.lang):
                self._say(line)
            if not self._ask(puzzle):
                break
        self._say(session.farewell())
        return 0

    def _ask(self, puzzle: Puzzle) -> bool:
        """Read cards until one of the hand is named and judged; ``False`` when the player quits."""
        while True:
            print(self.session.words["puzzle.prompt"], end="", file=self._out, flush=True)
            line = self._inp.readline()
            text = line.strip()
            if not line or text.lower() in ("q", "quit"):
                return False
            try:
                lines = self.session.answer(puzzle, text)
            except PuzzleError:
                self._say(self.session.refusal(puzzle, text))
                continue
            for said in lines:
                self._say(said)
            return True


__all__ = ["LinePuzzles", "Progress", "PuzzleSession", "describe"]
