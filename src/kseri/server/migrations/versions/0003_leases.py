"""Cluster: each live table's lease (its owning process and fencing number) and its turn's start.

Revision ID: 0003
Revises: 0002

A new table only; a single-process server never writes it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "leases",
        sa.Column("table_id", sa.String(40), primary_key=True),
        sa.Column("owner", sa.String(40), nullable=True, index=True),
        sa.Column("fence", sa.BigInteger, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("turn_started", sa.Float, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("leases")
