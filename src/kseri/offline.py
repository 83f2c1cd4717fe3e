"""A match against the computer, or pass and play between people at one device, with no
server: the entry point the web page's offline tables drive in the browser, where Pyodide runs
this module with the engine and the standard-library bots (``docs/web.md``, "Installable and
offline"). Everything crosses to JavaScript as JSON text.

The browser gets only :data:`BROWSER_MODULES` (:func:`core_archive`): the engine's core and the
levels in :data:`LEVELS`, none of which needs numpy. ``kseri/agents/__init__.py`` stays out of
the archive (it gathers the numpy levels too), so there ``kseri.agents`` is a namespace package
and this module imports the agent modules it needs by their own names (the ladder, which brings
the expert and its dialled rungs).

>>> table = OfflineTable.new("greek", "expert", seed=7)
>>> state = json.loads(table.state())
>>> state["seat"], state["levels"]
(0, [None, 'expert'])
>>> while json.loads(table.state())["turn"] != 0:
...     _ = table.bot_play()
>>> _ = table.play(json.loads(table.state())["hand"][0])
>>> record = json.loads(table.record(json.dumps(["Eleni", "Computer"])))
>>> replay_record(record), verify_record(record)
([], [])
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from kseri.agents.base import Agent, make_agent
from kseri.agents.ladder import WEAKEST_FIRST
from kseri.engine import Match, Phase
from kseri.records import match_from_record, record_from_match, replay_record, verify_record
from kseri.rules import PRESETS, Rules
from kseri.views import play_to_json, view_to_json

NUMPY_LEVELS: Final = ("learned", "master")
"""The levels that need numpy, which the browser's engine does not load."""

LEVELS: Final = tuple(level for level in WEAKEST_FIRST if level not in NUMPY_LEVELS)
"""The bot levels offline, weakest first: those of the standard library only (the expert and
the ladder's rungs among them)."""

PLAYER: Final = 0
"""The seat of the person at an offline table."""

BROWSER_MODULES: Final = (
    "__init__.py", "cards.py", "rules.py", "deal.py", "engine.py", "views.py", "fairness.py", "records.py",
    "offline.py", "agents/base.py", "agents/expert.py", "agents/tempered.py", "agents/ladder.py",
)
"""The files of the ``kseri`` package the browser loads, relative to the package."""

SAVED_FORMAT: Final = "kseri-offline/1"
"""The ``format`` of :meth:`OfflineTable.saved`'s text."""

__all__ = ["BROWSER_MODULES", "LEVELS", "PLAYER", "OfflineTable", "core_archive", "presets",
           "replay_record", "verify_record"]


def core_archive() -> bytes:
    """The zip of :data:`BROWSER_MODULES` under ``kseri/``, as the browser unpacks it."""
    package = Path(__file__).resolve().parent
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in BROWSER_MODULES:
            # a fixed date: the same bytes from each build of the same sources
            info = zipfile.ZipInfo(f"kseri/{name}", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, (package / name).read_bytes())
    return buffer.getvalue()


def presets() -> str:
    """Each preset's options by name (JSON), for the offline lobby and its rules help."""
    return json.dumps({name: Rules.preset(name).options() for name in PRESETS})


class OfflineTable:
    """A match where each seat whose level is ``None`` in ``levels`` is a person at this device
    (:attr:`persons`; none: a table of bots only; several: pass and play) and each other seat a
    bot of its level, seeded from the match's seed and its seat.

    The page is given one seat's view at a time, the seat :attr:`shown` (as the server's ``show``
    does at an online pass-and-play table): with one person, always theirs (with none,
    :data:`PLAYER`'s); with several, none (a spectator's view, no hand) until the hand-over's tap
    shows the seat to play, and none again as soon as that seat has played."""

    def __init__(self, match: Match, levels: Sequence[str | None], seed: int) -> None:
        if len(levels) != match.rules.players:
            raise ValueError(f"these rules seat {match.rules.players} players, not {len(levels)}")
        for level in levels:
            if level is not None and level not in LEVELS:
                raise ValueError(f"unknown offline level {level!r}; the levels are: {', '.join(LEVELS)}")
        self.match = match
        self.seed = seed
        self.levels: list[str | None] = list(levels)
        self.persons = tuple(seat for seat, level in enumerate(levels) if level is None)
        self.shown: int | None = None if len(self.persons) > 1 else (self.persons or (PLAYER,))[0]
        self.bots: dict[int, Agent] = {seat: make_agent(level, seed=seed + seat)
                                       for seat, level in enumerate(self.levels) if level is not None}

    @classmethod
    def new(cls, preset: str, level: str, seed: int, people: int = 1) -> OfflineTable:
        """A new match of the rule set ``preset`` where the person (``people`` 1; 0: nobody) plays
        seat :data:`PLAYER` against bots of ``level``."""
        if people not in (0, 1):
            raise ValueError(f"an offline table has 0 or 1 person, not {people!r}")
        match = Match(Rules.preset(preset), seed=seed)
        return cls(match, [None if seat < people else level for seat in range(match.rules.players)], seed)

    @classmethod
    def new_shared(cls, preset: str, levels: str, seed: int, one_round: bool = False) -> OfflineTable:
        """A new pass-and-play match of ``preset`` (``one_round``: a quick one, the higher score
        after one round wins): ``levels`` (a JSON list, one per seat) is ``null`` for each person
        at this device, else the bot's level; two people at least."""
        chosen = json.loads(levels)
        if not isinstance(chosen, list) or sum(1 for level in chosen if level is None) < 2:
            raise ValueError("pass and play needs two people or more on the device")
        rules = Rules.preset(preset)
        if one_round:
            rules = Rules.from_options({**rules.options(), "target": 1, "target_rule": "higher-wins"})
        return cls(Match(rules, seed=seed), chosen, seed)

    @classmethod
    def resume(cls, saved: str) -> OfflineTable:
        """The table :meth:`saved` wrote, its match re-played through the engine from the record."""
        data = json.loads(saved)
        if not isinstance(data, dict) or data.get("format") != SAVED_FORMAT:
            raise ValueError(f"not a saved offline game (format must be {SAVED_FORMAT!r})")
        match = match_from_record(data["record"])
        levels = data.get("levels")  # pass and play: each seat's; else the first ``people`` are people
        if levels is None:
            levels = [None if seat < data["people"] else data["level"] for seat in range(match.rules.players)]
        return cls(match, levels, data["seed"])

    def saved(self) -> str:
        """The table as text to keep on the device: its record and seed, and who plays each seat
        (``levels`` at pass and play; else the bots' ``level`` and the number of ``people``)."""
        seats: dict[str, Any] = {"levels": self.levels}
        if len(self.persons) < 2:
            seats = {"level": next((level for level in self.levels if level is not None), LEVELS[0]),
                     "people": len(self.persons)}
        return json.dumps({"format": SAVED_FORMAT, **seats, "seed": self.seed,
                           "record": record_from_match(self.match)})

    def show(self, seat: int | None) -> None:
        """Give the page ``seat``'s view from now on (``None``: no hand at all); refused for a
        seat that is not a person's here."""
        if seat is not None and seat not in self.persons:
            raise ValueError(f"seat {seat} is not a person's at this device")
        self.shown = seat

    def state(self) -> str:
        """What the page may see (``kseri.views.view_to_json``): the view of the seat
        :attr:`shown`, or a spectator's; with each seat's level (``null``: a person)."""
        view = self.match.spectator_view() if self.shown is None else self.match.view(self.shown)
        state: dict[str, Any] = view_to_json(view)
        state["levels"] = self.levels
        return json.dumps(state)

    def play(self, card: str) -> str:
        """The seat shown plays ``card`` (as "TD") on its turn; the play as
        ``kseri.views.play_to_json`` writes it. At pass and play its hand is hidden at once
        (:meth:`show` ``None``). An illegal play raises ``IllegalPlayError`` and changes nothing."""
        if self.match.turn is None or self.levels[self.match.turn] is not None:
            raise ValueError("it is not the person's turn")
        if self.shown != self.match.turn:
            raise ValueError("the seat to play is not the one shown: hand the device over first")
        self.match.play(card, seat=self.match.turn)
        if len(self.persons) > 1:
            self.shown = None
        return self._last_play()

    def bot_play(self) -> str:
        """The bot whose turn it is plays (it sees its own seat's view only); the play as JSON."""
        seat = self.match.turn
        if seat is None or seat not in self.bots:
            raise ValueError("it is no bot's turn")
        self.match.play(self.bots[seat].choose(self.match.view(seat)), seat=seat)
        return self._last_play()

    def next_round(self) -> None:
        """Deal the next round (after a round is over, before the match is)."""
        self.match.next_round()

    def record(self, names: str) -> str:
        """The match's record (``docs/records.md``) with ``names`` (a JSON list, one per seat)."""
        chosen: Sequence[str] = json.loads(names)
        return json.dumps(record_from_match(self.match, names=chosen), indent=1)

    def is_over(self) -> bool:
        """Whether the match has its winner."""
        return self.match.phase is Phase.MATCH_OVER

    def _last_play(self) -> str:
        return json.dumps(play_to_json(self.match.plays[-1][-1]))
