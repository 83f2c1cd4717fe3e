"""The memory trainer's drill standings (server/api/trainer.py, ``trainer_scores``): a signed-in
player's positions answered, credit and best runs, per moment of the round.

Revision ID: 0014
Revises: 0013

One new table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "trainer_scores",
        sa.Column("user_id", sa.String(24), primary_key=True),
        sa.Column("moment", sa.String(8), primary_key=True),
        sa.Column("positions", sa.Integer, nullable=False),
        sa.Column("credit", sa.Float, nullable=False),
        sa.Column("questions", sa.Integer, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("best_streak", sa.Integer, nullable=False),
        sa.Column("best_position", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("trainer_scores")
