"""Records: written at any moment, re-played, verified, resumed, saved."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from kseri import PRESETS, Deal, Match, Rules
from kseri import fairness as fair
from kseri.records import (
    FORMAT,
    RecordError,
    append_record,
    load_record,
    match_from_record,
    read_records,
    record_from_match,
    replay_record,
    save_record,
    verify_record,
)
from kseri.views import view_to_json

PlayMatch = Callable[..., Match]

SCHEMA = json.loads((files("kseri") / "schemas" / "record.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())


def as_json(record: dict[str, Any]) -> dict[str, Any]:
    """The record as it comes back from a file."""
    result: dict[str, Any] = json.loads(json.dumps(record))
    return result


def views(match: Match) -> list[dict[str, Any]]:
    """Every seat's view as JSON. With two decks a record does not say which copy of a card was
    played, so a rebuilt match may hold the same cards in another order: hands are sorted."""
    result = [view_to_json(match.view(seat)) for seat in range(match.rules.players)]
    if match.rules.decks > 1:
        for view in result:
            view["hand"].sort()
    return result


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_full_match_record_replays_verifies_and_rebuilds(preset: str, play_match: PlayMatch) -> None:
    match = play_match(Rules.preset(preset), seed=f"full-{preset}")
    names = [f"player {seat}" for seat in range(match.rules.players)]
    record = as_json(record_from_match(match, names=names))
    VALIDATOR.validate(record)
    assert record["format"] == FORMAT and record["complete"] and record["winner"] == match.winner
    assert record["rules"] == match.rules.options() and record["rules"]["name"] == preset
    assert len(record["rounds"]) == len(match.round_results)
    assert replay_record(record) == []
    assert verify_record(record) == []
    rebuilt = match_from_record(record)
    assert record_from_match(rebuilt, names=names) == record
    assert views(rebuilt) == views(match)
    last = record["rounds"][-1]
    assert sum(len(cards) for cards in last["captured"]) + len(match.centre_left) == match.rules.deck_size
    assert [sum(item["points"] for item in items) for items in last["breakdown"]] == last["points"]


@pytest.mark.parametrize("preset", ["greek", "pisti", "partnership", "faro"])
@pytest.mark.parametrize("stop_after", [0, 7, 61])
def test_mid_round_record_resumes_to_the_same_views(
    preset: str, stop_after: int, play_match: PlayMatch
) -> None:
    match = play_match(Rules.preset(preset), seed=f"mid-{preset}", stop_after=stop_after)
    record = as_json(record_from_match(match))
    VALIDATOR.validate(record)
    current = record["rounds"][-1]
    assert not record["complete"] and "points" not in current
    assert len(current["plays"]) == len(match.plays[-1])
    resumed = match_from_record(record)
    assert resumed.turn == match.turn
    assert views(resumed) == views(match)
    if match.rules.decks == 1:  # two decks: copies are told apart only through the seed's shuffle
        assert [resumed.view(s) for s in range(match.rules.players)] == [
            match.view(s) for s in range(match.rules.players)
        ]
    # The resumed match plays on exactly like the original.
    card = match.legal_plays()[-1]
    match.play(card)
    resumed.play(card)
    assert views(resumed) == views(match)


def test_record_between_rounds_is_not_complete_and_the_next_round_follows(play_match: PlayMatch) -> None:
    match = play_match(Rules.preset("greek"), seed="between", stop_after=48)
    assert match.is_round_over() and not match.is_over()
    record = as_json(record_from_match(match))
    assert not record["complete"] and "points" in record["rounds"][0]
    resumed = match_from_record(record)
    resumed.next_round()
    match.next_round()
    assert views(resumed) == views(match)


def test_custom_deal_seeds_and_fairness_proofs_are_recorded_and_verified() -> None:
    """The server's way: each round shuffled from a committed secret and the cutter's text."""
    rules = Rules.preset("classic")
    secrets = [fair.new_secret() for _ in range(2)]
    cuts = ["", "Nikos cuts: ξερή"]
    seeds = [fair.deal_seed(s, c) for s, c in zip(secrets, cuts, strict=True)]
    match = Match(rules, seed="server", deal=Deal.shuffle(rules, 0, seeds[0]))
    while match.turn is not None:
        match.play(match.legal_plays()[0])
    match.next_round(deal_seed=seeds[1])
    match.play(match.legal_plays()[0])
    proofs = [{"commitment": fair.commitment(s), "secret": s, "cut": c}
              for s, c in zip(secrets, cuts, strict=True)]
    # The current round's secret is not revealed yet: only round 1's proof goes in.
    record = as_json(record_from_match(match, fairness=proofs[:1]))
    VALIDATOR.validate(record)
    assert [r["deal_seed"] for r in record["rounds"]] == seeds
    assert record["rounds"][0]["fairness"] == proofs[0] and "fairness" not in record["rounds"][1]
    assert verify_record(record) == [] and replay_record(record) == []
    full = as_json(record_from_match(match, fairness=proofs))
    assert verify_record(full) == []

    broken = copy.deepcopy(full)
    broken["rounds"][1]["fairness"]["commitment"] = fair.commitment("another secret")
    assert verify_record(broken) == [
        f"round 2: the revealed secret does not match the commitment {fair.commitment('another secret')}"
    ]
    recut = copy.deepcopy(full)
    recut["rounds"][0]["fairness"]["cut"] = "a different cut"
    (problem,) = verify_record(recut)
    assert problem.startswith("round 1: the deal seed is not the one the secret and the cut give")


def test_verify_catches_a_deal_that_does_not_follow_from_its_seed(play_match: PlayMatch) -> None:
    record = as_json(record_from_match(play_match(Rules.preset("greek"), seed="verify")))
    wrong_seed = copy.deepcopy(record)
    wrong_seed["rounds"][2]["deal_seed"] = "verify:99"
    assert verify_record(wrong_seed) == [
        "round 3: the deal does not follow from its deal seed (first difference: centre)"
    ]
    swapped = copy.deepcopy(record)
    hands = swapped["rounds"][1]["hands"][3]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    assert verify_record(swapped) == [
        "round 2: the deal does not follow from its deal seed (first difference: hands)"
    ]
    unseeded = copy.deepcopy(record)
    unseeded["rounds"][0]["deal_seed"] = None
    assert verify_record(unseeded) == ["round 1: no deal seed is recorded, so the deal cannot be checked"]


def test_replay_names_the_round_and_play_of_a_tampered_play(play_match: PlayMatch) -> None:
    record = as_json(record_from_match(play_match(Rules.preset("greek"), seed="tamper")))
    round_index, play_index = 1, 9
    seat, _ = record["rounds"][round_index]["plays"][play_index]
    elsewhere = next(c for batch in record["rounds"][round_index]["hands"] for h in batch for c in h
                     if c not in {p[1] for p in record["rounds"][round_index]["plays"][: play_index + 1]}
                     and c not in batch[seat])
    tampered = copy.deepcopy(record)
    tampered["rounds"][round_index]["plays"][play_index][1] = elsewhere
    (mismatch,) = replay_record(tampered)
    assert (mismatch.round, mismatch.play) == (round_index, play_index)
    assert f"{elsewhere} is not in the hand of seat {seat}" in mismatch.message
    assert str(mismatch).startswith("round 2, play 10: ")
    with pytest.raises(RecordError, match=r"^round 2, play 10: ") as caught:
        match_from_record(tampered)
    assert (caught.value.round, caught.value.play) == (round_index, play_index)


def test_replay_reports_every_derived_field_that_disagrees(play_match: PlayMatch) -> None:
    record = as_json(record_from_match(play_match(Rules.preset("pisti"), seed="derived")))
    tampered = copy.deepcopy(record)
    tampered["rounds"][0]["points"][0] += 1
    tampered["rounds"][2]["kseri"] = [99, 0]
    tampered["rounds"][3]["captured"][1].pop()
    del tampered["rounds"][4]["breakdown"]
    tampered["totals"][1] -= 5
    tampered["winner"] = None
    found = [(m.round, m.message.split(":")[0]) for m in replay_record(tampered)]
    assert found == [(0, "points"), (2, "kseri"), (3, "captured of side 1"), (4, "breakdown"),
                     (None, "totals"), (None, "winner")]


def bad(record: dict[str, Any], path: str, value: object) -> dict[str, Any]:
    """A copy of ``record`` with the value at a dotted path replaced."""
    result = copy.deepcopy(record)
    *parents, last = path.split(".")
    node: Any = result
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    node[int(last) if isinstance(node, list) else last] = value
    return result


@pytest.mark.parametrize(("path", "value", "message"), [
    ("format", "kseri-record/0", "format must be 'kseri-record/1'"),
    ("rules.players", 9, "rules: players must be 2 to 6"),
    ("seed", 7, "seed must be a string"),
    ("rounds.0.dealer", 3, "round 1: dealer must be a seat from 0 to 1"),
    ("rounds.0.centre.0.card", "10D", "round 1: cards are written like TD or 2C, not '10D'"),
    ("rounds.0.centre.1.face_down", True, "round 1: face-down centre cards must lie at the bottom"),
    ("rounds.0.hands.1.0", ["2C"], "round 1: hands must be 4 batches of 2 hands of 6 cards"),
    ("rounds.0.plays.3", [0, "TD", 1], "round 1, play 4: a play is [seat, card]"),
    ("rounds.0.plays.3.0", 5, "round 1, play 4: seat 5 plays"),
    ("rounds.0.plays.3.1", "td", "round 1, play 4: cards are written like TD or 2C, not 'td'"),
])
def test_unreadable_records_raise_naming_the_place(path: str, value: object, message: str,
                                                   play_match: PlayMatch) -> None:
    record = as_json(record_from_match(play_match(Rules.preset("greek"), seed="bad", stop_after=60)))
    with pytest.raises(RecordError) as caught:
        match_from_record(bad(record, path, value))
    assert str(caught.value).startswith(message)


def test_a_card_dealt_twice_is_refused(play_match: PlayMatch) -> None:
    record = as_json(record_from_match(play_match(Rules.preset("greek"), seed="twice", stop_after=3)))
    duplicated = bad(record, "rounds.0.hands.2.1.0", record["rounds"][0]["centre"][0]["card"])
    with pytest.raises(RecordError, match=r"^round 1: \w\w is dealt more often than the 1 deck"):
        match_from_record(duplicated)
    assert replay_record(duplicated)[0].round == 0
    assert verify_record(duplicated)[0].startswith("round 1: ")


def test_a_round_after_an_unfinished_one_is_refused(play_match: PlayMatch) -> None:
    record = as_json(record_from_match(play_match(Rules.preset("greek"), seed="early", stop_after=60)))
    record["rounds"][0]["plays"].pop()
    with pytest.raises(RecordError, match=r"^round 1: the round ends after play 47, yet another round"):
        match_from_record(record)


def test_record_from_match_refuses_bad_names_and_fairness() -> None:
    match = Match(seed=1)
    with pytest.raises(ValueError, match="names must be 2 strings"):
        record_from_match(match, names=["only one"])
    with pytest.raises(ValueError, match="fairness of round 1 lacks secret, cut"):
        record_from_match(match, fairness=[{"commitment": "00"}])


def test_save_load_append_and_read(tmp_path: Path, play_match: PlayMatch) -> None:
    records = [as_json(record_from_match(play_match(Rules.preset("greek"), seed=s, stop_after=30 * s)))
               for s in range(1, 4)]
    single = tmp_path / "one.json"
    save_record(single, records[0])
    save_record(single, records[1])  # replaced whole, no temporary file left behind
    assert load_record(single) == records[1]
    assert read_records(single) == [records[1]]
    assert [p.name for p in tmp_path.iterdir()] == ["one.json"]
    lines = tmp_path / "many.jsonl"
    for record in records:
        append_record(lines, record)
    assert read_records(lines) == records
    assert len(lines.read_text().splitlines()) == 3
    with lines.open("a") as file:
        file.write("\n{not json\n")
    with pytest.raises(RecordError, match=r"many\.jsonl, line 5: not JSON"):
        read_records(lines)
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(RecordError, match="a record is a JSON object, not list"):
        load_record(tmp_path / "list.json")


def test_the_schema_refuses_malformed_records(play_match: PlayMatch) -> None:
    record = as_json(record_from_match(play_match(Rules.preset("greek"), seed="schema", stop_after=60)))
    VALIDATOR.validate(record)
    for path, value in [("rounds.0.centre.0.card", "10D"), ("rounds.0.plays.0", ["0", "TD"]),
                        ("complete", True), ("rules.centre_deal", "shuffle")]:
        assert not VALIDATOR.is_valid(bad(record, path, value)), path
    without_breakdown = copy.deepcopy(record)
    del without_breakdown["rounds"][0]["breakdown"]
    assert not VALIDATOR.is_valid(without_breakdown)
