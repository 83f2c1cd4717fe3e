"""The finished games whose clear positions were cut into puzzles in the background
(server/puzzles.py, ``puzzle_cuts``): each game once, a restart resumes.

Revision ID: 0015
Revises: 0014

One new table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzle_cuts",
        sa.Column("table_id", sa.String(40), primary_key=True),
        sa.Column("found", sa.Integer, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("puzzle_cuts")
