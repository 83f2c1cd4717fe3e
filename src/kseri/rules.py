"""Rule sets: one frozen :class:`Rules` object holding every option, and the named presets.

The Greek two-player game (``greek``) is the default. Other guides' rules are presets, and any
preset takes overrides in one call or one spec string:

>>> Rules.preset("greek", jack_kseri=25).jack_kseri
25
>>> Rules.from_spec("greek,jack_kseri=25,target=101").target
101
>>> Rules(players=5)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kseri.rules.RulesError: the stock of 48 cards ... (5 players need decks=2)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final

from kseri.cards import ALL_CARDS, CARDS_PER_DECK, RANK_ALIASES, RANK_NAMES, Card, CardError


class RulesError(ValueError):
    """Raised for an impossible or unknown rule set; the message says why and ``option`` names
    the option at fault (``None`` when the fault is the combination or an unknown preset)."""

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


class CentreDeal(StrEnum):
    """How the centre pile is laid at the start of a round."""

    REDEAL = "redeal"
    """Greek: all face up; while the top is a Jack or the top two share a rank, shuffle them
    back into the stock and lay the pile again."""
    REPLACE_JACKS = "replace-jacks"
    """Guide 003: all face up; each Jack goes into the middle of the stock and is replaced."""
    PISTI = "pisti"
    """Pisti: all face down but the top; a Jack turned up goes into the middle of the stock and
    another card is turned. The bottom card of the stock is shown to everyone."""


class TargetRule(StrEnum):
    """What happens when several sides reach the target after the same round."""

    ESCALATE = "escalate"
    """Greek: the target rises by ``escalation`` (151, 251, 351, ...) and play goes on."""
    HIGHER_WINS = "higher-wins"
    """Guide 003: the higher total wins; a tie at the top plays another deal."""


class MajorityTie(StrEnum):
    """Who gets the majority bonus when several sides captured the most cards."""

    NOBODY = "nobody"
    EVERY_TIED_SIDE = "every-tied-side"


GREEK_POINTS: Final = (("A", 1), ("K", 1), ("Q", 1), ("J", 1), ("T", 1), ("TD", 1), ("2C", 1))
"""Greek card points: each A K Q J 10 one, the 10♦ one more (two in all), the 2♣ one."""
CLASSIC_POINTS: Final = (("TD", 2), ("2C", 2), ("A", 1), ("J", 1))
"""Guide 003: 10♦ 2, 2♣ 2, each Ace 1, each Jack 1."""
PISTI_POINTS: Final = (("TD", 3), ("2C", 2), ("A", 1), ("J", 1))
"""Turkish Pisti: 10♦ 3, 2♣ 2, each Ace 1, each Jack 1."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of a rule set. The defaults are the Greek two-player game.

    Construction validates the combination and raises :class:`RulesError` with the reason.
    """

    name: str = "greek"
    """The preset these rules started from (informational)."""
    players: int = 2
    """Seats at the table, 2 to 6."""
    partnerships: bool = False
    """Seats opposite each other form a side (seats 0 and 2 against 1 and 3) and pool captures."""
    decks: int = 1
    """52-card decks shuffled together (2 for Faro)."""
    batch_size: int = 6
    """Cards dealt to each player per batch."""
    centre_deal: CentreDeal = CentreDeal.REDEAL
    """How the centre pile is laid."""
    centre_size: int = 4
    """Cards in the centre pile at the deal."""
    kseri_value: int = 10
    """Points for capturing a lone card with a card of the same rank."""
    jack_kseri: int | None = 20
    """Points for a Jack capturing a lone Jack (``None``: no kseri, an ordinary capture)."""
    kseri_on_last_card: bool = True
    """Whether a kseri on the round's very last play counts."""
    double_kseri: int | None = None
    """Guide 003's double kseri: a kseri on the lone card led right after a kseri scores this
    instead of ``kseri_value`` (``None``: off). Not the Turkish "double pisti" (see
    ``jack_kseri``)."""
    jacks_capture_all: bool = True
    """Whether a Jack captures any non-empty pile (off in the children's game)."""
    card_points: tuple[tuple[str, int], ...] = GREEK_POINTS
    """Points per captured card: entries name a rank (``A``, ``T``) or a card (``TD``); a card
    scores the sum of the entries it matches."""
    majority_bonus: int = 3
    """Points for the side that captured the most cards."""
    majority_tie: MajorityTie = MajorityTie.NOBODY
    """Who gets the majority bonus on a tie."""
    jacks_table_bonus: int = 0
    """House rule: points for capturing a pile made only of Jacks."""
    last_capture_bonus: int = 0
    """House rule: points for the side that made the round's last capture."""
    two_clubs_match_bonus: int = 0
    """Turkish variation: points for capturing the 2♣ with another two."""
    target: int = 151
    """Match target."""
    target_rule: TargetRule = TargetRule.ESCALATE
    """What happens when several sides reach the target after one round."""
    escalation: int = 100
    """How much the target rises under ``TargetRule.ESCALATE``."""
    points_table: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """Derived: points of each card number, from ``card_points``."""

    def __post_init__(self) -> None:
        _validate(self)
        object.__setattr__(self, "points_table", _points_table(self.card_points, self.decks))
        _check_match_ends(self)

    @property
    def sides(self) -> int:
        """Number of scoring sides (teams or single players)."""
        return self.players // 2 if self.partnerships else self.players

    def side_of(self, seat: int) -> int:
        """The side a seat scores for."""
        return seat % self.sides

    @property
    def deck_size(self) -> int:
        """Cards in play."""
        return CARDS_PER_DECK * self.decks

    @property
    def batches(self) -> int:
        """Batches dealt in a round."""
        return (self.deck_size - self.centre_size) // (self.players * self.batch_size)

    @classmethod
    def preset(cls, name: str, /, **overrides: Any) -> Rules:
        """A named preset, with options overridden; unknown names are refused."""
        try:
            base = PRESETS[name]
        except KeyError:
            raise RulesError(
                f"unknown preset {name!r}; the presets are: {', '.join(PRESETS)}"
            ) from None
        return base.replace(**overrides) if overrides else base

    @classmethod
    def from_spec(cls, spec: str) -> Rules:
        """Parse ``preset[,option=value...]``, e.g. ``greek,jack_kseri=25``.

        Values: integers, ``true``/``false``, ``none``, enum values, and card points as
        ``TD:2/2C:2/A:1``.
        """
        name, *assignments = [part.strip() for part in spec.split(",") if part.strip()] or [""]
        overrides: dict[str, Any] = {}
        for assignment in assignments:
            key, sep, value = assignment.partition("=")
            if not sep:
                raise RulesError(f"option {assignment!r} needs a value, as in jack_kseri=25")
            overrides[key.strip().replace("-", "_")] = value.strip()
        return cls.preset(name, **{k: _coerce(k, v) for k, v in overrides.items()})

    def replace(self, **overrides: Any) -> Rules:
        """A copy with some options changed (validated again)."""
        for key in overrides:
            if key not in OPTION_NAMES:
                raise _unknown_option(key)
        values = {k: _coerce(k, v) if isinstance(v, str) else v for k, v in overrides.items()}
        return dataclasses.replace(self, **values)

    def options(self) -> dict[str, Any]:
        """Every option as JSON-ready values (the inverse of ``Rules(**options)``)."""
        result: dict[str, Any] = {}
        for name in OPTION_NAMES:
            value = getattr(self, name)
            if name == "card_points":
                value = [list(entry) for entry in value]
            elif isinstance(value, StrEnum):
                value = value.value
            result[name] = value
        return result

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> Rules:
        """Rebuild rules from :meth:`options` output."""
        unknown = set(options) - set(OPTION_NAMES)
        if unknown:
            raise _unknown_option(sorted(unknown)[0])
        values = dict(options)
        if "card_points" in values:
            values["card_points"] = _card_points_entries(values["card_points"])
        for name, enum in (("centre_deal", CentreDeal), ("target_rule", TargetRule),
                           ("majority_tie", MajorityTie)):
            if name in values:
                values[name] = _enum(name, enum, values[name])
        return cls(**values)


OPTION_NAMES: Final = tuple(f.name for f in dataclasses.fields(Rules) if f.init)
"""The option names, in declaration order."""

OPTION_RANGES: Final = MappingProxyType({
    "players": (2, 6),
    "decks": (1, 2),
    "batch_size": (1, 26),
    "centre_size": (1, 8),
    "kseri_value": (0, 100),
    "jack_kseri": (0, 100),
    "double_kseri": (0, 100),
    "card_points": (0, 100),
    "majority_bonus": (0, 100),
    "jacks_table_bonus": (0, 100),
    "last_capture_bonus": (0, 100),
    "two_clubs_match_bonus": (0, 100),
    "target": (1, 10_000),
    "escalation": (1, 10_000),
})
"""The whole numbers each numeric option may take, inclusive (for ``card_points``: each
entry's points). Wider values make no game anyone plays, and bounded values keep every
computation on them small."""

MAX_NAME_LENGTH: Final = 40
"""The longest rule-set ``name``."""
MIN_STOCK_AFTER_FIRST_BATCH: Final = 16
"""The fewest cards the stock may hold once the first batch and the centre are dealt: enough
that a Greek redeal or a Jack sent back into the stock always finds other cards (there are at
most 8 Jacks, and at most 8 cards of any rank)."""
MAX_CARD_POINTS_ENTRIES: Final = 64
"""The most entries ``card_points`` may have."""
MAX_ROUNDS_TO_TARGET: Final = 100
"""The target and the escalation may each be at most this many times the points a round puts
in play (its card points and majority bonus), so that every match ends after a bounded number
of rounds."""

_OPTION_TYPES: Final = {f.name: f.type for f in dataclasses.fields(Rules)}


def _unknown_option(name: str) -> RulesError:
    shown = name[:60]
    return RulesError(f"unknown option {shown!r}; the options are: {', '.join(OPTION_NAMES)}", shown)


def _enum(name: str, enum: type[StrEnum], value: object) -> Any:
    try:
        return enum(value if isinstance(value, str) else "")
    except ValueError:
        raise RulesError(
            f"{name} must be one of {', '.join(e.value for e in enum)}, not {value!r:.60}", name
        ) from None


def _coerce(name: str, text: str) -> Any:
    """Turn an option's text value into its typed value."""
    if name not in _OPTION_TYPES or name == "points_table":
        raise _unknown_option(name)
    kind = str(_OPTION_TYPES[name])
    lowered = text.lower()
    if name == "card_points":
        entries = []
        for entry in text.replace(";", "/").split("/"):
            key, _, points = entry.partition(":")
            if not points.strip().lstrip("-").isdigit():
                raise RulesError(f"card_points entries look like TD:2, not {entry!r:.60}", name)
            entries.append((key.strip().upper(), int(points)))
        return tuple(entries)
    if kind == "bool":
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise RulesError(f"{name} must be true or false, not {text!r:.60}", name)
    if "None" in kind and lowered in ("none", "off", "no", "null"):
        return None
    if kind.startswith("int"):
        try:
            return int(text)
        except ValueError:
            raise RulesError(f"{name} must be a whole number, not {text!r:.60}", name) from None
    for enum in (CentreDeal, TargetRule, MajorityTie):
        if kind == enum.__name__:
            return _enum(name, enum, lowered)
    return text


def _points_table(card_points: tuple[tuple[str, int], ...], decks: int) -> tuple[int, ...]:
    table = [0] * CARDS_PER_DECK
    for key, points in card_points:
        if key.upper() in RANK_ALIASES:
            rank = RANK_ALIASES[key.upper()]
            for suit in range(4):
                table[rank * 4 + suit] += points
        else:
            try:
                table[Card(key)] += points
            except CardError:
                raise RulesError(
                    f"card_points entry {key!r} is neither a rank ({' '.join(RANK_NAMES)}) "
                    "nor a card (like TD)", "card_points"
                ) from None
    return tuple(table[card % CARDS_PER_DECK] for card in ALL_CARDS[: CARDS_PER_DECK * decks])


def _card_points_entries(value: object) -> tuple[tuple[str, int], ...]:
    """``card_points`` from JSON: a list of ``[key, points]`` pairs, checked strictly."""
    if not isinstance(value, list | tuple):
        raise RulesError(f"card_points must be a list of [card or rank, points] pairs, not {value!r:.60}",
                         "card_points")
    entries = []
    for entry in value:
        if not (isinstance(entry, list | tuple) and len(entry) == 2 and isinstance(entry[0], str)):
            raise RulesError(f"card_points entries are [card or rank, points] pairs, not {entry!r:.60}",
                             "card_points")
        entries.append((entry[0], entry[1]))
    return tuple(entries)


def _check_types(rules: Rules) -> None:
    """Each option holds a value of its declared type (no floats or booleans for numbers),
    within :data:`OPTION_RANGES`."""
    for name in OPTION_NAMES:
        value = getattr(rules, name)
        kind = str(_OPTION_TYPES[name])
        if name == "name":
            if not (isinstance(value, str) and 1 <= len(value) <= MAX_NAME_LENGTH and value.isprintable()):
                raise RulesError(
                    f"name must be 1 to {MAX_NAME_LENGTH} printable characters, not {value!r:.60}", name)
        elif kind == "bool":
            if type(value) is not bool:
                raise RulesError(f"{name} must be true or false, not {value!r:.60}", name)
        elif kind.startswith("int"):
            if value is None and "None" in kind:
                continue
            low, high = OPTION_RANGES[name]
            if type(value) is not int:
                raise RulesError(f"{name} must be a whole number, not {value!r:.60}", name)
            if not low <= value <= high:
                off = " (or none to switch it off)" if "None" in kind else ""
                raise RulesError(f"{name} must be {low} to {high}{off}, not {value}", name)
    entries = rules.card_points
    if not isinstance(entries, tuple) or len(entries) > MAX_CARD_POINTS_ENTRIES:
        raise RulesError(f"card_points must be a tuple of at most {MAX_CARD_POINTS_ENTRIES} entries",
                         "card_points")
    low, high = OPTION_RANGES["card_points"]
    for entry in entries:
        if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str)
                and len(entry[0]) <= 3 and type(entry[1]) is int):
            raise RulesError(f"card_points entries are (card or rank, whole number) pairs, not {entry!r:.60}",
                             "card_points")
        if not low <= entry[1] <= high:
            raise RulesError(f"card_points entry {entry[0]!r} must be worth {low} to {high} points, "
                             f"not {entry[1]}", "card_points")


def _validate(rules: Rules) -> None:
    _check_types(rules)
    if not 2 <= rules.players <= 6:
        raise RulesError(f"players must be 2 to 6, not {rules.players}", "players")
    if rules.partnerships and (rules.players % 2 or rules.players < 4):
        raise RulesError(f"partnerships need 4 or 6 players, not {rules.players}", "partnerships")
    minimum = 2 if rules.centre_deal is CentreDeal.PISTI else 1
    if not minimum <= rules.centre_size <= 8:
        raise RulesError(
            f"centre_size must be {minimum} to 8 with {rules.centre_deal}, not {rules.centre_size}",
            "centre_size")
    stock = CARDS_PER_DECK * rules.decks - rules.centre_size
    per_batch = rules.players * rules.batch_size
    if stock % per_batch:
        hint = " (5 players need decks=2)" if rules.players == 5 and rules.decks == 1 else ""
        raise RulesError(
            f"the stock of {stock} cards ({CARDS_PER_DECK * rules.decks} in {rules.decks} "
            f"deck{'s' if rules.decks > 1 else ''} less {rules.centre_size} in the centre) cannot "
            f"be dealt in equal batches of {rules.batch_size} cards to {rules.players} players "
            f"({per_batch} a batch); change batch_size, players or decks{hint}")
    if stock - per_batch < MIN_STOCK_AFTER_FIRST_BATCH:
        raise RulesError(
            f"one batch of {rules.batch_size} cards to {rules.players} players leaves {stock - per_batch} "
            f"cards in the stock; the centre procedures need at least {MIN_STOCK_AFTER_FIRST_BATCH} "
            "(deal smaller batches)", "batch_size")
    for name, enum in (("centre_deal", CentreDeal), ("target_rule", TargetRule),
                       ("majority_tie", MajorityTie)):
        if not isinstance(getattr(rules, name), enum):
            raise RulesError(f"{name} must be a {enum.__name__}, not {getattr(rules, name)!r:.60}", name)


def _check_match_ends(rules: Rules) -> None:
    """Refuse rules under which a match could go on without end: a round must put points in
    play, and the target must be within :data:`MAX_ROUNDS_TO_TARGET` rounds' worth of them."""
    in_play = sum(rules.points_table) + rules.majority_bonus
    if in_play < 1:
        raise RulesError("no round could score: give some card points or a majority bonus", "card_points")
    for name in ("target", "escalation"):
        if getattr(rules, name) > MAX_ROUNDS_TO_TARGET * in_play:
            raise RulesError(
                f"{name} {getattr(rules, name)} is out of reach: a round puts {in_play} points in play "
                f"(card points and majority), so the {name} may be at most {MAX_ROUNDS_TO_TARGET * in_play}",
                name)


def match_winner(rules: Rules, totals: Sequence[float], target: int) -> tuple[int | None, int]:
    """Who has won the match at these ``totals`` (``None``: play goes on), and the target from
    now on, by the target rule. Under the Greek escalation the target rises by ``escalation``
    as many times as it takes to leave at most one side at or above it, in one step:

    >>> greek = Rules()
    >>> match_winner(greek, (152, 140), 151)
    (0, 151)
    >>> match_winner(greek, (260, 252), 151)  # both past 151 and 251: the match goes to 351
    (None, 351)
    >>> match_winner(greek, (305, 240), 151)  # both past 151: 251, which only side 0 reaches
    (0, 251)
    >>> match_winner(Rules.preset("pisti"), (160, 160), 151)  # a tie at the top: another deal
    (None, 151)
    """
    reached = [side for side, total in enumerate(totals) if total >= target]
    if len(reached) < 2:
        return (reached[0] if reached else None), target
    ordered = sorted((totals[side] for side in reached), reverse=True)
    if rules.target_rule is TargetRule.ESCALATE:
        escalation = rules.escalation
        target += escalation * (math.floor((ordered[1] - target) / escalation) + 1)
        top = max(reached, key=totals.__getitem__)
        return (top if totals[top] >= target else None), target
    if ordered[0] == ordered[1]:
        return None, target
    return max(reached, key=totals.__getitem__), target


_CLASSIC = Rules(
    name="classic",
    batch_size=4,
    centre_deal=CentreDeal.REPLACE_JACKS,
    jack_kseri=None,
    double_kseri=20,
    card_points=CLASSIC_POINTS,
    target=101,
    target_rule=TargetRule.HIGHER_WINS,
)

PRESETS: Final = MappingProxyType(
    {
        "greek": Rules(),
        "classic": _CLASSIC,
        "pisti": Rules(
            name="pisti",
            batch_size=4,
            centre_deal=CentreDeal.PISTI,
            kseri_on_last_card=False,
            card_points=PISTI_POINTS,
            target_rule=TargetRule.HIGHER_WINS,
        ),
        "partnership": dataclasses.replace(_CLASSIC, name="partnership", players=4, partnerships=True),
        "three-player": dataclasses.replace(_CLASSIC, name="three-player", players=3),
        "faro": dataclasses.replace(_CLASSIC, name="faro", players=5, decks=2),
        "children": Rules(name="children", jacks_capture_all=False),
    }
)
"""The named presets, by name."""

PRESET_SOURCES: Final = MappingProxyType(
    {
        "greek": "the Greek guide (000/002/004): two players, 6-card batches, 151 with +100 escalation",
        "classic": "Classic, from guide 003: two players, 4-card batches, Jacks replaced, no jack kseri, "
        "double kseri, 101",
        "pisti": "Pisti as pagat and the Turkish sources describe it: 3 face-down centre cards, pisti 10, "
        "a Jack on a lone Jack 20, no pisti on the last card, 10♦ 3",
        "partnership": "the partnership variant of Classic (guide 003): 4 players, two sides of two",
        "three-player": "Classic for three, rare (guide 003)",
        "faro": "Faro Kseri, Classic for five (guide 003): two decks, five players, 4-card batches",
        "children": "children's Kseri (guide 003): Jacks capture only by rank",
    }
)
"""Where each preset comes from, in one line."""
