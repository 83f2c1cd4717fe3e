"""Tournaments for people (server/tournaments.py): the tournaments, their entrants and their
games round by round; a table's deal key (a tournament round deals the same cards everywhere).

Revision ID: 0009
Revises: 0008

New tables, and one nullable column on ``tables``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("deals", sa.String(64), nullable=True))
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("organiser", sa.String(24), nullable=False, index=True),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("format", sa.String(12), nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("clock", sa.Integer, nullable=True),
        sa.Column("public", sa.Boolean, nullable=False),
        sa.Column("starts", sa.Float, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("status", sa.String(10), nullable=False, index=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
    )
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.String(24), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("user_id", sa.String(24), primary_key=True),
        sa.Column("username", sa.String(80), nullable=False),
        sa.Column("joined", sa.Float, nullable=False),
        sa.Column("withdrawn", sa.Integer, nullable=True),
    )
    op.create_index("tournament_players_by_user", "tournament_players", ["user_id"])
    op.create_table(
        "tournament_games",
        sa.Column("tournament_id", sa.String(24), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("board", sa.Integer, primary_key=True),
        sa.Column("first", sa.String(24), nullable=False),
        sa.Column("second", sa.String(24), nullable=True),
        sa.Column("table_id", sa.String(40), nullable=True),
        sa.Column("score", sa.Float, nullable=True),
        sa.Column("points", sa.Text, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("tournament_games")
    op.drop_index("tournament_players_by_user", "tournament_players")
    op.drop_table("tournament_players")
    op.drop_table("tournaments")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("deals")
