"""The daily deal (server/daily.py): each day's committed secret per family, the attempts, and
the master's result per deal.

Revision ID: 0006
Revises: 0005

New tables only.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "daily_days",
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("rules", sa.String(20), primary_key=True),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
    )
    op.create_table(
        "daily_attempts",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("rules", sa.String(20), nullable=False),
        sa.Column("user_id", sa.String(24), nullable=True, index=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("ranked_user", sa.String(24), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("plays", sa.Text, nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False),
        sa.Column("results", sa.Text, nullable=True),
        sa.Column("started", sa.Float, nullable=False),
    )
    op.create_index("daily_one_ranked", "daily_attempts", ["day", "rules", "ranked_user"], unique=True)
    op.create_index("daily_by_day", "daily_attempts", ["day", "rules", "finished"])
    op.create_table(
        "daily_masters",
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("rules", sa.String(20), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("result", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("daily_masters")
    op.drop_index("daily_by_day", "daily_attempts")
    op.drop_index("daily_one_ranked", "daily_attempts")
    op.drop_table("daily_attempts")
    op.drop_table("daily_days")
