"""Views as JSON: the form in which a seat's knowledge crosses a process or a network.

The same shape is used by the server, the web page and the engine protocol. Cards are
canonical ASCII (``TD``); sides and seats are numbers.

>>> from kseri import Match
>>> view = Match(seed=3).view(0)
>>> view_from_json(view_to_json(view)) == view
True
"""

from __future__ import annotations

from typing import Any

from kseri.cards import Card
from kseri.engine import Mark, Phase, PublicPlay, RoundResult, ScoreItem, SpectatorView, View
from kseri.rules import Rules


def _card(card: Card | None) -> str | None:
    return None if card is None else str(card)


def _mark(mark: Mark) -> dict[str, Any]:
    return {"kind": mark.kind, "card": str(mark.card), "points": mark.points}


def result_to_json(result: RoundResult) -> dict[str, Any]:
    """A round's result as JSON."""
    return {
        "points": list(result.points),
        "kseri": list(result.kseri),
        "captured": [[str(c) for c in cards] for cards in result.captured],
        "breakdown": [
            [{"kind": item.kind, "card": _card(item.card), "points": item.points} for item in items]
            for items in result.breakdown
        ],
        "last_capturer": result.last_capturer,
    }


def result_from_json(data: dict[str, Any]) -> RoundResult:
    """The inverse of :func:`result_to_json`."""
    return RoundResult(
        points=tuple(data["points"]),
        kseri=tuple(data["kseri"]),
        captured=tuple(tuple(Card(c) for c in cards) for cards in data["captured"]),
        breakdown=tuple(
            tuple(
                ScoreItem(i["kind"], None if i["card"] is None else Card(i["card"]), i["points"])
                for i in items
            )
            for items in data["breakdown"]
        ),
        last_capturer=data["last_capturer"],
    )


def play_to_json(play: PublicPlay) -> dict[str, Any]:
    """One play of a view's round as JSON."""
    return {"seat": play.seat, "card": str(play.card), "taken": play.taken,
            "marks": [_mark(m) for m in play.marks]}


def view_to_json(view: View | SpectatorView, shared: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything in a view (a seat's or a spectator's), as JSON-ready values (``shared``: the
    values of ``rules``, ``plays`` and ``round_results``, which every seat sees alike, from the
    caller: a server encodes them once for every seat)."""
    if shared is None:
        shared = {"rules": view.rules.options(), "plays": [play_to_json(p) for p in view.plays],
                  "round_results": [result_to_json(r) for r in view.round_results]}
    return {
        "rules": shared["rules"],
        "seat": view.seat,
        "side": view.side,
        "phase": view.phase.value,
        "round": view.round_index,
        "dealer": view.dealer,
        "turn": view.turn,
        "hand": [str(c) for c in view.hand],
        "centre_top": _card(view.centre_top),
        "centre_size": view.centre_size,
        "face_down": view.face_down,
        "centre_dealt": [_card(c) for c in view.centre_dealt],
        "face_down_seen": [str(c) for c in view.face_down_seen],
        "shown": _card(view.shown),
        "hand_sizes": list(view.hand_sizes),
        "stock_size": view.stock_size,
        "captured_sizes": list(view.captured_sizes),
        "marks": [[_mark(m) for m in marks] for marks in view.marks],
        "plays": shared["plays"],
        "last_capturer": view.last_capturer,
        "totals": list(view.totals),
        "target": view.target,
        "round_results": shared["round_results"],
        "winner": view.winner,
    }


def _mark_from(data: dict[str, Any]) -> Mark:
    return Mark(data["kind"], Card(data["card"]), data["points"])


def view_from_json(data: dict[str, Any]) -> View:
    """Rebuild a :class:`View` from :func:`view_to_json` output (validating the rules)."""
    rules = Rules.from_options(data["rules"])

    def opt(card: str | None) -> Card | None:
        return None if card is None else Card(card)

    return View(
        rules=rules,
        seat=data["seat"],
        phase=Phase(data["phase"]),
        round_index=data["round"],
        dealer=data["dealer"],
        turn=data["turn"],
        hand=tuple(Card(c) for c in data["hand"]),
        centre_top=opt(data["centre_top"]),
        centre_size=data["centre_size"],
        face_down=data["face_down"],
        centre_dealt=tuple(opt(c) for c in data["centre_dealt"]),
        face_down_seen=tuple(Card(c) for c in data["face_down_seen"]),
        shown=opt(data["shown"]),
        hand_sizes=tuple(data["hand_sizes"]),
        stock_size=data["stock_size"],
        captured_sizes=tuple(data["captured_sizes"]),
        marks=tuple(tuple(_mark_from(m) for m in marks) for marks in data["marks"]),
        plays=tuple(
            PublicPlay(p["seat"], Card(p["card"]), p["taken"], tuple(_mark_from(m) for m in p["marks"]))
            for p in data["plays"]
        ),
        last_capturer=data["last_capturer"],
        totals=tuple(data["totals"]),
        target=data["target"],
        round_results=tuple(result_from_json(r) for r in data["round_results"]),
        winner=data["winner"],
    )
