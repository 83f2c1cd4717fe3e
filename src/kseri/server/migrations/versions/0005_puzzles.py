"""Puzzles: the server's puzzles (the shipped starting set, and those cut from finished games),
each player's puzzle rating and streak, and every attempt (``server/puzzles.py``).

Revision ID: 0005
Revises: 0004

New tables only.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.String(12), primary_key=True),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("origin", sa.String(12), nullable=False),
        sa.Column("owner", sa.String(24), nullable=True, index=True),
        sa.Column("table_id", sa.String(40), nullable=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "puzzle_ratings",
        sa.Column("user_id", sa.String(24), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("failed", sa.Integer, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("best_streak", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(24), nullable=False, index=True),
        sa.Column("puzzle_id", sa.String(12), nullable=False),
        sa.Column("card", sa.String(4), nullable=False),
        sa.Column("solved", sa.Boolean, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_ratings")
    op.drop_table("puzzles")
