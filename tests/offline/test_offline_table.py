"""The offline table's Python side (kseri.offline), in CPython: what the browser loads is the
standard library's only, a saved game resumes exactly, bad input changes nothing, and a finished
game's record verifies."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from kseri.engine import IllegalPlayError
from kseri.offline import BROWSER_MODULES, LEVELS, OfflineTable, core_archive
from kseri.records import replay_record, verify_record
from kseri.rules import PRESETS


def test_the_browser_archive_runs_on_the_standard_library_alone(tmp_path: Path) -> None:
    """Unpacked alone and run by a Python that sees no installed package (no numpy), the archive
    plays a game at each offline level: the browser's engine needs nothing else."""
    archive = core_archive()
    assert archive == core_archive(), "the same bytes each build (the service worker's version)"
    names = zipfile.ZipFile(io.BytesIO(archive)).namelist()
    assert names == [f"kseri/{name}" for name in BROWSER_MODULES]
    assert "kseri/agents/__init__.py" not in names
    zipfile.ZipFile(io.BytesIO(archive)).extractall(tmp_path)
    script = (
        "import sys, json\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from kseri.offline import OfflineTable, LEVELS\n"
        "for level in LEVELS:\n"
        "    table = OfflineTable.new('greek', level, 3, people=0)\n"
        "    while not table.is_over():\n"
        "        table.next_round() if table.match.turn is None else table.bot_play()\n"
        "print('numpy' in sys.modules, sorted(m for m in sys.modules if m.startswith('kseri')))\n"
    )
    done = subprocess.run([sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True,
                          check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("False"), done.stdout


def test_levels_are_the_standard_library_ones_up_to_the_expert() -> None:
    assert LEVELS == ("random", "expert-5", "expert-18", "expert-35", "greedy", "expert-62", "expert")
    refusal = ("unknown offline level 'master'; the levels are: random, expert-5, expert-18, expert-35, "
               "greedy, expert-62, expert")
    with pytest.raises(ValueError, match=refusal):
        OfflineTable.new("greek", "master", 1)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_saved_game_resumes_exactly_and_its_record_verifies(preset: str) -> None:
    table = OfflineTable.new(preset, "expert", 42)
    plays = 0
    while not table.is_over():
        if table.match.turn is None:
            table.next_round()
        elif table.match.turn == 0:
            table.play(json.loads(table.state())["hand"][-1])
        else:
            table.bot_play()
        plays += 1
        if plays % 17 == 0:  # the page keeps the game after every play and may be reloaded at any
            resumed = OfflineTable.resume(table.saved())
            assert resumed.state() == table.state()
            table = resumed
    names = ["You"] + ["Computer"] * (table.match.rules.players - 1)
    record = json.loads(table.record(json.dumps(names)))
    assert record["complete"] and record["names"] == names
    assert replay_record(record) == [] and verify_record(record) == []


def test_bad_input_is_refused_and_changes_nothing() -> None:
    table = OfflineTable.new("greek", "greedy", 5)
    while table.match.turn != 0:
        table.bot_play()
    before = table.state()
    with pytest.raises(ValueError, match="it is no bot's turn"):
        table.bot_play()
    hand = json.loads(before)["hand"]
    missing = next(card for card in ("AS", "KH", "2C", "TD", "7S", "9H", "QC") if card not in hand)
    with pytest.raises(IllegalPlayError):
        table.play(missing)
    assert table.state() == before
    table.play(hand[0])
    with pytest.raises(ValueError, match="it is not the person's turn"):
        table.play(json.loads(table.state())["hand"][0])
    with pytest.raises(ValueError, match="not a saved offline game"):
        OfflineTable.resume(json.dumps({"format": "something else"}))
