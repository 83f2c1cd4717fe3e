"""The game controller shared by the full-screen and the plain terminal modes.

A :class:`GameSession` owns the :class:`~kseri.engine.Match`, asks the bots for their plays,
and saves and resumes game records. The screens only ever read :class:`~kseri.engine.View`\\ s
from it (:meth:`GameSession.view`) and the :class:`PlayEvent`\\ s it returns.

>>> from kseri import Rules
>>> session = GameSession.start(Rules.from_spec("greek"), parse_seats("you,greedy", 2, "greedy"), seed=4)
>>> session.names
('You', 'Greedy')
>>> while session.state == "bot":
...     _ = session.play_bot(session.choose_bot())
>>> session.state
'human'
>>> session.play("XX")
Traceback (most recent call last):
...
kseri.tui.session.SessionError: 'XX' is not a card: ranks are 2-10, T, J, Q, K, A; suits are C D H S or ♣♦♥♠
"""

from __future__ import annotations

import contextlib
import datetime
import random
import signal
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Literal

import platformdirs

from kseri.agents import AGENTS, Agent, hint, make_agent
from kseri.cards import Card, CardError
from kseri.engine import IllegalPlayError, Mark, Match, Phase, View
from kseri.records import load_record, match_from_record, record_from_match, save_record
from kseri.rules import Rules

HUMAN = "you"
"""The seat spec of the person at the keyboard (``--seats you,expert``)."""

State = Literal["human", "bot", "round-over", "match-over"]


class SessionError(ValueError):
    """Raised for bad seats, a bad record or a play that cannot be made; nothing changes."""


class Interrupted(Exception):
    """Raised in the main thread when a signal (Ctrl-C, hang-up, terminate) stops the game."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@dataclass(frozen=True, slots=True)
class PlayEvent:
    """One play as the player at the keyboard saw it happen."""

    seat: int
    card: Card
    on: Card | None
    """The top of the centre before the play (``None``: the table was empty)."""
    taken: int
    """Cards captured, the played card included (0: it stayed on the pile)."""
    marks: tuple[Mark, ...]
    """Kseris and bonuses scored by the play."""
    dealt: bool
    """A new batch was dealt after this play."""
    round_over: bool
    """The play ended the round (the round has been scored)."""


def parse_seats(text: str | None, players: int, level: str) -> tuple[str, ...]:
    """Seat specs from ``you,expert,greedy,expert``: ``you`` once, bot levels elsewhere.

    Without text, you sit at seat 0 and every other seat is a ``level`` bot.

    >>> parse_seats(None, 3, "greedy")
    ('you', 'greedy', 'greedy')
    >>> parse_seats("greedy,you", 2, "random")
    ('greedy', 'you')
    """
    if not text:
        specs = [HUMAN] + [level] * (players - 1)
    else:
        specs = [part.strip().lower() for part in text.split(",")]
    if len(specs) != players:
        raise SessionError(
            f"--seats names {len(specs)} seat(s) but these rules have {players} players"
        )
    if specs.count(HUMAN) != 1:
        raise SessionError(f"--seats must name '{HUMAN}' exactly once, as in you,{level}")
    for spec in specs:
        if spec != HUMAN and spec not in AGENTS:
            raise SessionError(
                f"unknown seat {spec!r} in --seats: use '{HUMAN}' or a bot level ({', '.join(AGENTS)})"
            )
    return tuple(specs)


def seat_names(specs: Sequence[str]) -> tuple[str, ...]:
    """Display names: ``You`` and the bot levels, numbered when a level sits more than once.

    >>> seat_names(["you", "expert", "greedy", "expert"])
    ('You', 'Expert', 'Greedy', 'Expert 2')
    """
    names = []
    for seat, spec in enumerate(specs):
        name = "You" if spec == HUMAN else spec.capitalize()
        count = specs[: seat + 1].count(spec)
        names.append(f"{name} {count}" if count > 1 else name)
    return tuple(names)


def default_record_dir() -> Path:
    """Where unfinished games are saved when no ``--record`` file was given."""
    return platformdirs.user_data_path("kseri") / "games"


class GameSession:
    """A match against bots, seen from one human seat."""

    def __init__(self, match: Match, specs: Sequence[str], *, record_path: Path | None = None) -> None:
        if len(specs) != match.rules.players:
            raise SessionError(f"{match.rules.players} players need {match.rules.players} seats")
        self._match = match
        self.specs = tuple(specs)
        self.human = self.specs.index(HUMAN)
        self.names = seat_names(self.specs)
        self.record_path = record_path
        self._agents: dict[int, Agent] = {
            seat: make_agent(spec, seed=random.Random(f"{match.seed}:bot:{seat}").getrandbits(32))
            for seat, spec in enumerate(self.specs)
            if spec != HUMAN
        }
        self._busy = False
        self._pending: int | None = None

    @classmethod
    def start(cls, rules: Rules, specs: Sequence[str], seed: int | str | None = None,
              *, record_path: Path | None = None) -> GameSession:
        """A new match."""
        return cls(Match(rules, seed=seed), specs, record_path=record_path)

    @classmethod
    def resume(cls, path: Path, *, record_path: Path | None = None) -> GameSession:
        """The unfinished match saved in ``path``; it keeps saving there unless told otherwise."""
        try:
            record = load_record(path)
        except OSError as error:
            raise SessionError(f"cannot read {path}: {error.strerror or error}") from None
        except ValueError as error:
            raise SessionError(f"{path} is not a kseri game record: {error}") from None
        try:
            match = match_from_record(record)
        except (ValueError, KeyError, TypeError) as error:
            raise SessionError(f"{path} is not a valid kseri game record: {error}") from None
        if match.is_over():
            raise SessionError(f"the match in {path} is over; replay it with: kseri show {path}")
        specs = record.get("names") or []
        if specs.count(HUMAN) != 1 or any(s != HUMAN and s not in AGENTS for s in specs):
            raise SessionError(
                f"{path} was not saved by kseri play (its seats are {specs!r}); "
                "kseri play resumes games of one player against bots"
            )
        return cls(match, specs, record_path=record_path or path)

    # -- reading ----------------------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The rule set of the match."""
        return self._match.rules

    @property
    def seed(self) -> str:
        """The match seed (the whole match is reproducible from it and the plays)."""
        return self._match.seed

    def view(self) -> View:
        """What the human seat may know now."""
        return self._match.view(self.human)

    @property
    def state(self) -> State:
        """Whose move it is: the human's, a bot's, or between rounds, or the match is over."""
        phase = self._match.phase
        if phase is Phase.MATCH_OVER:
            return "match-over"
        if phase is Phase.ROUND_OVER:
            return "round-over"
        return "human" if self._match.turn == self.human else "bot"

    def side_names(self) -> tuple[str, ...]:
        """Display names of the sides: a seat's name, or partners joined with ``&``."""
        rules = self.rules
        return tuple(
            " & ".join(self.names[seat] for seat in range(rules.players) if rules.side_of(seat) == side)
            for side in range(rules.sides)
        )

    # -- playing ----------------------------------------------------------------------------

    def play(self, card: Card | str) -> PlayEvent:
        """Play a card from the human's hand (a :class:`Card` or text like ``10d``)."""
        view = self.view()
        if view.turn != self.human:
            raise SessionError("it is not your turn" if view.turn is not None else "no play is due now")
        try:
            chosen = card if isinstance(card, Card) else Card(card)
        except CardError as error:
            raise SessionError(str(error)) from None
        if all(held.face != chosen.face for held in view.hand):
            held_text = " ".join(c.pretty() for c in view.hand)
            raise SessionError(f"{chosen.pretty()} is not in your hand ({held_text})")
        return self._apply(chosen)

    def choose_bot(self, view: View | None = None) -> Card:
        """The card the bot to play picks from its own view (given a view taken beforehand, safe to
        call in a worker thread)."""
        if view is None:
            view = self.bot_view()
        return self._agents[view.seat].choose(view)

    def bot_view(self) -> View:
        """The view of the bot whose turn it is."""
        turn = self._match.turn
        if turn is None or turn == self.human:
            raise SessionError("no bot is to play now")
        return self._match.view(turn)

    def play_bot(self, card: Card) -> PlayEvent:
        """Play the bot's chosen card."""
        if self.state != "bot":
            raise SessionError("no bot is to play now")
        return self._apply(card)

    def _apply(self, card: Card) -> PlayEvent:
        seat = self._match.turn
        assert seat is not None
        before = self._match.view(seat)
        with self.critical():
            try:
                self._match.play(card)
            except IllegalPlayError as error:
                raise SessionError(str(error)) from None
        after = self._match.view(seat)
        play = after.plays[-1]
        event = PlayEvent(
            seat=seat,
            card=play.card,
            on=before.centre_top,
            taken=play.taken,
            marks=play.marks,
            dealt=after.phase is Phase.PLAYING and after.stock_size < before.stock_size,
            round_over=after.phase is not Phase.PLAYING,
        )
        if after.phase is Phase.MATCH_OVER and self.record_path is not None:
            self.save()
        return event

    def next_round(self) -> None:
        """Deal the next round (after a round is scored)."""
        if self.state != "round-over":
            raise SessionError("the round is not over" if self.state != "match-over" else "the match is over")
        with self.critical():
            self._match.next_round()

    def rematch(self) -> GameSession:
        """A new match with the same rules and seats (and a numbered record file)."""
        path = self.record_path
        if path is not None:
            stem, _, number = path.stem.rpartition("-again-")
            count = int(number) + 1 if stem and number.isdigit() else 2
            path = path.with_name(f"{stem or path.stem}-again-{count}{path.suffix}")
        return GameSession.start(self.rules, self.specs, record_path=path)

    def hint(self, iterations: int | None = None, view: View | None = None) -> list[tuple[Card, float]]:
        """The master bot's estimate of each legal play, best first (a fraction of a second).

        Pass the human's ``view`` taken beforehand to think in a worker thread.
        """
        if view is None:
            view = self.view()
        if view.turn != self.human:
            raise SessionError("hints are for your turn")
        seed = random.Random(f"{self.seed}:hint:{view.round_index}:{len(view.plays)}").getrandbits(32)
        return hint(view, iterations=iterations, seed=seed)

    # -- records and signals -----------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The game record so far (``"complete": false`` until the match is over)."""
        return record_from_match(self._match, names=list(self.specs))

    def save(self, path: Path | None = None) -> Path:
        """Save the record (to ``path``, else the record file, else a new file in the data folder)."""
        if path is not None:
            self.record_path = path
        if self.record_path is None:
            stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S")
            self.record_path = default_record_dir() / f"{stamp}-{self.seed[:8]}.json"
        self.record_path.parent.mkdir(parents=True, exist_ok=True)
        save_record(self.record_path, self.record())
        return self.record_path

    @contextlib.contextmanager
    def critical(self) -> Iterator[None]:
        """Defer signals while the match changes, so an interrupt never saves half a play."""
        self._busy = True
        try:
            yield
        finally:
            self._busy = False
        if self._pending is not None:
            signum, self._pending = self._pending, None
            raise Interrupted(signum)

    @contextlib.contextmanager
    def signals_interrupt(self) -> Iterator[None]:
        """Turn Ctrl-C, hang-up and terminate into :class:`Interrupted` (deferred while a play is
        being made) for the plain mode's blocking reads."""

        def handler(signum: int, frame: FrameType | None) -> None:
            del frame
            if self._busy:
                self._pending = signum
            else:
                raise Interrupted(signum)

        wanted = [signal.SIGINT, signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])
        previous = {signum: signal.signal(signum, handler) for signum in wanted}
        try:
            yield
        finally:
            for signum, old in previous.items():
                signal.signal(signum, old)
