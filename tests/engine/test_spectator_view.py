"""The spectator's view is made by the engine: what every seat sees alike, and nothing more."""

from __future__ import annotations

import dataclasses

import pytest

from kseri import Match, Rules
from kseri.engine import Phase, SpectatorView
from kseri.views import view_to_json

PRIVATE = ("seat", "hand", "face_down_seen")
PUBLIC = [f.name for f in dataclasses.fields(SpectatorView) if f.name not in PRIVATE]


def _moments(preset: str, seed: int) -> list[Match]:
    """Copies of a match after each play of a whole match."""
    match = Match(Rules.preset(preset), seed=seed)
    moments = [match.copy()]
    while match.phase is not Phase.MATCH_OVER:
        if match.phase is Phase.ROUND_OVER:
            match.next_round()
        else:
            match.play(match.view(match.turn or 0).hand[0])
        moments.append(match.copy())
    return moments


@pytest.mark.parametrize("preset", ["greek", "pisti", "partnership"])
def test_a_spectator_sees_what_every_seat_sees_alike_and_no_hand(preset: str) -> None:
    for moment in _moments(preset, seed=11)[::7]:
        spectator = moment.spectator_view()
        assert spectator.seat is None and spectator.side is None
        assert spectator.hand == () and spectator.face_down_seen == () and spectator.legal_plays() == ()
        for seat in range(moment.rules.players):
            view = moment.view(seat)
            for name in PUBLIC:
                assert getattr(spectator, name) == getattr(view, name), name


def test_a_spectator_never_sees_the_face_down_cards_even_once_captured() -> None:
    seen = False
    for moment in _moments("pisti", seed=3):
        if any(moment.view(seat).face_down_seen for seat in range(moment.rules.players)):
            seen = True
            assert moment.spectator_view().face_down_seen == ()
            assert None in moment.spectator_view().centre_dealt
    assert seen


def test_the_spectator_view_as_json_is_a_seat_view_with_the_private_parts_blanked() -> None:
    """The shape the server sends spectators (and always has)."""
    for moment in _moments("greek", seed=5)[::9]:
        data = view_to_json(moment.view(0))
        data.update(seat=None, side=None, hand=[], face_down_seen=[])
        assert view_to_json(moment.spectator_view()) == data
        assert list(view_to_json(moment.spectator_view())) == list(data)
