"""Blocks and bans for guests, address bans and the log of quick-game seeks
(server/moderation.py): the guest who took a seat (``seats.guest_id``), the guests an account
blocks, the guests and addresses banned, and each account's seeks with their outcome (the
seek-spam signal, docs/fairplay.md).

Revision ID: 0011
Revises: 0010

Three new tables, and one nullable column on ``seats``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("guest_id", sa.String(40), nullable=True))
    op.create_table(
        "guest_blocks",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(24), sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("guest_id", sa.String(40), nullable=False),
        sa.Column("name", sa.String(80), nullable=True),
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.UniqueConstraint("user_id", "guest_id", name="guest_blocks_once"),
    )
    op.create_table(
        "bans",
        sa.Column("kind", sa.String(8), primary_key=True),
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("since", sa.Float, nullable=False),
        sa.Column("until", sa.Float, nullable=True),
        sa.Column("action_id", sa.Integer, sa.ForeignKey("moderation_actions.id"), nullable=False),
    )
    op.create_table(
        "seek_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(24), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("outcome", sa.String(10), nullable=False),
    )
    op.create_index("seek_log_by_user", "seek_log", ["user_id", "at"])


def downgrade() -> None:
    op.drop_index("seek_log_by_user", "seek_log")
    op.drop_table("seek_log")
    op.drop_table("bans")
    op.drop_table("guest_blocks")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("guest_id")
