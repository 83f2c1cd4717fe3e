"""Games played offline against the computer and uploaded to a player's history
(server/players.py, ``offline_games``): unrated, marked offline.

Revision ID: 0010
Revises: 0009

One new table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "offline_games",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("user_id", sa.String(24), nullable=False, index=True),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.Column("uploaded", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("offline_games")
