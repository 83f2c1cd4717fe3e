"""Tournaments' forfeits and their driver's lease (server/tournaments.py): a tournament's time
to show (``show_within``) and its round's start, which process drives it and until when; each
game's seats that came and its forfeit; an arena's end.

Revision ID: 0012
Revises: 0011

New nullable columns only.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tournaments", sa.Column("show_within", sa.Integer, nullable=True))
    op.add_column("tournaments", sa.Column("round_started", sa.Float, nullable=True))
    op.add_column("tournaments", sa.Column("driver", sa.String(40), nullable=True))
    op.add_column("tournaments", sa.Column("driver_until", sa.Float, nullable=True))
    op.add_column("tournaments", sa.Column("ends", sa.Float, nullable=True))
    op.add_column("tournament_games", sa.Column("came", sa.Integer, nullable=True))
    op.add_column("tournament_games", sa.Column("forfeit", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournament_games") as batch:
        batch.drop_column("forfeit")
        batch.drop_column("came")
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("ends")
        batch.drop_column("driver_until")
        batch.drop_column("driver")
        batch.drop_column("round_started")
        batch.drop_column("show_within")
