"""Bots: the agent protocol, the levels from ``random`` to ``master``, and what they share."""

from kseri.agents.base import AGENTS, Agent, GreedyAgent, RandomAgent, capture_value, centre_cards, make_agent
from kseri.agents.expert import ExpertAgent
from kseri.agents.hints import hint
from kseri.agents.learned import LearnedAgent
from kseri.agents.master import MasterAgent

__all__ = [
    "AGENTS",
    "Agent",
    "ExpertAgent",
    "GreedyAgent",
    "LearnedAgent",
    "MasterAgent",
    "RandomAgent",
    "capture_value",
    "centre_cards",
    "hint",
    "make_agent",
]
