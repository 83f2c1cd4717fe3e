"""kseri: the Greek card game Kseri (Ξερή) and its family, as a Python library.

>>> from kseri import Match, Rules
>>> match = Match(Rules.preset("greek"), seed=1)
>>> match.rules.target
151
"""

from kseri.cards import Card, CardError, CardSet, format_cards, parse_cards
from kseri.engine import (
    Deal,
    IllegalPlayError,
    Mark,
    Match,
    Phase,
    PublicPlay,
    RoundResult,
    ScoreItem,
    View,
)
from kseri.rules import PRESETS, CentreDeal, MajorityTie, Rules, RulesError, TargetRule

__version__ = "0.1.0"

__all__ = [
    "PRESETS", "Card", "CardError", "CardSet", "CentreDeal", "Deal", "IllegalPlayError",
    "MajorityTie", "Mark", "Match", "Phase", "PublicPlay", "RoundResult", "Rules",
    "RulesError", "ScoreItem", "TargetRule", "View", "format_cards", "parse_cards",
]
