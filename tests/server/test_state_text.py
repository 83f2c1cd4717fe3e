"""The state message's parts turned into JSON once and spliced in (``orjson.Fragment``) are
byte for byte what encoding each seat's view, the fairness record and the round's history
whole gives, at every moment of whole matches, for every seat and for spectators."""

from __future__ import annotations

import json
import random

import pytest

from kseri.engine import Phase
from kseri.rules import Rules
from kseri.server.audience import StateText
from kseri.server.eventlog import Event, GameState, RoundSecret
from kseri.server.protocol import dumps
from kseri.views import view_to_json


def whole_view(state: GameState, seat: int | None) -> str:
    """The view's JSON the plain way: every part encoded for this seat."""
    match = state.match
    if match is None:
        return "null"
    data = view_to_json(match.view(0 if seat is None else seat))
    if seat is None:
        data.update(seat=None, side=None, hand=[], face_down_seen=[])
    return dumps(data)


def check_moment(state: GameState) -> None:
    for seat in [None, *range(state.rules.players)]:
        assert state.view_text(seat) == whole_view(state, seat)
    assert state.fairness_text() == dumps(state.fairness())
    assert state.history.to_text() == dumps(state.history.to_json())


@pytest.mark.parametrize(("preset", "seed"), [("greek", 1), ("pisti", 2), ("partnership", 3)])
def test_spliced_texts_equal_the_whole_encoding_through_a_match(preset: str, seed: int) -> None:
    rules = Rules.preset(preset)
    chooser = random.Random(seed)
    state = GameState(f"table-{seed}", rules, [RoundSecret.fresh(0)])
    check_moment(state)
    seq = 0
    while state.status != "finished":
        match = state.match
        if match is None or match.phase is Phase.ROUND_OVER:
            events = [Event(seq + 1, "round-start", data={"round": state.next_round(), "cut": str(seq)})]
        else:
            events = [Event(seq + 1, "play", match.turn, str(chooser.choice(match.legal_plays())))]
        for event in events:
            seq = event.seq
            state.apply(event)
            match = state.match
            assert match is not None
            if event.kind == "play" and match.is_round_over():  # as GameTable._play does
                seq += 1
                state.apply(Event(seq, "round-end", data={"round": match.round_index}))
                if match.is_over():
                    seq += 1
                    state.apply(Event(seq, "match-end", data={"winner": match.winner}))
                else:
                    state.rounds.append(RoundSecret.fresh((match.dealer + 1) % rules.players))
            check_moment(state)
            assert state.view_text(0) == whole_view(state, 0)  # asked again: the cached parts hold


def test_a_state_message_equals_its_whole_encoding() -> None:
    state = GameState("table", Rules.preset("greek"), [RoundSecret.fresh(0)])
    state.apply(Event(1, "round-start", data={"round": 0, "cut": ""}))
    match = state.match
    assert match is not None
    shown = state.apply(Event(2, "play", match.turn, str(match.legal_plays()[0])))
    table, deadline = {"id": "table", "seats": [{"name": "Ξένια"}]}, {"at": 1.5, "now": 1.0}
    moment = StateText(table, state, deadline)
    for seat in (None, 0, 1):
        whole = {"type": "state", "seq": 2, "table": table, "view": json.loads(whole_view(state, seat)),
                 "event": shown, "fairness": state.fairness(), "turn_deadline": deadline,
                 "history": state.history.to_json()}
        assert moment.message(2, shown, seat) == dumps(whole)
