"""Protocol v2's lean wire: after one full ``state``, a connection is sent ``delta`` messages,
each only what changed since the state it has (``docs/protocol.md``, Protocol version 2).

A moment of a table as one seat sees it is its :data:`Parts`: the ``table``, ``view``,
``fairness``, ``history`` and ``turn_deadline`` of a v1 ``state`` message, as JSON-ready values.
:func:`changes` compares two of them key by key: a key whose value is unchanged is left out,
a list that only grew (the round's plays, the finished rounds' results, the revealed secrets)
sends its new items alone, anything else its new value; :func:`apply` is the inverse, and the
web page's ``delta.js`` its twin. Every value sent comes from the seat's own parts, so a delta
never carries what the seat's full state would not.

Each v2 connection remembers the parts it was last sent (:attr:`Connection.sent`); connections
of one seat that hold the same parts share one encoded delta (:class:`DeltaText`).
"""

from __future__ import annotations

from typing import Any

from orjson import Fragment

from kseri.server.eventlog import GameState
from kseri.server.protocol import Delta, dumps
from kseri.views import play_to_json, result_to_json, view_to_json

Parts = dict[str, Any]
"""A moment as one seat sees it: ``table``, ``view``, ``fairness``, ``history``,
``turn_deadline`` (the parts of a v1 ``state`` message besides ``seq`` and ``event``)."""

PARTS = ("table", "view", "fairness", "history", "turn_deadline")
"""The parts of a moment, in the order a delta lists them."""


class SharedParts:
    """The JSON values every seat sees alike at one table (the rules, the round's plays, the
    finished rounds' results), built once and reused as the same objects from moment to moment,
    so comparing a seat's parts with the ones before is mostly a check of identity."""

    def __init__(self) -> None:
        self._rules: dict[str, Any] | None = None
        self._results: tuple[int, list[dict[str, Any]]] = (0, [])
        self._plays: tuple[tuple[int, int], list[dict[str, Any]]] = ((-1, 0), [])

    def view(self, state: GameState, seat: int | None) -> dict[str, Any] | None:
        """``seat``'s view (``None``: a spectator's) as ``view_to_json`` makes it."""
        match = state.match
        if match is None:
            return None
        view = match.spectator_view() if seat is None else match.view(seat)
        if self._rules is None:
            self._rules = view.rules.options()
        if self._results[0] != len(view.round_results):
            self._results = (len(view.round_results), [result_to_json(r) for r in view.round_results])
        key = (view.round_index, len(view.plays))
        if self._plays[0] != key:
            same_round = self._plays[0][0] == view.round_index and len(self._plays[1]) <= len(view.plays)
            known = self._plays[1] if same_round else []
            self._plays = (key, known + [play_to_json(p) for p in view.plays[len(known):]])
        return view_to_json(view, {"rules": self._rules, "plays": self._plays[1],
                                   "round_results": self._results[1]})


class MomentParts(dict[int | None, Parts]):
    """Each seat's :data:`Parts` of one moment (``None``: a spectator's), made when first
    asked for."""

    def __init__(self, table: dict[str, Any], state: GameState, turn_deadline: dict[str, float] | None,
                 shared: SharedParts) -> None:
        super().__init__()
        self._state = state
        self._shared = shared
        history = state.history.to_json()
        if history is not None:
            history = dict(history, plays=list(history["plays"]))  # a snapshot: the list grows
        self._common = {"table": table, "fairness": state.fairness(), "history": history,
                        "turn_deadline": turn_deadline}

    def __missing__(self, seat: int | None) -> Parts:
        parts = self[seat] = dict(self._common, view=self._shared.view(self._state, seat))
        return parts


def changes(old: Parts, new: Parts) -> dict[str, Any]:
    """What turns ``old`` into ``new``: per part, ``{"replace": value}`` or
    ``{"set": {key: value}, "add": {key: [new items]}}`` (either may be missing); unchanged
    parts are left out."""
    found: dict[str, Any] = {}
    for name in PARTS:
        before, after = old.get(name), new.get(name)
        if before is after:
            continue
        if not isinstance(before, dict) or not isinstance(after, dict) or name == "turn_deadline":
            if before != after:
                found[name] = {"replace": after}
            continue
        change = _dict_changes(before, after)
        if change:
            found[name] = change
    return found


def _dict_changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    if before.keys() != after.keys():
        return {"replace": after}
    set_: dict[str, Any] = {}
    add: dict[str, list[Any]] = {}
    for key, value in after.items():
        was = before[key]
        if was is value or was == value:
            continue
        if (isinstance(was, list) and isinstance(value, list) and 0 < len(was) < len(value)
                and value[:len(was)] == was):
            add[key] = value[len(was):]
        else:
            set_[key] = value
    change: dict[str, Any] = {}
    if set_:
        change["set"] = set_
    if add:
        change["add"] = add
    return change


def apply(parts: Parts, found: dict[str, Any]) -> Parts:
    """``parts`` with :func:`changes` applied (a new mapping; ``parts`` is left as it was)."""
    result = dict(parts)
    for name, change in found.items():
        if "replace" in change:
            result[name] = change["replace"]
            continue
        part = dict(result[name])
        part.update(change.get("set", {}))
        for key, items in change.get("add", {}).items():
            part[key] = part[key] + items
        result[name] = part
    return result


class DeltaText:
    """The ``delta`` messages of one moment: encoded once per seat and parts the connection
    held before (connections that are up to date share their seat's parts object)."""

    def __init__(self, parts: dict[int | None, Parts]) -> None:
        self.parts = parts
        self._texts: dict[tuple[int | None, int], Fragment] = {}

    def message(self, seq: int, event: Fragment, seat: int | None, held: Parts, base: int,
                first: bool) -> str:
        """The ``delta`` after ``event`` (``seq``) for a connection of ``seat`` that holds
        ``held``, the parts of state ``base``; only the first event of a moment carries its
        changes (the later ones, a round's or the match's end after a play, change nothing more)."""
        if not first:
            return Delta(seq, seq - 1, event, _NOTHING).encode()
        key = (seat, id(held))
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = Fragment(dumps(changes(held, self.parts[seat])))
        return Delta(seq, base, event, text).encode()


_NOTHING = Fragment("{}")
