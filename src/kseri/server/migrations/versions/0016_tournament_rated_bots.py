"""Rated tournaments and a bot for the odd one out (server/tournaments.py): whether a
tournament's tables are rated, and the bot level that plays the player who would get a bye
(``None``: the bye as before).

Revision ID: 0016
Revises: 0015

New columns only (``rated`` false for the tournaments already stored).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tournaments", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("tournaments", sa.Column("bot", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("bot")
        batch.drop_column("rated")
