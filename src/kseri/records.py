"""Game records: a match as JSON that anyone can read, re-play and verify.

A record holds the rules, every round's deal (with the deal seed it was shuffled from) and
every play; the scores in it are derived, so :func:`replay_record` re-plays the match through
the engine and reports each derived field that disagrees, and :func:`verify_record` checks
that each deal follows from its deal seed (and, where revealed, from the fairness secret).
``docs/records.md`` describes the format field by field.

>>> from kseri import Match
>>> match = Match(seed=11)
>>> match.play(match.legal_plays()[0])
>>> record = record_from_match(match, names=["Eleni", "Nikos"])
>>> record["complete"], len(record["rounds"][0]["plays"])
(False, 1)
>>> replay_record(record), verify_record(record)
([], [])
>>> match_from_record(record).view(0) == match.view(0)
True
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, NamedTuple

from kseri import fairness as fair
from kseri.cards import ALL_CARDS, CARDS_PER_DECK, Card
from kseri.engine import Deal, IllegalPlayError, Match, Phase
from kseri.rules import Rules, RulesError
from kseri.views import result_to_json

FORMAT: Final = "kseri-record/1"
"""The ``format`` field of every record this module writes."""

RESULT_FIELDS: Final = ("points", "kseri", "captured", "breakdown", "last_capturer")
"""A finished round's derived fields."""

FAIRNESS_FIELDS: Final = ("commitment", "secret", "cut")
"""The fields of a round's revealed fairness proof."""


_CARDS: Final = {str(card): card for card in ALL_CARDS[:CARDS_PER_DECK]}
"""Each card by its canonical text (the first deck's copy)."""


class RecordError(ValueError):
    """A record that cannot be read or re-played; the message names the round and play.

    ``round`` and ``play`` are 0-based indices (``None`` when the problem is not in one);
    ``detail`` is the message without them.
    """

    def __init__(self, detail: str, round: int | None = None, play: int | None = None) -> None:
        where = _where(round, play)
        super().__init__(f"{where}: {detail}" if where else detail)
        self.detail = detail
        self.round = round
        self.play = play


class Mismatch(NamedTuple):
    """A derived field of a record that the re-played match does not reproduce.

    ``round`` and ``play`` are 0-based indices; the text of :meth:`__str__` counts from 1.
    """

    round: int | None
    play: int | None
    message: str

    def __str__(self) -> str:
        where = _where(self.round, self.play)
        return f"{where}: {self.message}" if where else self.message


def _where(round: int | None, play: int | None) -> str:
    parts = []
    if round is not None:
        parts.append(f"round {round + 1}")
    if play is not None:
        parts.append(f"play {play + 1}")
    return ", ".join(parts)


# -- writing -----------------------------------------------------------------------------------


def record_from_match(
    match: Match,
    *,
    names: Sequence[str] | None = None,
    fairness: Sequence[Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """The record of ``match`` as it stands: finished rounds scored, the current one so far.

    ``names`` are the players by seat; ``fairness[i]`` is round ``i``'s revealed proof
    ``{"commitment", "secret", "cut"}`` (rounds beyond the sequence, or given an empty
    mapping, carry none).
    """
    rules = match.rules
    if names is not None and (len(names) != rules.players or not all(isinstance(n, str) for n in names)):
        raise ValueError(f"names must be {rules.players} strings, one per seat, not {list(names)!r}")
    proofs = list(fairness or ())
    if len(proofs) > len(match.deals):
        raise ValueError(f"fairness has {len(proofs)} entries for {len(match.deals)} rounds")
    results = match.round_results
    rounds: list[dict[str, Any]] = []
    for index, (deal, plays) in enumerate(zip(match.deals, match.plays, strict=True)):
        entry = _deal_to_json(deal)
        entry["plays"] = [[play.seat, str(play.card)] for play in plays]
        if index < len(results):
            result = result_to_json(results[index])
            result["breakdown"] = [_by_face(items) for items in result["breakdown"]]
            entry.update(result)
        if index < len(proofs) and proofs[index]:
            proof = proofs[index]
            missing = [key for key in FAIRNESS_FIELDS if key not in proof]
            if missing:
                raise ValueError(f"fairness of round {index + 1} lacks {', '.join(missing)}")
            entry["fairness"] = {key: str(proof[key]) for key in FAIRNESS_FIELDS}
        rounds.append(entry)
    return {
        "format": FORMAT,
        "rules": rules.options(),
        "seed": match.seed,
        "names": None if names is None else list(names),
        "rounds": rounds,
        "totals": list(match.totals),
        "target": match.target,
        "winner": match.winner,
        "complete": match.is_over(),
    } | ({} if match.resigned is None else {"resigned": match.resigned})


def _by_face(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A breakdown with its card items in card order (2♣ first): with two decks, the engine's
    order also depends on which copy of a card was played, which a record cannot say."""
    cards = [item for item in items if item["kind"] == "card"]
    cards.sort(key=lambda item: _CARDS[item["card"]])
    return cards + [item for item in items if item["kind"] != "card"]


def _deal_to_json(deal: Deal) -> dict[str, Any]:
    return {
        "dealer": deal.dealer,
        "deal_seed": deal.seed,
        "centre": [
            {"card": str(card), "face_down": position < deal.face_down}
            for position, card in enumerate(deal.centre)
        ],
        "shown": None if deal.shown is None else str(deal.shown),
        "hands": [[[str(card) for card in hand] for hand in batch] for batch in deal.hands],
    }


# -- reading and re-playing --------------------------------------------------------------------


def match_from_record(record: Mapping[str, Any]) -> Match:
    """Rebuild the match through the engine from the record's deals and plays, up to its
    last recorded play. Raises :class:`RecordError` naming the round and play on anything
    inconsistent (an unreadable field, a deal that does not fit the rules, an illegal play)."""
    if not isinstance(record, Mapping):
        raise RecordError(f"a record is a JSON object, not {type(record).__name__}")
    if record.get("format") != FORMAT:
        raise RecordError(f"format must be {FORMAT!r}, not {record.get('format')!r}")
    rules = _rules(record)
    seed = record.get("seed")
    if not isinstance(seed, str):
        raise RecordError(f"seed must be a string, not {seed!r}")
    rounds = record.get("rounds")
    if not isinstance(rounds, list) or not rounds:
        raise RecordError("rounds must be a non-empty list")
    match: Match | None = None
    for index, entry in enumerate(rounds):
        deal = deal_from_json(rules, entry, index)
        try:
            if match is None:
                match = Match(rules, seed, deal=deal)
            elif match.phase is Phase.PLAYING:
                done = len(match.plays[-1])
                raise RecordError(f"the round ends after play {done}, yet another round follows", index - 1)
            else:
                match.next_round(deal=deal)
        except IllegalPlayError as error:
            raise RecordError(str(error), index) from None
        plays = entry.get("plays")
        if not isinstance(plays, list):
            raise RecordError("plays must be a list", index)
        for number, play in enumerate(plays):
            _apply(match, play, index, number)
    assert match is not None
    resigned = record.get("resigned")
    if resigned is not None:
        if not isinstance(resigned, int) or isinstance(resigned, bool) or not 0 <= resigned < rules.players:
            raise RecordError(f"resigned must be a seat, 0 to {rules.players - 1}, not {resigned!r}")
        try:
            match.resign(resigned)
        except IllegalPlayError as error:
            raise RecordError(str(error)) from None
    return match


def _rules(record: Mapping[str, Any]) -> Rules:
    options = record.get("rules")
    if not isinstance(options, dict):
        raise RecordError(f"rules must be an object of options, not {options!r}")
    try:
        return Rules.from_options(options)
    except (RulesError, TypeError, ValueError) as error:
        raise RecordError(f"rules: {error}") from None


def deal_from_json(rules: Rules, entry: object, index: int) -> Deal:
    """Round ``index``'s deal from its record entry, checked card by card against ``rules``.

    With two decks the text does not say which deck a card comes from: the deal seed's
    shuffle decides when the deal follows from it; otherwise a face's first appearance
    (centre bottom to top, then batch by batch, seat by seat) is the first deck's copy.
    """
    if not isinstance(entry, dict):
        raise RecordError("a round is a JSON object", index)
    dealer = entry.get("dealer")
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < rules.players:
        raise RecordError(f"dealer must be a seat from 0 to {rules.players - 1}, not {dealer!r}", index)
    deal_seed = entry.get("deal_seed")
    if deal_seed is not None and not isinstance(deal_seed, str):
        raise RecordError(f"deal_seed must be a string or null, not {deal_seed!r}", index)
    copies: dict[int, int] = {}

    def card(text: object) -> Card:
        face = _CARDS.get(text) if isinstance(text, str) else None
        if face is None:
            raise RecordError(f"cards are written like TD or 2C, not {text!r}", index)
        seen = copies.get(face, 0)
        if seen >= rules.decks:
            raise RecordError(f"{text} is dealt more often than the {rules.decks} deck(s) hold", index)
        copies[face] = seen + 1
        return ALL_CARDS[face + CARDS_PER_DECK * seen]

    centre_json = entry.get("centre")
    if not isinstance(centre_json, list) or len(centre_json) != rules.centre_size:
        raise RecordError(f"centre must list the {rules.centre_size} cards dealt to it", index)
    centre = []
    flags = []
    for item in centre_json:
        if not isinstance(item, dict) or not isinstance(item.get("face_down"), bool):
            raise RecordError(f"centre cards look like {{'card': 'TD', 'face_down': false}}, not {item!r}",
                              index)
        centre.append(card(item.get("card")))
        flags.append(item["face_down"])
    face_down = flags.count(True)
    if flags != [True] * face_down + [False] * (len(flags) - face_down):
        raise RecordError("face-down centre cards must lie at the bottom of the pile", index)
    hands_json = entry.get("hands")
    shape = f"{rules.batches} batches of {rules.players} hands of {rules.batch_size} cards"
    if not isinstance(hands_json, list) or len(hands_json) != rules.batches:
        raise RecordError(f"hands must be {shape}", index)
    hands = []
    for batch in hands_json:
        if not isinstance(batch, list) or len(batch) != rules.players or not all(
            isinstance(hand, list) and len(hand) == rules.batch_size for hand in batch
        ):
            raise RecordError(f"hands must be {shape}", index)
        hands.append(tuple(tuple(card(text) for text in hand) for hand in batch))
    shown_text = entry.get("shown")
    shown = None
    if shown_text is not None:
        last_batch = [held for hand in hands[-1] for held in hand]
        matching = [held for held in last_batch if str(held) == shown_text]
        if not matching:
            raise RecordError(f"shown must be a card of the last batch, not {shown_text!r}", index)
        shown = matching[-1]
    elif face_down:
        raise RecordError("a deal with face-down centre cards shows the stock's bottom card", index)
    deal = Deal(dealer, tuple(centre), face_down, tuple(hands), shown, deal_seed)
    if rules.decks > 1 and deal_seed is not None:
        shuffled = Deal.shuffle(rules, dealer, deal_seed)
        if _deal_to_json(shuffled) == _deal_to_json(deal):
            return shuffled
    return deal


def _apply(match: Match, play: object, index: int, number: int) -> None:
    if (
        not isinstance(play, list) or len(play) != 2 or not isinstance(play[0], int)
        or isinstance(play[0], bool) or not isinstance(play[1], str)
    ):
        raise RecordError(f"a play is [seat, card], like [0, 'TD'], not {play!r}", index, number)
    seat, text = play
    if match.turn is None:
        raise RecordError(f"{text} by seat {seat} comes after the round's last play", index, number)
    if seat != match.turn:
        raise RecordError(f"seat {seat} plays {text}, but it is seat {match.turn}'s turn", index, number)
    card = _CARDS.get(text)
    if card is None:
        raise RecordError(f"cards are written like TD or 2C, not {text!r}", index, number)
    # With two decks, the first copy of the card in the hand (as a played text is taken).
    held = next((c for c in match.legal_plays() if c % CARDS_PER_DECK == card), card)
    try:
        match.play(held)
    except IllegalPlayError as error:
        raise RecordError(str(error), index, number) from None


def replay_record(record: Mapping[str, Any]) -> list[Mismatch]:
    """Re-play the record and compare every derived field (per round: points, kseri,
    captured, breakdown, last capturer, whether it is over; totals, target, winner, complete).
    Returns each disagreement; a record that cannot be re-played gives one mismatch saying
    where it stops."""
    try:
        match = match_from_record(record)
    except RecordError as error:
        return [Mismatch(error.round, error.play, error.detail)]
    return record_mismatches(record, match)


def record_mismatches(record: Mapping[str, Any], match: Match) -> list[Mismatch]:
    """The derived fields of ``record`` that disagree with ``match``, the match rebuilt from
    it by :func:`match_from_record` (what :func:`replay_record` reports)."""
    replayed = record_from_match(match)
    found: list[Mismatch] = []
    for index, (given, derived) in enumerate(zip(record["rounds"], replayed["rounds"], strict=True)):
        over = "points" in derived
        for key in RESULT_FIELDS:
            if key in given and not over:
                found.append(Mismatch(index, None, f"{key} recorded for a round that is not over"))
                break
            if over and given.get(key, _MISSING) != derived[key]:
                found.extend(Mismatch(index, None, text) for text in _differences(key, given, derived[key]))
    for key in ("totals", "target", "winner", "complete", "resigned"):
        if key == "resigned" and key not in record and key not in replayed:
            continue
        if record.get(key, _MISSING) != replayed[key]:
            recorded = "missing" if key not in record else f"{record[key]!r}"
            found.append(Mismatch(None, None, f"{key}: recorded {recorded}, re-played {replayed[key]!r}"))
    return found


_MISSING: Final = object()


def _differences(key: str, given: Mapping[str, Any], derived: list[Any]) -> list[str]:
    """How a round's result field differs: side by side for the long per-side lists."""
    recorded = given.get(key, _MISSING)
    if recorded is _MISSING:
        return [f"{key}: missing, re-played {derived!r}"]
    if key in ("captured", "breakdown") and isinstance(recorded, list) and len(recorded) == len(derived):
        return [f"{key} of side {side}: recorded {mine!r}, re-played {theirs!r}"
                for side, (mine, theirs) in enumerate(zip(recorded, derived, strict=True)) if mine != theirs]
    return [f"{key}: recorded {recorded!r}, re-played {derived!r}"]


def verify_record(record: Mapping[str, Any]) -> list[str]:
    """Problems with the deals' provenance: each round's deal must be what
    ``Deal.shuffle(rules, dealer, deal_seed)`` deals, and where a round carries ``fairness``,
    its secret must match the commitment and give the deal seed with the cut
    (:func:`kseri.fairness.verify_deal_seed`). An empty list means verified."""
    if not isinstance(record, Mapping):
        return [f"a record is a JSON object, not {type(record).__name__}"]
    try:
        rules = _rules(record)
        rounds = record.get("rounds")
        if not isinstance(rounds, list):
            raise RecordError("rounds must be a list")
        deals = [deal_from_json(rules, entry, index) for index, entry in enumerate(rounds)]
    except RecordError as error:
        return [str(error)]
    problems = []
    for index, (deal, entry) in enumerate(zip(deals, rounds, strict=True)):
        where = f"round {index + 1}"
        if deal.seed is None:
            problems.append(f"{where}: no deal seed is recorded, so the deal cannot be checked")
        else:
            shuffled = Deal.shuffle(rules, deal.dealer, deal.seed)
            if _deal_to_json(shuffled) != _deal_to_json(deal):
                problems.append(f"{where}: the deal does not follow from its deal seed "
                                f"(first difference: {_first_difference(deal, shuffled)})")
        proof = entry.get("fairness")
        if proof is None:
            continue
        if not isinstance(proof, dict) or not all(isinstance(proof.get(k), str) for k in FAIRNESS_FIELDS):
            problems.append(f"{where}: fairness must hold the strings {', '.join(FAIRNESS_FIELDS)}")
            continue
        secret, cut, committed = proof["secret"], proof["cut"], proof["commitment"]
        if fair.verify_deal_seed(committed, secret, cut, deal.seed or ""):
            continue
        if fair.commitment(secret) != committed:
            problems.append(f"{where}: the revealed secret does not match the commitment {committed}")
        if fair.deal_seed(secret, cut) != deal.seed:
            problems.append(f"{where}: the deal seed is not the one the secret and the cut give "
                            f"({fair.deal_seed(secret, cut)})")
    return problems


def daily_problems(record: Mapping[str, Any]) -> list[str]:
    """Problems with a daily deal's record (``record["daily"]``: its day, family, round and the
    day's published commitment): its deal must come from the day's revealed secret with the
    daily's public cut (:func:`kseri.fairness.verify_daily_seed`). Other records: none."""
    daily = record.get("daily")
    if daily is None:
        return []
    keys = ("day", "rules", "round", "commitment")
    if not isinstance(daily, Mapping) or not all(key in daily for key in keys):
        return [f"daily must hold {', '.join(keys)}"]
    rounds = record.get("rounds")
    if not isinstance(rounds, list) or len(rounds) != 1 or not isinstance(rounds[0], Mapping):
        return ["a daily record holds exactly one round"]
    proof, seed = rounds[0].get("fairness"), rounds[0].get("deal_seed")
    if not isinstance(proof, Mapping):
        return ["the day's secret is not in the record: it is revealed when the day closes"]
    problems = []
    if proof.get("commitment") != daily["commitment"]:
        problems.append(f"the round's commitment is not the day's ({daily['commitment']})")
    if not fair.verify_daily_seed(str(daily["commitment"]), str(proof.get("secret")), str(daily["day"]),
                                  str(daily["rules"]), int(daily["round"]), str(seed)):
        problems.append(f"the deal seed does not follow from the day's secret and the cut "
                        f"{fair.daily_cut(str(daily['day']), str(daily['rules']), int(daily['round']))!r}")
    return problems


def record_problems(record: object) -> list[str]:
    """Everything wrong with a record, as ``kseri verify`` reports it: the deals' provenance
    (:func:`verify_record`), then the re-play (:func:`replay_record`), without repeats. An empty
    list: the record is sound."""
    if not isinstance(record, Mapping):
        return [f"a record is a JSON object, not {type(record).__name__}"]
    found = verify_record(record) + [str(m) for m in replay_record(record)] + daily_problems(record)
    return list(dict.fromkeys(found))


def _first_difference(recorded: Deal, shuffled: Deal) -> str:
    mine, theirs = _deal_to_json(recorded), _deal_to_json(shuffled)
    return next(key for key in ("centre", "shown", "hands") if mine[key] != theirs[key])


# -- files ---------------------------------------------------------------------------------------


def save_record(path: str | os.PathLike[str], record: Mapping[str, Any]) -> None:
    """Write one record as JSON, atomically: a temporary file beside ``path``, then a rename."""
    target = Path(path)
    text = json.dumps(record, ensure_ascii=False, indent=1) + "\n"
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load_record(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read one record written by :func:`save_record` (any JSON object); :class:`RecordError`
    when the file is not one JSON object."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise RecordError(f"{path}: not JSON ({error})") from None
    if not isinstance(data, dict):
        raise RecordError(f"{path}: a record is a JSON object, not {type(data).__name__}")
    return data


def append_record(path: str | os.PathLike[str], record: Mapping[str, Any]) -> None:
    """Append one record as a line of a JSON Lines file (created if missing)."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
    with open(path, "a", encoding="utf-8") as file:
        file.write(line)


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every record of a JSON Lines file, in order (blank lines skipped); a single JSON record
    file reads as a list of one. :class:`RecordError` names the line that is not a record."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        return [whole]
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise RecordError(f"{path}, line {number}: not JSON ({error.msg})") from None
        if not isinstance(data, dict):
            raise RecordError(f"{path}, line {number}: a record is a JSON object")
        records.append(data)
    return records


__all__ = [
    "FORMAT", "Mismatch", "RecordError", "append_record", "deal_from_json", "load_record",
    "match_from_record", "read_records", "record_from_match", "record_mismatches", "replay_record",
    "save_record",
    "verify_record",
]
