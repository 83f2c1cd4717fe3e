"""Bots: the agent protocol, the levels from ``random`` to ``master``, and what they share."""

from kseri.agents.base import (
    AGENTS,
    STRENGTH_DIALS,
    STYLES,
    Agent,
    GreedyAgent,
    RandomAgent,
    capture_value,
    centre_cards,
    make_agent,
)
from kseri.agents.expert import ExpertAgent
from kseri.agents.hints import hint
from kseri.agents.ladder import LADDER, RUNGS
from kseri.agents.learned import LearnedAgent
from kseri.agents.master import MasterAgent
from kseri.agents.strength import dialled_master
from kseri.agents.styles import DefensiveAgent, PistiHunterAgent
from kseri.agents.tempered import Tempered

__all__ = [
    "AGENTS",
    "LADDER",
    "RUNGS",
    "STRENGTH_DIALS",
    "STYLES",
    "Agent",
    "DefensiveAgent",
    "ExpertAgent",
    "GreedyAgent",
    "LearnedAgent",
    "MasterAgent",
    "PistiHunterAgent",
    "RandomAgent",
    "Tempered",
    "capture_value",
    "centre_cards",
    "dialled_master",
    "hint",
    "make_agent",
]
