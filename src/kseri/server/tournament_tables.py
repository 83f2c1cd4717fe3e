"""The tournament room's tables (migrations 0009, 0012 and 0016): each tournament, its
entrants, and each round's games with their tables and results."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Float, ForeignKey, Index, Integer, String, Table, Text

from kseri.server import db

tournaments = Table(
    "tournaments", db.metadata,
    Column("id", String(24), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("organiser", String(24), nullable=False, index=True),
    Column("rules", Text, nullable=False),
    Column("format", String(12), nullable=False),
    Column("rounds", Integer, nullable=False),
    Column("clock", Integer, nullable=True),
    Column("public", Boolean, nullable=False),
    Column("starts", Float, nullable=False),
    Column("created", Float, nullable=False),
    Column("status", String(10), nullable=False, index=True),  # open, playing, finished, cancelled
    Column("round", Integer, nullable=False),  # the round under way (0 before the start)
    Column("secret", String(64), nullable=False),
    Column("commitment", String(64), nullable=False),
    Column("show_within", Integer, nullable=True),  # seconds to come to a round's table; None: no forfeits
    Column("round_started", Float, nullable=True),  # when the round under way was paired (the clock's)
    Column("driver", String(40), nullable=True),  # the process driving it (a cluster's lease)
    Column("driver_until", Float, nullable=True),  # until when, unless it renews
    Column("ends", Float, nullable=True),  # an arena's end (the clock's); None before its start
    Column("rated", Boolean, nullable=False, default=False),  # its tables rated like quick pairing's
    Column("bot", String(16), nullable=True),  # the bot level playing whoever would get a bye; None: a bye
)
entrants = Table(
    "tournament_players", db.metadata,
    Column("tournament_id", String(24), ForeignKey("tournaments.id"), primary_key=True),
    Column("user_id", String(24), primary_key=True),
    Column("username", String(80), nullable=False),
    Column("joined", Float, nullable=False),
    Column("withdrawn", Integer, nullable=True),  # the round after which they withdrew
    Index("tournament_players_by_user", "user_id"),
)
games = Table(
    "tournament_games", db.metadata,
    Column("tournament_id", String(24), ForeignKey("tournaments.id"), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("board", Integer, primary_key=True),
    Column("first", String(24), nullable=False),
    Column("second", String(24), nullable=True),  # None: a bye
    Column("table_id", String(40), nullable=True),
    Column("score", Float, nullable=True),  # first's: 1, ½, 0; None until the table finishes
    Column("points", Text, nullable=True),  # the match's totals [first, second] (JSON)
    Column("came", Integer, nullable=True),  # the seats seen at the table: 1 first, 2 second
    Column("forfeit", String(8), nullable=True),  # first, second, both (did not come), closed
)


__all__ = ["entrants", "games", "tournaments"]
