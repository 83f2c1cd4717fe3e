"""Pass and play: several people at one device. The device's one connection holds every
person's seat (``hello`` with their ``tokens``), so each counts as connected while it is open,
and it is sent one seat's view at a time: none while the device is handed over, the seat to play
once its player has taken it (``show``). A ``ready`` from it readies every seat it holds; a
``play`` acts for the seat shown. ``docs/protocol.md``, Pass and play.
"""

from __future__ import annotations

import hmac

from kseri.server.audience import Connection
from kseri.server.protocol import ProtocolError
from kseri.server.seats import SeatState, hash_token


def held_seats(seats: list[SeatState], tokens: list[str]) -> tuple[int, ...]:
    """The seats these tokens hold, in order; ``bad-token`` when one holds none."""
    held: list[int] = []
    for number, token in enumerate(tokens):
        digest = hash_token(token)
        seat = next((index for index, state in enumerate(seats)
                     if state.token_hash is not None and hmac.compare_digest(state.token_hash, digest)), None)
        if seat is None:
            raise ProtocolError("bad-token", f"token {number + 1} of {len(tokens)} holds no seat here")
        if seat not in held:
            held.append(seat)
    return tuple(held)


def show(connection: Connection, seat: int | None) -> None:
    """Have ``connection`` sent ``seat``'s view from now on (``None``: no hand at all);
    ``not-seated`` unless it holds that seat."""
    if not connection.held:
        raise ProtocolError("not-seated", "show is for a pass-and-play connection (hello with tokens)")
    if seat is not None and seat not in connection.held:
        raise ProtocolError("not-seated", f"this connection does not hold seat {seat}")
    connection.seat = seat
