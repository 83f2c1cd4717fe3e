"""The replay viewer steps through a real record (kseri.records) with every hand shown, and its
re-played positions agree with the engine: the cards each side captured in each round."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import DESKTOP, ContextFactory, PageErrors, open_lobby, spoken
from playwright.sync_api import expect

from kseri import Match, Rules
from kseri.engine import random_round
from kseri.records import record_from_match


def _finished_record(spec: str, seed: int) -> dict[str, Any]:
    rules = Rules.from_spec(spec)
    match = Match(rules, seed=seed)
    rng = random.Random(seed)
    while True:
        random_round(match, rng)
        if match.is_over():
            break
        match.next_round()
    names = [f"P{seat + 1}" for seat in range(rules.players)]
    return record_from_match(match, names=names)


@pytest.mark.parametrize("spec", ["greek,target=60", "pisti,target=60", "partnership,target=60"])
def test_replay_of_a_record_file(spec: str, tmp_path: Path, server: str, new_context: ContextFactory,
                                 page_errors: PageErrors) -> None:
    record = _finished_record(spec, seed=7)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    rounds = record["rounds"]
    assert isinstance(rounds, list)

    page = page_errors.watch(new_context(DESKTOP).new_page())
    open_lobby(page, server)
    page.set_input_files("#record-file", str(path))
    page.wait_for_url(re.compile(r"/#replay$"))
    expect(page.locator("#replay-round option")).to_have_count(len(rounds))
    for index, round_ in enumerate(rounds):
        page.select_option("#replay-round", str(index))
        plays = round_["plays"]
        expect(page.locator("#replay-counter")).to_have_text(f"0 / {len(plays)}")
        # Everyone's first batch is shown.
        for seat, hand in enumerate(round_["hands"][0]):
            shown = page.locator(f'.replay-seat[data-seat="{seat}"] .small-card')
            expect(shown).to_have_count(len(hand))
        page.locator("#replay-next").click()
        seat, card = plays[0]
        expect(page.locator("#replay-caption")).to_contain_text(f"P{seat + 1} played {spoken(card)}.")
        expect(page.locator(f'.replay-seat[data-seat="{seat}"] .small-card')).to_have_count(
            len(round_["hands"][0][seat]) - 1)
        page.locator("#replay-last").click()
        expect(page.locator("#replay-counter")).to_have_text(f"{len(plays)} / {len(plays)}")
        captured = page.locator(".replay-captured").inner_text()
        counts = [int(n) for n in re.findall(r"(\d+) cards? taken", captured)]
        assert counts == [len(cards) for cards in round_["captured"]], (index, captured)
        sides = len(round_["points"])
        names = [" & ".join(f"P{seat + 1}" for seat in range(len(round_["hands"][0]))
                            if seat % sides == side) for side in range(sides)]
        points = " · ".join(f"{name} {p}" for name, p in zip(names, round_["points"], strict=True))
        expect(page.locator("#replay-points")).to_have_text(f"Round points: {points}")


def _tampered(record: dict[str, Any], how: str) -> dict[str, Any]:
    broken = json.loads(json.dumps(record))
    if how == "totals":
        broken["totals"][0] += 5
    elif how == "play":
        plays = broken["rounds"][0]["plays"]
        plays[0], plays[1] = plays[1], plays[0]
    else:
        broken["rounds"][0]["hands"][0][0][0], broken["rounds"][0]["hands"][0][1][0] = (
            broken["rounds"][0]["hands"][0][1][0], broken["rounds"][0]["hands"][0][0][0])
    return broken


@pytest.mark.parametrize("how", ["totals", "play", "deal"])
def test_a_tampered_record_is_refused_in_kseri_verify_words(
        how: str, tmp_path: Path, server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_tampered(_finished_record("greek,target=60", seed=3), how)))
    verify = subprocess.run([sys.executable, "-m", "kseri", "verify", str(path)], capture_output=True,
                            text=True, env=dict(os.environ, COLUMNS="400"), timeout=60, check=False)
    assert verify.returncode == 1
    first = verify.stdout.splitlines()[0]
    page = page_errors.watch(new_context(DESKTOP).new_page())
    open_lobby(page, server)
    page.set_input_files("#record-file", str(path))
    expect(page.locator("#replay-error")).to_have_text(f"This record cannot be replayed: {first}")
    expect(page.locator("#replay-round")).to_have_count(0)


def test_a_file_that_is_not_json_is_refused(tmp_path: Path, server: str, new_context: ContextFactory,
                                            page_errors: PageErrors) -> None:
    path = tmp_path / "record.json"
    path.write_text('{"format": "kseri-record/1", ')
    page = page_errors.watch(new_context(DESKTOP).new_page())
    open_lobby(page, server)
    page.set_input_files("#record-file", str(path))
    expect(page.locator("#replay-error")).to_contain_text("This record cannot be replayed: not JSON")
