"""Ending a match early. Resigning: the player's side gives up, the match ends at once (the
engine's :meth:`~kseri.engine.Match.resign`), everyone is told, and the record says who
resigned. Closing: a moderator ends a match under way (:func:`close`), nobody wins.

The table's log gets a ``resign`` event (the seat) followed by ``match-end``, committed together
like a play that ends the match, so a restart replays the resignation. A rated match resigned is
rated like one abandoned (``docs/players.md``).
"""

from __future__ import annotations

from kseri.server import db
from kseri.server.room import GameTable


class ResignRefused(LookupError):
    """Nothing to resign: the match has not begun or is over."""


async def resign(table: GameTable, seat: int) -> None:
    """End ``table``'s match because ``seat`` resigns; raises :class:`ResignRefused` when no
    match is being played."""
    async with table.lock:
        state = table.state
        match = state.match
        if match is None or state.status == "finished":
            raise ResignRefused("the match is over" if match else "the first round has not been dealt")
        event = table.log.next("resign", seat)
        applied = [(event, state.apply(event))]
        applied.append(table.log.derived("match-end", {"winner": match.winner}))
        batch = db.Batch()
        batch.updates.append(db.set_table(table.id, finished=True))
        await table.settle(applied, batch)
    table.tell_finished()  # a rated match is rated as played (an abort when a seat never played)


async def close(table: GameTable, why: str) -> None:
    """End ``table``'s match under way because a moderator closes the table, saying ``why`` (the
    moderator's reason, which the players see): a ``match-end`` event with ``"winner": null,
    "closed": why`` tells every connection, marks the stored log (the record stays incomplete,
    nobody won) and, through the end-of-match path a resignation takes, leaves a rated match
    unrated for everyone (``closed``). Raises :class:`ResignRefused` when no match is played."""
    async with table.lock:
        state = table.state
        if state.status != "playing":
            raise ResignRefused("the match is over" if state.match else "the first round has not been dealt")
        event = table.log.next("match-end", None, data={"winner": None, "closed": why})
        batch = db.Batch()
        batch.updates.append(db.set_table(table.id, finished=True))
        await table.settle([(event, state.apply(event))], batch)
    table.tell_finished()
