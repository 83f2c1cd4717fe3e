"""The text notation: exact round trips over random matches, and errors that name the line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kseri import PRESETS, Match, Rules
from kseri import fairness as fair
from kseri.notation import NotationError, format_notation, parse_notation, rules_spec
from kseri.records import RecordError, record_from_match, replay_record, verify_record

PlayMatch = Callable[..., Match]

RULES = [Rules.preset(name) for name in PRESETS] + [
    Rules.from_spec("greek,jack_kseri=25"),
    Rules.from_spec("classic,jack_kseri=none,jacks_table_bonus=5,last_capture_bonus=2,two_clubs_match_bonus=7"),
    Rules.from_spec("pisti,card_points=TD:3/2C:2/A:1/J:1/K:1,majority_tie=every-tied-side,target=51"),
]


@given(
    rules=st.sampled_from(RULES),
    seed=st.text(max_size=12),
    stop_after=st.none() | st.integers(min_value=0, max_value=400),
    named=st.booleans(),
)
@settings(max_examples=40, deadline=None)
def test_notation_round_trips_exactly(rules: Rules, seed: str, stop_after: int | None, named: bool,
                                      play_match: PlayMatch) -> None:
    match = play_match(rules, seed=seed, stop_after=stop_after)
    names = [f"Παίκτης {seat} \"{seed}\"" for seat in range(rules.players)] if named else None
    record = json.loads(json.dumps(record_from_match(match, names=names)))
    text = format_notation(record)
    assert parse_notation(text) == record
    assert format_notation(parse_notation(text)) == text


@pytest.mark.parametrize("rules", RULES, ids=lambda rules: rules_spec(rules))
def test_rules_spec_gives_back_the_same_rules(rules: Rules) -> None:
    assert Rules.from_spec(rules_spec(rules)) == rules


def test_rules_spec_of_a_renamed_rule_set() -> None:
    rules = Rules.preset("classic").replace(name="house", target=75)
    assert rules_spec(rules) == "classic,name=house,target=75"
    assert Rules.from_spec(rules_spec(rules)).options() == rules.options()


def sample(play_match: PlayMatch) -> tuple[dict[str, Any], str]:
    """A pisti match in its second round with round 1's fairness proof revealed."""
    match = play_match(Rules.preset("pisti"), seed="notation", stop_after=60)
    secret = "s3cret"
    proof = {"commitment": fair.commitment(secret), "secret": secret, "cut": "cut \"quoted\""}
    record = json.loads(json.dumps(record_from_match(match, names=["Eleni", "Nikos"], fairness=[proof])))
    return record, format_notation(record)


def test_the_notation_reads_as_documented(play_match: PlayMatch) -> None:
    record, text = sample(play_match)
    lines = text.splitlines()
    totals = "-".join(map(str, record["totals"]))
    assert lines[:5] == ['[Rules "pisti"]', '[Seed "notation"]', '[Names "Eleni" "Nikos"]',
                         f'[Target "{record["target"]}"]', f'[Totals "{totals}"]']
    assert lines[5] == '[Result "*"]'
    first = record["rounds"][0]
    round_line = lines[7]
    assert round_line.startswith(f'Round 1 dealer {first["dealer"]} seed "notation:0" centre ~')
    assert f" shown {first['shown']} hands " in round_line
    assert lines[8].startswith('Fairness commitment "') and lines[8].endswith('cut "cut \\"quoted\\""')
    assert lines[9].startswith("1. ")
    play_tokens = [t for line in lines[9:] if line[:1].isdigit() for t in line.split() if not t.endswith(".")]
    played = [card for entry in record["rounds"] for _, card in entry["plays"]]
    assert [t.rstrip("x*+") for t in play_tokens] == played
    assert any(t.endswith("x") for t in play_tokens)
    assert f"Score {first['points'][0]}-{first['points'][1]}" in lines
    assert parse_notation(text) == record


def test_unreplayable_records_are_not_written(play_match: PlayMatch) -> None:
    record, _ = sample(play_match)
    record["totals"] = [0, 0]
    with pytest.raises(RecordError, match="the record does not re-play: totals"):
        format_notation(record)


def edit(text: str, line: int, old: str, new: str) -> str:
    """``text`` with ``old`` replaced once on line ``line`` (from 1)."""
    lines = text.splitlines()
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("change", "line", "message"), [
    (lambda t: edit(t, 1, "pisti", "pisti,jack=2"), 1, "unknown option 'jack'"),
    (lambda t: edit(t, 2, '"notation"', "notation"), 2, "tag values are quoted strings"),
    (lambda t: edit(t, 3, "Names", "Players"), 3, "unknown tag [Players]"),
    (lambda t: edit(t, 3, ' "Nikos"', ""), 3, "[Names] needs 2 names"),
    (lambda t: edit(t, 6, "*", "0"), 6, '[Result "0"] disagrees with the plays, which give "*"'),
    (lambda t: edit(t, 8, "Round 1", "Round 2"), 8, "expected Round 1"),
    (lambda t: edit(t, 8, " dealer", " dealt"), 8, "expected dealer, seed, centre"),
    (lambda t: edit(t, 8, "centre ~", "centre "), 8, "round 1: face-down centre cards"),
    (lambda t: edit(t, 10, "1. ", ""), 10, "turn 1 starts with its number"),
    (lambda t: edit(t, 10, "2. ", "3. "), 10, "turn number 3. is out of place"),
    (lambda t: edit(t, 10, " ", " QQ ", ), 10, "'QQ' is not a play"),
])
def test_bad_notation_names_the_line(change: Callable[[str], str], line: int, message: str,
                                     play_match: PlayMatch) -> None:
    _, text = sample(play_match)
    changed = change(text)
    with pytest.raises(NotationError) as caught:
        parse_notation(changed)
    assert caught.value.line == line
    assert str(caught.value).startswith(f"line {line}: ")
    assert message in str(caught.value)


def test_a_deal_seed_changed_in_the_notation_reads_but_does_not_verify(play_match: PlayMatch) -> None:
    _, text = sample(play_match)
    changed = parse_notation(edit(text, 8, 'seed "notation:0"', 'seed "notation:1"'))
    problems = verify_record(changed)
    assert problems[0] == "round 1: the deal does not follow from its deal seed (first difference: centre)"
    assert problems[1].startswith("round 1: the deal seed is not the one the secret and the cut give")


def test_the_example_in_the_docs_parses_verifies_and_is_written_back_the_same() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "records.md").read_text()
    example = docs.split("```text\n", 1)[1].split("```", 1)[0]
    record = parse_notation(example)
    assert record["names"] == ["Eleni", "Nikos"] and not record["complete"]
    assert verify_record(record) == [] and replay_record(record) == []
    assert format_notation(record) == example


def test_house_bonuses_and_kseris_are_annotated(play_match: PlayMatch) -> None:
    rules = Rules.from_spec("classic,jacks_table_bonus=5,two_clubs_match_bonus=7")

    def bonuses(record: dict[str, Any]) -> int:
        return sum(item["kind"] in ("jacks-table", "two-clubs-match")
                   for entry in record["rounds"] for items in entry["breakdown"] for item in items)

    # The first seed whose match scores a house bonus (they are rare under random play).
    record = next(r for r in (json.loads(json.dumps(record_from_match(play_match(rules, seed=seed))))
                              for seed in range(100)) if bonuses(r))
    text = format_notation(record)
    words = text.split()
    bonus_items = bonuses(record)
    kseri_items = sum(item["kind"] in ("kseri", "double-kseri")
                      for entry in record["rounds"] for items in entry["breakdown"] for item in items)
    assert bonus_items >= 1 and sum(w.endswith("+") for w in words) == bonus_items
    assert sum("*" in w for w in words if w != '"*"]') == kseri_items
    assert parse_notation(text) == record
