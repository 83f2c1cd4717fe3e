"""Replaying a finished match from its record, step by step, with every hand shown."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from kseri.agents import AGENTS, centre_cards
from kseri.engine import Match, View
from kseri.records import match_from_record, read_records
from kseri.rules import Rules
from kseri.tui.session import HUMAN, PlayEvent, seat_names
from kseri.tui.text import breakdown_sentence, describe_play, does, standings


class ReplayError(ValueError):
    """Raised for a file that cannot be replayed; the message says why."""


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """The table after one event: every seat's view, and a sentence for what happened."""

    views: tuple[View, ...]
    caption: str
    event: PlayEvent | None
    """The play that led here (``None`` at a deal)."""


@dataclass(frozen=True, slots=True)
class Replay:
    """A finished match as a list of steps."""

    rules: Rules
    names: tuple[str, ...]
    side_names: tuple[str, ...]
    steps: tuple[ReplayStep, ...]


def _names(record: dict[str, object], players: int) -> tuple[str, ...]:
    names = record.get("names")
    if not isinstance(names, list) or len(names) != players:
        return tuple(f"Seat {seat + 1}" for seat in range(players))
    specs = [str(name) for name in names]
    if specs.count(HUMAN) <= 1 and all(s == HUMAN or s in AGENTS for s in specs):
        return seat_names(specs)
    return tuple(specs)


def replay_steps(path: Path, number: int = 1) -> Replay:
    """Every step of the finished match recorded in ``path`` (the ``number``-th record of a
    JSON Lines file such as ``kseri simulate --records`` writes)."""
    try:
        records = read_records(path)
    except OSError as error:
        raise ReplayError(f"cannot read {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise ReplayError(f"{path} is not a kseri game record: {error}") from None
    if not 1 <= number <= len(records):
        raise ReplayError(
            f"{path} holds {len(records)} record(s); choose one with --number 1 to {len(records)}"
        )
    record = records[number - 1]
    try:
        final = match_from_record(record)
    except (ValueError, KeyError, TypeError) as error:
        raise ReplayError(f"{path} is not a valid kseri game record: {error}") from None
    if not final.is_over():
        raise ReplayError(
            f"the match in {path} is not over (hands stay hidden until it is); "
            f"continue it with: kseri play --resume {path}"
        )
    rules = final.rules
    names = _names(record, rules.players)
    sides = tuple(
        " & ".join(names[s] for s in range(rules.players) if rules.side_of(s) == side)
        for side in range(rules.sides)
    )
    steps: list[ReplayStep] = []
    match = Match(rules, seed=final.seed, deal=final.deals[0])
    for index, (deal, plays) in enumerate(zip(final.deals, final.plays, strict=True)):
        if index:
            match.next_round(deal=deal)
        steps.append(_snapshot(match, f"Round {index + 1}: {does(names[deal.dealer], 'deal')}.", None))
        for play in plays:
            seat = play.seat
            top = match.view(seat).centre_top
            stock = match.stock_size
            match.play(play.card)
            done = match.view(seat)
            made = done.plays[-1]
            event = PlayEvent(seat, made.card, top, made.taken, made.marks,
                              dealt=not match.is_round_over() and match.stock_size < stock,
                              round_over=match.is_round_over())
            steps.append(_snapshot(match, describe_play(event, names), event))
    return Replay(rules, names, sides, tuple(steps))


def _snapshot(match: Match, caption: str, event: PlayEvent | None) -> ReplayStep:
    return ReplayStep(tuple(match.view(seat) for seat in range(match.rules.players)), caption, event)


def print_replay(replay: Replay, out: TextIO = sys.stdout) -> None:
    """The whole replay as lines of text: the hands at each deal, every play, every score."""
    for step in replay.steps:
        view = step.views[0]
        print(step.caption, file=out)
        if step.event is None or step.event.dealt:
            for seat, seat_view in enumerate(step.views):
                hand = " ".join(card.pretty() for card in seat_view.hand)
                print(f"   {replay.names[seat]}: {hand}", file=out)
            pile = " ".join(card.pretty() if card else "??" for card in centre_cards(view))
            print(f"   Centre, bottom to top: {pile}; stock {view.stock_size}", file=out)
        if step.event is not None and step.event.round_over:
            result = view.round_results[-1]
            if view.last_capturer is not None:
                print(f"   The rest of the centre goes to {replay.names[view.last_capturer]}.", file=out)
            for side, name in enumerate(replay.side_names):
                print(f"   {name}: {breakdown_sentence(result, side)}.", file=out)
            print(f"   Match: {standings(view, replay.side_names)}.", file=out)
    last = replay.steps[-1].views[0]
    if last.winner is not None:
        print(f"{replay.side_names[last.winner]} won the match.", file=out)
