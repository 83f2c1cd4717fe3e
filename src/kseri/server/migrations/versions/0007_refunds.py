"""Rating refunds: the rated games annulled when a player is banned for unfair play, and each
opponent's rating change given back (``server/refunds.py``).

Revision ID: 0007
Revises: 0006

New tables only.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "annulled_games",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("user_id", sa.String(24), nullable=False, index=True),
        sa.Column("action_id", sa.Integer, sa.ForeignKey("moderation_actions.id"), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        "rating_refunds",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(24), sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("family", sa.String(40), nullable=False),
        sa.Column("change", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("action_id", sa.Integer, sa.ForeignKey("moderation_actions.id"), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rating_refunds")
    op.drop_table("annulled_games")
