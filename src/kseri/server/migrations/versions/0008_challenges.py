"""Duplicate challenges (server/challenges.py): the challenges, their committed secrets and
deadlines, and each player's set of plays.

Revision ID: 0008
Revises: 0007

New tables only.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("rules", sa.String(20), nullable=False),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("author_id", sa.String(24), nullable=False, index=True),
        sa.Column("opponent_id", sa.String(24), nullable=True, index=True),
        sa.Column("invited", sa.Integer, nullable=False),
        sa.Column("answer", sa.String(10), nullable=True),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("deadline", sa.Float, nullable=False),
    )
    op.create_index("challenges_open", "challenges", ["invited", "answer", "deadline"])
    op.create_table(
        "challenge_runs",
        sa.Column("challenge_id", sa.String(24), primary_key=True),
        sa.Column("user_id", sa.String(24), primary_key=True),
        sa.Column("plays", sa.Text, nullable=False),
        sa.Column("finished", sa.Integer, nullable=False),
        sa.Column("results", sa.Text, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("challenge_runs")
    op.drop_index("challenges_open", "challenges")
    op.drop_table("challenges")
