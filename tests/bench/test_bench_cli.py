"""``kseri tournament`` and ``kseri engine`` end to end, as subprocesses."""

import json
import shlex
import subprocess
import sys
from pathlib import Path

from engine_commands import kseri_engine, misbehaving_engine


def _kseri(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kseri", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, check=False)


def test_a_tournament_with_an_external_engine_writes_json_and_png(tmp_path: Path) -> None:
    out_json, out_png = tmp_path / "out.json", tmp_path / "out.png"
    engine = "greedy-engine=" + shlex.join(kseri_engine("greedy"))
    args = ["tournament", "greedy", "random", "--engine", engine, "--rules", "pisti", "--deals", "8",
            "--matches", "1", "--seed", "1", "--workers", "2", "--bootstrap", "30",
            "--json", str(out_json), "--plot", str(out_png)]
    result = _kseri(*args)
    assert result.returncode == 0, result.stderr
    assert "rating ladder" in result.stdout and "greedy-engine" in result.stdout
    summary = json.loads(out_json.read_text())
    command = shlex.join(kseri_engine("greedy"))
    assert summary["config"]["players"][2] == {"name": "greedy-engine", "command": command}
    assert summary["config"]["rules"]["name"] == "pisti"
    assert len(summary["pairs"]) == 3 and summary["forfeits"] == []
    # The same bot inside and outside the bench plays the same cards: every deal is drawn.
    mirror = next(p for p in summary["pairs"] if {p["first"], p["second"]} == {"greedy", "greedy-engine"})
    assert mirror["deals"]["draws"] == 8 and mirror["deals"]["mean_difference"] == 0
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_forfeiting_engine_is_reported_and_the_tournament_finishes(tmp_path: Path) -> None:
    out_json = tmp_path / "out.json"
    result = _kseri("tournament", "random", "--engine", "quitter=" + shlex.join(misbehaving_engine("exit")),
                    "--deals", "2", "--matches", "1", "--workers", "1", "--json", str(out_json))
    assert result.returncode == 0, result.stderr
    assert "quitter forfeited 4 game(s)" in " ".join(result.stdout.split())
    forfeits = json.loads(out_json.read_text())["forfeits"]
    assert [f["player"] for f in forfeits] == ["quitter"] * 4
    assert "exited with status 3" in forfeits[0]["problem"]


def test_bad_arguments_are_refused_with_the_reason() -> None:
    unknown = _kseri("tournament", "greedy", "grandmaster", "--deals", "2")
    assert unknown.returncode == 2 and "unknown bot level 'grandmaster'" in unknown.stderr
    rules = _kseri("tournament", "greedy", "random", "--rules", "greek,players=9")
    assert rules.returncode == 2 and "players must be 2 to 6" in rules.stderr
    alone = _kseri("tournament", "greedy")
    assert alone.returncode == 2 and "at least two players" in alone.stderr
    workers = _kseri("tournament", "greedy", "random", "--workers", "-1")
    assert workers.returncode == 2 and "workers must be 0" in workers.stderr
    engine = _kseri("engine", "--level", "grandmaster")
    assert engine.returncode == 2 and "unknown bot level" in engine.stderr


def test_kseri_engine_speaks_the_protocol_on_stdio() -> None:
    result = _kseri("engine", "--level", "random", "--seed", "3",
                    stdin='{"type": "hello", "protocol": 1}\nnonsense\n{"type": "quit"}\n')
    assert result.returncode == 0
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert answers[0] == {"type": "id", "name": "kseri random", "author": "kseri"}
    assert answers[1]["type"] == "error" and "not JSON" in answers[1]["message"]
