"""A table's event log: every change to a table is an :class:`Event` with the table's next
sequence number. :class:`GameState` applies events to a :class:`~kseri.engine.Match`, the same
way live, on start-up (replaying the stored log) and for a reconnecting client's missed states;
:class:`EventLog` holds the committed events and the state they make, and commits new ones
(the store's group commit), rebuilding the state from the log when a commit fails.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from orjson import Fragment

from kseri.cards import Card
from kseri.engine import Deal, IllegalPlayError, Match, Phase, SpectatorView, View
from kseri.fairness import commitment, deal_seed, dealt_secret, new_secret
from kseri.rules import Rules
from kseri.server import db
from kseri.server.history import RoundHistory
from kseri.server.protocol import dumps
from kseri.views import play_to_json, result_to_json, view_to_json


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of a table's log."""

    seq: int
    kind: str
    """``play``, ``ready``, ``round-start``, ``round-end``, ``match-end``, ``resign``, ``seat`` or
    ``rematch``."""
    seat: int | None = None
    card: str | None = None
    data: dict[str, Any] | None = None

    def row(self, table_id: str) -> dict[str, Any]:
        """The event as a database row."""
        return {"table_id": table_id, "seq": self.seq, "kind": self.kind, "seat": self.seat,
                "card": self.card, "data": None if self.data is None else dumps(self.data)}

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Event:
        """The inverse of :meth:`row`."""
        data = None if row["data"] is None else json.loads(row["data"])
        return cls(row["seq"], row["kind"], row["seat"], row["card"], data)


@dataclass(slots=True)
class RoundSecret:
    """A round's fairness: the server's secret, its published hash, the dealer and the cut."""

    secret: str
    commitment: str
    dealer: int
    cut: str | None = None

    @classmethod
    def fresh(cls, dealer: int) -> RoundSecret:
        """A new secret for a round dealt by ``dealer``."""
        secret = new_secret()
        return cls(secret, commitment(secret), dealer)

    @classmethod
    def dealt(cls, key: str, index: int, dealer: int) -> RoundSecret:
        """Round ``index``'s secret at a table dealt from ``key`` (:func:`dealt_secret`)."""
        secret = dealt_secret(key, index)
        return cls(secret, commitment(secret), dealer)


class GameState:
    """A table's match as its events so far make it."""

    def __init__(self, table_id: str, rules: Rules, rounds: list[RoundSecret]) -> None:
        self.table_id = table_id
        self.rules = rules
        self.rounds = rounds
        self.match: Match | None = None
        self.seq = 0
        self.turn_seq = 0
        """The last event that changed whose turn it is (a play must have seen it)."""
        self.readies: set[int] = set()
        self.cut = ""
        self.forfeit: tuple[int, int] | None = None
        """A rated match abandoned: the seat that forfeited it and the side that won."""
        self.closed: str | None = None
        """A match a moderator ended under way: why (nobody won; ``server/resign.py``)."""
        self.history = RoundHistory()
        # JSON texts shared by every seat's view and by many moments in a row (view_text)
        self._rules_text = Fragment(dumps(rules.options()))
        self._results_text = (0, Fragment("[]"))
        self._plays_text: tuple[tuple[int, int], Fragment] = ((-1, 0), Fragment("[]"))
        self._play_texts: list[str] = []
        self._fairness_text: tuple[tuple[int, str], str] = ((-2, ""), "")

    @property
    def status(self) -> str:
        """``waiting`` (before the first deal), ``playing`` or ``finished``."""
        if self.match is None:
            return "waiting"
        ended = self.match.is_over() or self.forfeit is not None or self.closed is not None
        return "finished" if ended else "playing"

    @property
    def winner(self) -> int | None:
        """The side that won the match (by play or by a forfeit), ``None`` until then."""
        if self.forfeit is not None:
            return self.forfeit[1]
        return None if self.match is None else self.match.winner

    def between_rounds(self) -> bool:
        """Whether the next deal is due (before the first round or after one)."""
        return self.match is None or self.match.phase is Phase.ROUND_OVER

    def next_round(self) -> int:
        """The index of the round to deal next."""
        return 0 if self.match is None else self.match.round_index + 1

    def cutter(self, round_index: int) -> int:
        """The seat that cuts for a round: the one before its dealer."""
        return (self.rounds[round_index].dealer - 1) % self.rules.players

    def apply(self, event: Event) -> dict[str, Any]:
        """Apply ``event`` and return it as the protocol shows it; an illegal play raises
        :class:`IllegalPlayError` and changes nothing."""
        if event.seq != self.seq + 1:
            raise ValueError(f"event {event.seq} does not follow {self.seq}")
        shown: dict[str, Any] = {"kind": event.kind}
        data = event.data or {}
        if event.kind == "play":
            match = self.match
            if match is None or match.turn != event.seat or self.closed is not None:
                raise IllegalPlayError(f"no play is due from seat {event.seat}")
            match.play(Card(event.card or ""))
            play = match.plays[-1][-1]
            marks = [{"kind": m.kind, "card": str(m.card), "points": m.points} for m in play.marks]
            shown.update(seat=play.seat, card=str(play.card), taken=play.taken, marks=marks)
            if data.get("auto"):
                shown["auto"] = data["auto"]
            self.turn_seq = event.seq
        elif event.kind == "round-start":
            index = data["round"]
            fair = self.rounds[index]
            fair.cut = data["cut"]
            seed = deal_seed(fair.secret, fair.cut)
            if self.match is None:
                self.match = Match(self.rules, seed=self.table_id,
                                   deal=Deal.shuffle(self.rules, fair.dealer, seed))
            else:
                self.match.next_round(deal_seed=seed)
            self.readies.clear()
            self.cut = ""
            self.turn_seq = event.seq
            shown["round"] = index
        elif event.kind == "ready":
            assert event.seat is not None
            self.readies.add(event.seat)
            if data.get("cut") is not None:
                self.cut = data["cut"]
            shown["seat"] = event.seat
        elif event.kind == "resign":
            assert self.match is not None and event.seat is not None
            self.match.resign(event.seat)
            shown["seat"] = event.seat
            self.turn_seq = event.seq
        elif event.kind in ("round-end", "match-end", "seat", "rematch"):
            if event.kind == "match-end" and "closed" in data:
                self.closed = data["closed"]  # the match stays as it was: nobody won
            if event.kind == "match-end" and "forfeit" in data:
                self.forfeit = (data["forfeit"], data["winner"])
                if self.match is not None and not self.match.is_over():
                    self.match.resign(data["forfeit"])  # one result: the record, stats, analysis
            if event.seat is not None:
                shown["seat"] = event.seat
            shown.update(data)
        else:
            raise ValueError(f"unknown event kind {event.kind!r}")
        self.seq = event.seq
        self.history.observe(shown, self.match)
        return shown

    def view_text(self, seat: int | None) -> str:
        """What ``seat`` may see now (``None``: a spectator, who sees no hand and no face-down
        card) as the JSON text of ``view_to_json``, or ``null`` before the first deal. The parts
        every seat sees alike (the rules, the round's plays, the finished rounds' results) are
        turned into JSON once, not once per connection and play."""
        match = self.match
        if match is None:
            return "null"
        view = match.spectator_view() if seat is None else match.view(seat)
        if self._results_text[0] != len(view.round_results):
            self._results_text = (len(view.round_results),
                                  Fragment(dumps([result_to_json(r) for r in view.round_results])))
        return dumps(view_to_json(view, {"rules": self._rules_text, "plays": self._round_plays_text(view),
                                            "round_results": self._results_text[1]}))

    def _round_plays_text(self, view: View | SpectatorView) -> Fragment:
        """The JSON text of ``view``'s plays (the round's, public), each play encoded once."""
        key = (view.round_index, len(view.plays))
        if self._plays_text[0] != key:
            if self._plays_text[0][0] != view.round_index or len(self._play_texts) > len(view.plays):
                self._play_texts = []
            self._play_texts.extend(dumps(play_to_json(p)) for p in view.plays[len(self._play_texts):])
            self._plays_text = (key, Fragment("[" + ",".join(self._play_texts) + "]"))
        return self._plays_text[1]

    def fairness_text(self) -> str:
        """:meth:`fairness` as JSON text (it changes only when a round starts or ends)."""
        match = self.match
        key = (-1, "") if match is None else (match.round_index, match.phase.value)
        if self._fairness_text[0] != key:
            self._fairness_text = (key, dumps(self.fairness()))
        return self._fairness_text[1]

    def fairness(self) -> dict[str, Any]:
        """The fairness record so far: the commitment to the round at hand (the one being
        played, or the next one), who cuts it, and the secrets of the rounds that have ended."""
        match = self.match
        if match is None:
            current, ended = 0, 0
        elif match.phase is Phase.PLAYING:
            current, ended = match.round_index, match.round_index
        elif match.phase is Phase.ROUND_OVER:
            current, ended = match.round_index + 1, match.round_index + 1
        else:
            current, ended = match.round_index, match.round_index + 1
        revealed = []
        for index in range(ended):
            fair = self.rounds[index]
            cut = fair.cut or ""
            revealed.append({"round": index, "secret": fair.secret, "commitment": fair.commitment,
                             "cut": cut, "deal_seed": deal_seed(fair.secret, cut), "dealer": fair.dealer})
        return {"round": current, "commitment": self.rounds[current].commitment,
                "cutter": self.cutter(current), "revealed": revealed}


class EventLog:
    """A table's committed events and the :class:`GameState` they make."""

    def __init__(self, table_id: str, rules: Rules, rounds: list[RoundSecret], store: db.Store) -> None:
        self.table_id = table_id
        self.rules = rules
        self.rounds = rounds
        """Each round's fairness (one ahead of the rounds dealt)."""
        self.store = store
        self.events: list[Event] = []
        self.state = GameState(table_id, rules, rounds)

    def replay(self, rows: list[dict[str, Any]]) -> None:
        """Apply stored events (a table restored from the database)."""
        for row in rows:
            event = Event.from_row(row)
            self.state.apply(event)
            self.events.append(event)

    def fresh_state(self) -> GameState:
        """A state before the first event (to replay the log through)."""
        return GameState(self.table_id, self.rules, self.rounds)

    def next(self, kind: str, seat: int | None = None, card: str | None = None,
             data: dict[str, Any] | None = None) -> Event:
        """The event that would come next."""
        return Event(self.state.seq + 1, kind, seat, card, data)

    def derived(self, kind: str, data: dict[str, Any]) -> tuple[Event, dict[str, Any]]:
        """Apply the next event of ``kind`` (one that follows from a play: a round's or the
        match's end) and return it with how the protocol shows it."""
        event = self.next(kind, data=data)
        return event, self.state.apply(event)

    async def commit(self, new: list[Event], batch: db.Batch) -> None:
        """Store events already applied to :attr:`state` with ``batch``; on failure rebuild the
        state from the committed log and raise."""
        for event in new:
            batch.insert(db.events, **event.row(self.table_id))
        try:
            await self.store.write(batch)
        except Exception:
            self.state = self.fresh_state()
            for event in self.events:
                self.state.apply(event)
            raise
        self.events.extend(new)
