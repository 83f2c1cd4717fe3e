"""Players: accounts and their sessions, seats held by accounts, rated tables, ratings, analyses.

Revision ID: 0002
Revises: 0001

Upgrades a database with games in place: the new columns are nullable or have a default, the
existing rows keep their values (every old seat is a guest's, every old table unrated).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("username", sa.String(40), nullable=False),
        sa.Column("username_key", sa.String(80), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(24), sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.String(24), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("family", sa.String(40), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False, index=True),
    )
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(24), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("family", sa.String(40), nullable=False),
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
    )
    op.create_index("ix_rating_history_user", "rating_history", ["user_id", "family"])
    op.create_table(
        "analyses",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("data", sa.Text, nullable=False),
    )
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("user_id", sa.String(24), nullable=True))
        batch.create_index("ix_seats_user_id", ["user_id"])
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("rated")
    with op.batch_alter_table("seats") as batch:
        batch.drop_index("ix_seats_user_id")
        batch.drop_column("user_id")
    op.drop_table("analyses")
    op.drop_index("ix_rating_history_user", "rating_history")
    op.drop_table("rating_history")
    op.drop_table("ratings")
    op.drop_table("sessions")
    op.drop_table("users")
