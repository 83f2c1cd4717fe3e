"""Rated challenges and server-scheduled tournaments: a challenge is rated or casual; a rated
challenge's result counts in ``rating_history`` under its ``challenge_id`` (``table_id`` is then
empty) with each player's ``rank``; a refund's annulled challenges; each scheduled tournament
occurrence claimed once (server/schedule.py).

Revision ID: 0013
Revises: 0012

Two columns on ``challenges``, two on ``rating_history`` (whose ``table_id`` becomes nullable),
two new tables.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("challenges") as batch:
        batch.add_column(sa.Column("rated", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("rated_at", sa.Float, nullable=True))
    with op.batch_alter_table("rating_history") as batch:
        batch.alter_column("table_id", existing_type=sa.String(40), nullable=True)
        batch.add_column(sa.Column("challenge_id", sa.String(24), nullable=True))
        batch.add_column(sa.Column("rank", sa.Integer, nullable=True))
        batch.create_index("ix_rating_history_challenge", ["challenge_id"])
    op.create_table(
        "annulled_challenges",
        sa.Column("challenge_id", sa.String(24), primary_key=True),
        sa.Column("user_id", sa.String(24), nullable=False, index=True),
        sa.Column("action_id", sa.Integer, sa.ForeignKey("moderation_actions.id"), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        "scheduled_tournaments",
        sa.Column("occurrence", sa.String(120), primary_key=True),
        sa.Column("claimed", sa.Float, nullable=False),
        sa.Column("tournament_id", sa.String(24), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("scheduled_tournaments")
    op.drop_table("annulled_challenges")
    op.execute("DELETE FROM rating_history WHERE table_id IS NULL")
    with op.batch_alter_table("rating_history") as batch:
        batch.drop_index("ix_rating_history_challenge")
        batch.drop_column("rank")
        batch.drop_column("challenge_id")
        batch.alter_column("table_id", existing_type=sa.String(40), nullable=False)
    with op.batch_alter_table("challenges") as batch:
        batch.drop_column("rated_at")
        batch.drop_column("rated")
