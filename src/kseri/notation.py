"""A compact text notation for game records, in the spirit of chess's PGN.

Header tags first, then each round: one line with its dealer, deal seed, centre and hands,
an optional line with its fairness proof, its plays one batch a line, and its score once over.
Plays are numbered by turns round the table (``players`` cards a number), the first by the
seat left of the dealer; ``x`` marks a capture, ``*`` a capture that scored a kseri, ``+`` a
house bonus (a table of Jacks, the 2♣ taken by a two). ``~`` marks a face-down centre card,
``/`` separates seats' hands and ``|`` batches. ``docs/records.md`` has a full example.

>>> from kseri import Match
>>> from kseri.records import record_from_match
>>> match = Match(seed=4)
>>> for _ in range(3):
...     match.play(match.legal_plays()[0])
>>> record = record_from_match(match)
>>> text = format_notation(record)
>>> print(text.splitlines()[0])
[Rules "greek"]
>>> parse_notation(text) == record
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Final

from kseri.engine import KSERI_KINDS, Match, PublicPlay
from kseri.records import (
    FAIRNESS_FIELDS,
    FORMAT,
    RecordError,
    match_from_record,
    record_from_match,
    record_mismatches,
)
from kseri.rules import OPTION_NAMES, PRESETS, Rules, RulesError

_TOKEN: Final = re.compile(r'"(?:[^"\\]|\\.)*"|\S+')
_TAG: Final = re.compile(r"^\[(\w+)\s+(.*)\]$")
_PLAY: Final = re.compile(r"^([2-9TJQKA][CDHS])([x*]?)(\+?)$")
_TAGS: Final = ("Rules", "Seed", "Names", "Target", "Totals", "Result")


class NotationError(ValueError):
    """Text that is not a record in the notation; the message names the line."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


# -- writing -----------------------------------------------------------------------------------


def rules_spec(rules: Rules) -> str:
    """``rules`` as a ``--rules`` spec: its preset and every option that differs from it (for
    rules named otherwise, the closest preset, and the name)."""
    ours = rules.options()

    def changes(base: Rules) -> list[str]:
        theirs = base.options()
        return [f"{key}={option_text(ours[key])}" for key in OPTION_NAMES[1:] if ours[key] != theirs[key]]

    if rules.name in PRESETS:
        parts = [rules.name, *changes(PRESETS[rules.name])]
    else:
        base = min(PRESETS.values(), key=lambda preset: len(changes(preset)))
        parts = [base.name, f"name={rules.name}", *changes(base)]
    spec = ",".join(parts)
    try:
        same = Rules.from_spec(spec) == rules
    except RulesError:
        same = False
    if not same:
        raise RecordError(f"these rules cannot be written as a spec: {ours}")
    return spec


def option_text(value: object) -> str:
    """An option's JSON value (from ``Rules.options()``) as a ``--rules`` spec writes it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "/".join(f"{key}:{points}" for key, points in value)
    if isinstance(value, StrEnum):
        return value.value
    return str(value)


_LINE_BREAKS: Final = {ord(c): f"\\u{ord(c):04x}" for c in "\v\f\x1c\x1d\x1e\x85\u2028\u2029"}
"""Characters that end a line for ``str.splitlines`` but that JSON leaves unescaped."""


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False).translate(_LINE_BREAKS)


def _annotated(play: PublicPlay) -> str:
    text = str(play.card)
    if play.taken:
        text += "*" if any(mark.kind in KSERI_KINDS for mark in play.marks) else "x"
    if any(mark.kind not in KSERI_KINDS for mark in play.marks):
        text += "+"
    return text


def _dashed(numbers: list[int]) -> str:
    return "-".join(str(number) for number in numbers)


def format_notation(record: Mapping[str, Any]) -> str:
    """The record in the text notation. The record is re-played for the capture annotations;
    one that does not re-play exactly raises :class:`~kseri.records.RecordError`."""
    match = match_from_record(record)
    mismatches = record_mismatches(record, match)
    if mismatches:
        first = mismatches[0]
        raise RecordError(f"the record does not re-play: {first.message}", first.round, first.play)
    rules = match.rules
    lines = [f'[Rules "{rules_spec(rules)}"]', f"[Seed {_quote(record['seed'])}]"]
    if record.get("names") is not None:
        lines.append("[Names " + " ".join(_quote(name) for name in record["names"]) + "]")
    result = "*" if record["winner"] is None else str(record["winner"])
    lines += [f'[Target "{record["target"]}"]', f'[Totals "{_dashed(record["totals"])}"]',
              f'[Result "{result}"]']
    for index, entry in enumerate(record["rounds"]):
        lines += ["", _round_line(index, entry)]
        proof = entry.get("fairness")
        if proof:
            lines.append("Fairness " + " ".join(f"{key} {_quote(proof[key])}" for key in FAIRNESS_FIELDS))
        lines += _play_lines(match, index)
        if "points" in entry:
            lines.append(f"Score {_dashed(entry['points'])}")
    return "\n".join(lines) + "\n"


def _round_line(index: int, entry: Mapping[str, Any]) -> str:
    words = [f"Round {index + 1} dealer {entry['dealer']}"]
    if entry["deal_seed"] is not None:
        words.append(f"seed {_quote(entry['deal_seed'])}")
    words.append("centre " + " ".join(("~" if c["face_down"] else "") + c["card"] for c in entry["centre"]))
    if entry["shown"] is not None:
        words.append(f"shown {entry['shown']}")
    batches = (" / ".join(" ".join(hand) for hand in batch) for batch in entry["hands"])
    words.append("hands " + " | ".join(batches))
    return " ".join(words)


def _play_lines(match: Match, index: int) -> list[str]:
    players, per_line = match.rules.players, match.rules.batch_size * match.rules.players
    plays = match.plays[index]
    lines = []
    for start in range(0, len(plays), per_line):
        words = []
        for number in range(start, min(start + per_line, len(plays))):
            if number % players == 0:
                words.append(f"{number // players + 1}.")
            words.append(_annotated(plays[number]))
        lines.append(" ".join(words))
    return lines


# -- reading -----------------------------------------------------------------------------------


def parse_notation(text: str) -> dict[str, Any]:
    """The record written by :func:`format_notation`. The deals and plays are re-played, so
    the annotations, scores and header tags must agree with them; any problem raises
    :class:`NotationError` naming the line."""
    tags: dict[str, tuple[int, list[str]]] = {}
    rounds: list[_RoundText] = []
    rules: Rules | None = None
    last = 0
    for last, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("["):
            if rounds:
                raise NotationError(last, "header tags come before the first round")
            _read_tag(last, line, tags)
        elif line.startswith("Round"):
            rules = rules or _header_rules(last, tags)
            rounds.append(_RoundText.parse(last, line, len(rounds), rules.players))
        elif not rounds:
            raise NotationError(last, f'expected a [Tag "value"] or a Round line, not {line[:40]!r}')
        else:
            rounds[-1].add(last, line)
    if rules is None:
        raise NotationError(max(last, 1), "no Round line")
    rules_line = tags["Rules"][0]
    seed = _tag(tags, "Seed", 1)[1][0]
    names = tags["Names"][1] if "Names" in tags else None
    if names is not None and len(names) != rules.players:
        raise NotationError(tags["Names"][0], f"[Names] needs {rules.players} names, one per seat")
    skeleton = {
        "format": FORMAT, "rules": rules.options(), "seed": seed, "names": names,
        "rounds": [r.skeleton(rules) for r in rounds],
    }
    try:
        match = match_from_record(skeleton)
    except RecordError as error:
        where = rounds[error.round] if error.round is not None else None
        at = where.play_line(error.play) if where else rules_line
        raise NotationError(at, str(error)) from None
    record = record_from_match(match, names=names, fairness=[r.fairness or {} for r in rounds])
    for index, round_text in enumerate(rounds):
        round_text.check(match, index, record["rounds"][index])
    _check_tag(tags, "Target", str(record["target"]))
    _check_tag(tags, "Totals", _dashed(record["totals"]))
    _check_tag(tags, "Result", "*" if record["winner"] is None else str(record["winner"]))
    return record


def _header_rules(line: int, tags: dict[str, tuple[int, list[str]]]) -> Rules:
    """The rules of the header, once the first Round line is reached."""
    for name in ("Rules", "Seed", "Result"):
        if name not in tags:
            raise NotationError(line, f"the [{name} ...] tag is missing before the first round")
    rules_line, (spec,) = _tag(tags, "Rules", 1)
    try:
        return Rules.from_spec(spec)
    except RulesError as error:
        raise NotationError(rules_line, str(error)) from None


def _read_tag(number: int, line: str, tags: dict[str, tuple[int, list[str]]]) -> None:
    found = _TAG.match(line)
    if not found:
        raise NotationError(number, f'a tag looks like [Seed "2024"], not {line[:40]!r}')
    name, rest = found.groups()
    if name not in _TAGS:
        raise NotationError(number, f"unknown tag [{name}]; the tags are {', '.join(_TAGS)}")
    if name in tags:
        raise NotationError(number, f"the [{name}] tag is given twice")
    values = []
    for token in _TOKEN.findall(rest):
        if not token.startswith('"'):
            raise NotationError(number, f"tag values are quoted strings, not {token!r}")
        values.append(_unquote(number, token))
    tags[name] = (number, values)


def _tag(tags: dict[str, tuple[int, list[str]]], name: str, count: int) -> tuple[int, list[str]]:
    line, values = tags[name]
    if len(values) != count:
        raise NotationError(line, f"[{name}] takes {count} quoted value(s), not {len(values)}")
    return line, values


def _check_tag(tags: dict[str, tuple[int, list[str]]], name: str, derived: str) -> None:
    if name in tags:
        line, (value,) = _tag(tags, name, 1)
        if value != derived:
            raise NotationError(line, f'[{name} "{value}"] disagrees with the plays, which give "{derived}"')


def _unquote(number: int, token: str) -> str:
    try:
        value = json.loads(token)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, str):
        raise NotationError(number, f"{token} is not a well-formed quoted string")
    return value


class _RoundText:
    """One round's lines as read, with the line numbers needed to name problems."""

    def __init__(self, line: int, players: int, dealer: int, seed: str | None,
                 centre: list[dict[str, Any]], shown: str | None, hands: list[list[list[str]]]) -> None:
        self.line = line
        self.players = players
        self.dealer = dealer
        self.seed = seed
        self.centre = centre
        self.shown = shown
        self.hands = hands
        self.fairness: dict[str, str] | None = None
        self.plays: list[tuple[int, str]] = []
        """(line, annotated card) per play."""
        self.score: tuple[int, str] | None = None
        self.turns = 0
        """Turn numbers read so far."""

    @classmethod
    def parse(cls, number: int, line: str, index: int, players: int) -> _RoundText:
        tokens = _TOKEN.findall(line)
        fields: dict[str, list[str]] = {}
        key = None
        for token in tokens[2:]:
            if token in ("dealer", "seed", "centre", "shown", "hands") and key != "seed":
                if token in fields:
                    raise NotationError(number, f"{token} is given twice")
                key = token
                fields[key] = []
            elif key is None:
                raise NotationError(number, f"expected dealer, seed, centre, shown or hands, not {token!r}")
            else:
                fields[key].append(token)
                key = None if key == "seed" else key
        if tokens[1:2] != [str(index + 1)]:
            raise NotationError(number, f"expected Round {index + 1}")
        for name in ("dealer", "centre", "hands"):
            if name not in fields:
                raise NotationError(number, f"the Round line lacks {name}")
        dealer = fields["dealer"]
        if len(dealer) != 1 or not dealer[0].isdigit():
            raise NotationError(number, f"dealer is a seat number, not {' '.join(dealer)!r}")
        seed = None
        if "seed" in fields:
            if len(fields["seed"]) != 1 or not fields["seed"][0].startswith('"'):
                raise NotationError(number, "seed takes one quoted string")
            seed = _unquote(number, fields["seed"][0])
        centre = [{"card": t.removeprefix("~"), "face_down": t.startswith("~")} for t in fields["centre"]]
        shown = None
        if "shown" in fields:
            if len(fields["shown"]) != 1:
                raise NotationError(number, "shown takes one card")
            shown = fields["shown"][0]
        hands: list[list[list[str]]] = [[[]]]
        for token in fields["hands"]:
            if token == "|":
                hands.append([[]])
            elif token == "/":
                hands[-1].append([])
            else:
                hands[-1][-1].append(token)
        return cls(number, players, int(dealer[0]), seed, centre, shown, hands)

    def add(self, number: int, line: str) -> None:
        if line.startswith("Fairness"):
            self._fairness(number, line)
            return
        if self.score is not None:
            raise NotationError(number, "nothing but the next Round follows a Score line")
        if line.startswith("Score"):
            self.score = (number, line.removeprefix("Score").strip())
            return
        for token in line.split():
            turn = len(self.plays) // self.players + 1
            if token.endswith(".") and token[:-1].isdigit():
                if len(self.plays) % self.players or int(token[:-1]) != turn or self.turns == turn:
                    raise NotationError(number, f"turn number {token} is out of place")
                self.turns = turn
            elif not _PLAY.match(token):
                raise NotationError(number, f"{token!r} is not a play: a card like TD, then x, * or + "
                                            "as it captured, scored a kseri or a bonus")
            elif self.turns != turn:
                raise NotationError(number, f"turn {turn} starts with its number, {turn}.")
            else:
                self.plays.append((number, token))

    def _fairness(self, number: int, line: str) -> None:
        if self.fairness is not None or self.plays:
            raise NotationError(number, "the Fairness line follows its Round line, once")
        tokens = _TOKEN.findall(line)[1:]
        pairs = dict(zip(tokens[::2], tokens[1::2], strict=False))
        if len(tokens) != 2 * len(FAIRNESS_FIELDS) or sorted(pairs) != sorted(FAIRNESS_FIELDS):
            raise NotationError(number, 'Fairness takes commitment "…" secret "…" cut "…"')
        self.fairness = {key: _unquote(number, pairs[key]) for key in FAIRNESS_FIELDS}

    def skeleton(self, rules: Rules) -> dict[str, Any]:
        """The round's deal and plays as a record entry (seats follow from the dealer)."""
        return {
            "dealer": self.dealer, "deal_seed": self.seed, "centre": self.centre, "shown": self.shown,
            "hands": self.hands,
            "plays": [[(self.dealer + 1 + i) % rules.players, t.rstrip("x*+")]
                      for i, (_, t) in enumerate(self.plays)],
        }

    def play_line(self, play: int | None) -> int:
        """The line of a play (the Round line for the deal itself)."""
        return self.line if play is None or play >= len(self.plays) else self.plays[play][0]

    def check(self, match: Match, index: int, entry: Mapping[str, Any]) -> None:
        """The annotations and score must be what the re-played round gives."""
        for number, ((line, token), play) in enumerate(zip(self.plays, match.plays[index], strict=True)):
            written = _annotated(play)
            if token != written:
                raise NotationError(line, f"play {number + 1} is written {token} but re-plays as {written}")
        over = "points" in entry
        if self.score is None:
            if over:
                raise NotationError(self.plays[-1][0], f"round {index + 1} is over: a Score line must follow")
            return
        line, score = self.score
        if not over:
            raise NotationError(line, f"round {index + 1} is not over, so it has no score yet")
        points = _dashed(entry["points"])
        if score != points:
            raise NotationError(line, f"Score {score} disagrees with the plays, which give {points}")


__all__ = ["NotationError", "format_notation", "option_text", "parse_notation", "rules_spec"]
