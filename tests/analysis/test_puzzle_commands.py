"""``kseri puzzles generate`` and ``kseri puzzle`` (the line mode), driven as a player would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kseri.analysis.puzzles import bot_records, read_puzzles
from kseri.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def puzzle_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("puzzles")
    records = folder / "games.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in bot_records(2, "expert", None, 5)))
    out = folder / "puzzles.jsonl"
    result = runner.invoke(app, ["puzzles", "generate", str(records), "--out", str(out), "--worlds", "32"])
    assert result.exit_code == 0, result.output
    assert "puzzles from 2 games" in result.output
    return out


def test_generate_writes_puzzles_and_refuses_a_record_that_does_not_replay(
        puzzle_file: Path, tmp_path: Path) -> None:
    puzzles = read_puzzles(puzzle_file.read_text().splitlines())
    assert len(puzzles) >= 3 and len({p.id for p in puzzles}) == len(puzzles)
    broken = bot_records(1, "greedy", None, 0)[0]
    broken["rounds"][0]["plays"][3] = broken["rounds"][0]["plays"][2]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    out = tmp_path / "out.jsonl"
    result = runner.invoke(app, ["puzzles", "generate", str(path), "--out", str(out)])
    assert result.exit_code == 2 and "record 1 does not replay" in result.output
    assert not out.exists()
    missing = runner.invoke(app, ["puzzles", "generate", str(tmp_path / "none.json"), "--out", str(out)])
    assert missing.exit_code == 2 and "cannot read" in missing.output
    nothing = runner.invoke(app, ["puzzles", "generate", "--out", str(out)])
    assert nothing.exit_code == 2 and "no game" in nothing.output


def test_a_solved_and_a_failed_puzzle_move_the_rating_both_ways_and_retry_replays_the_failure(
        puzzle_file: Path, tmp_path: Path) -> None:
    puzzles = read_puzzles(puzzle_file.read_text().splitlines())
    progress = tmp_path / "me.json"
    # the first puzzle shown is the nearest the fresh rating (all alike: the smallest id)
    first, second = sorted(puzzles, key=lambda p: p.id)[:2]
    wrong = next(card for card in second.view.hand if card not in second.answers)
    held = {str(card) for card in first.view.hand}
    absent = next(c for c in ("2C", "3C", "4C", "5C", "6C", "7C") if c not in held)
    answers = f"{absent}\n{first.answers[0]}\n{wrong}\n"
    options = ["--file", str(puzzle_file), "--progress", str(progress)]
    result = runner.invoke(app, ["puzzle", *options, "--count", "2"], input=answers)
    assert result.exit_code == 0, result.output
    output = result.output
    assert f"Puzzle {first.id}" in output and "is not a card of your hand" in output
    assert "Right!" in output and f"Not quite: the best card was {second.answers[0].pretty()}" in output
    assert "Solved 1 of 2." in output
    changes = [line.split("(")[1].rstrip(")") for line in output.splitlines() if "puzzle rating" in line]
    assert changes[0].startswith("+") and changes[1].startswith("-")
    saved = json.loads(progress.read_text())
    assert saved["solved"] == [first.id] and saved["failed"] == [second.id] and saved["streak"] == 0
    retried = runner.invoke(app, ["puzzle", *options, "--retry"], input=f"{second.answers[0]}\n")
    assert retried.exit_code == 0, retried.output
    assert f"Puzzle {second.id}" in retried.output and "Right!" in retried.output
    assert json.loads(progress.read_text())["failed"] == []


def test_the_shipped_set_in_greek_and_bad_options(tmp_path: Path) -> None:
    result = runner.invoke(app, ["puzzle", "--lang", "el", "--count", "1"], input="q\n")
    assert result.exit_code == 0, result.output
    assert "Γρίφος" in result.output and "Τα φύλλα σου" in result.output
    assert runner.invoke(app, ["puzzle", "--lang", "xx"]).exit_code == 2
    assert "--retry needs --progress" in runner.invoke(app, ["puzzle", "--retry"]).output
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{}\n")
    refused = runner.invoke(app, ["puzzle", "--file", str(bad)])
    assert refused.exit_code == 2 and "line 1" in refused.output
