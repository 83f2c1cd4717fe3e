"""Moderation: blocks between players, reports, sanctions in force, moderators, and the log of
every moderation action (who, when, why).

Revision ID: 0004
Revises: 0003

New tables only; existing rows are untouched (nobody is a moderator until granted).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "blocks",
        sa.Column("user_id", sa.String(24), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("blocked_id", sa.String(24), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_blocks_blocked", "blocks", ["blocked_id"])
    op.create_table(
        "reports",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("reporter_id", sa.String(24), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("reported_id", sa.String(24), sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), nullable=True),
        sa.Column("reason", sa.String(24), nullable=False),
        sa.Column("note", sa.String(280), nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("closed", sa.Float, nullable=True, index=True),
        sa.Column("closed_by", sa.String(24), nullable=True),
    )
    op.create_table(
        "moderators",
        sa.Column("user_id", sa.String(24), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("granted", sa.Float, nullable=False),
    )
    op.create_table(
        "moderation_actions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("moderator_id", sa.String(24), nullable=True),
        sa.Column("user_id", sa.String(24), nullable=True, index=True),
        sa.Column("action", sa.String(24), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("data", sa.Text, nullable=True),
    )
    op.create_table(
        "sanctions",
        sa.Column("user_id", sa.String(24), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("since", sa.Float, nullable=False),
        sa.Column("until", sa.Float, nullable=True),
        sa.Column("action_id", sa.Integer, sa.ForeignKey("moderation_actions.id"), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sanctions")
    op.drop_table("moderation_actions")
    op.drop_table("moderators")
    op.drop_table("reports")
    op.drop_index("ix_blocks_blocked", "blocks")
    op.drop_table("blocks")
