"""The first schema: tables, seats, rounds (fairness secrets) and the event log.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("casual", sa.Boolean, nullable=False),
        sa.Column("public", sa.Boolean, nullable=False),
        sa.Column("clock", sa.Integer, nullable=True),
        sa.Column("first_dealer", sa.Integer, nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False),
        sa.Column("rematch_of", sa.String(40), nullable=True),
        sa.Column("rematch", sa.String(40), nullable=True),
    )
    op.create_index("ix_tables_finished", "tables", ["finished"])
    op.create_table(
        "seats",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("level", sa.String(40), nullable=True),
        sa.Column("name", sa.String(80), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
    )
    op.create_table(
        "rounds",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("dealer", sa.Integer, nullable=False),
    )
    op.create_table(
        "events",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("card", sa.String(4), nullable=True),
        sa.Column("data", sa.Text, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("events")
    op.drop_table("rounds")
    op.drop_table("seats")
    op.drop_index("ix_tables_finished", "tables")
    op.drop_table("tables")
