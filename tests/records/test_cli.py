"""``kseri simulate``, ``replay``, ``verify`` and ``notation`` end to end, as a user runs them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from kseri import fairness as fair
from kseri.records import read_records

SRC = str(Path(__file__).resolve().parents[2] / "src")


def kseri(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run ``python -m kseri`` with the test's environment (``src`` on the path)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")])),
               COLUMNS="120")
    return subprocess.run([sys.executable, "-m", "kseri", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    path = tmp_path_factory.mktemp("sim") / "games.jsonl"
    return path, kseri("simulate", "--rules", "greek,jack_kseri=25", "--games", "6", "--seed", "7",
                       "--records", path)


def test_simulate_writes_one_record_per_match_and_summarises(
    simulated: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    path, run = simulated
    assert run.returncode == 0, run.stderr
    records = read_records(path)
    assert len(records) == 6
    assert all(r["complete"] and r["rules"]["jack_kseri"] == 25 for r in records)
    assert len({r["seed"] for r in records}) == 6
    wins = [sum(r["winner"] == side for r in records) for side in (0, 1)]
    rounds = sum(len(r["rounds"]) for r in records)
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in run.stdout.splitlines()
            if line.count("│") == 3}
    assert rows["matches"] == "6"
    assert rows["rounds"].startswith(f"{rounds} (")
    assert rows["side 0 wins"].startswith(f"{wins[0]} (") and rows["side 1 wins"].startswith(f"{wins[1]} (")
    assert float(rows["kseris a round"]) >= 0 and "matches/s" in rows["throughput"]


def test_simulate_is_reproducible_from_its_seed(
    simulated: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    path, _ = simulated
    again = tmp_path / "again.jsonl"
    assert kseri("simulate", "--rules", "greek,jack_kseri=25", "-n", "2", "--seed", "7", "--records",
                 again).returncode == 0
    assert read_records(again) == read_records(path)[:2]


def test_simulate_fast_plays_whole_matches_on_the_compiled_core() -> None:
    command = ("simulate", "--rules", "pisti", "--games", "3000", "--seed", "7", "--fast")
    runs = [kseri(*command) for _ in range(2)]
    assert all(run.returncode == 0 for run in runs), runs[0].stderr
    rows = [{line.split("│")[1].strip(): line.split("│")[2].strip() for line in run.stdout.splitlines()
             if line.count("│") == 3} for run in runs]
    assert rows[0]["matches"] == "3000"
    wins = [int(rows[0][f"side {side} wins"].split()[0]) for side in (0, 1)]
    assert sum(wins) == 3000 and min(wins) > 1300  # random players: about even
    rounds = int(rows[0]["rounds"].split()[0])
    assert 3000 * 2 < rounds < 3000 * 20
    assert 5 < float(rows[0]["side 0 points a round"]) < 25
    del rows[0]["throughput"], rows[1]["throughput"]
    assert rows[0] == rows[1]  # reproducible from the seed


@pytest.mark.parametrize(("args", "message"), [
    (["--fast", "--records", "x.jsonl"], "--fast keeps no records"),
    (["--rules", "greek,jack=2"], "unknown option 'jack'"),
    (["--rules", "poker"], "unknown preset 'poker'"),
    (["--games", "0"], "--games"),
    (["--records", "/nonexistent/dir/x.jsonl"], "cannot write /nonexistent/dir/x.jsonl"),
])
def test_simulate_refuses_bad_options_with_exit_code_2(args: list[str], message: str) -> None:
    run = kseri("simulate", *args)
    assert run.returncode == 2
    assert message in " ".join(run.stderr.split())


def test_replay_and_verify_accept_the_simulated_records(
    simulated: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    path, _ = simulated
    replay = kseri("replay", path)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "6 record(s) re-played: all consistent" in replay.stdout
    verify = kseri("verify", path)
    assert verify.returncode == 0, verify.stdout
    assert verify.stdout.count("verified") == 6


def test_replay_reports_the_match_round_and_play_of_a_tampered_record(
    simulated: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    path, _ = simulated
    records = read_records(path)
    plays = records[1]["rounds"][2]["plays"]
    plays[4], plays[16] = plays[16], plays[4]  # the same seat, a card of the next batch: not yet held
    records[3]["rounds"][0]["points"][1] += 3
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("".join(json.dumps(r) + "\n" for r in records))
    run = kseri("replay", tampered)
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert any(line.startswith("match 2, round 3, play 5: ") for line in lines), run.stdout
    assert any(line.startswith("match 4, round 1: points: recorded") for line in lines), run.stdout
    assert "6 record(s) re-played: 2 mismatch(es) in 2" in run.stdout


def test_verify_reports_a_wrong_deal_seed_and_a_broken_commitment(
    simulated: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    path, _ = simulated
    record = read_records(path)[0]
    secret = "revealed"
    record["rounds"][0]["fairness"] = {"commitment": fair.commitment("other"), "secret": secret, "cut": ""}
    record["rounds"][1]["deal_seed"] = "forged"
    single = tmp_path / "one.json"
    single.write_text(json.dumps(record, indent=1))
    run = kseri("verify", single)
    assert run.returncode == 1
    out = " ".join(run.stdout.split())
    assert "round 1: the revealed secret does not match the commitment" in out
    assert "round 1: the deal seed is not the one the secret and the cut give" in out
    assert "round 2: the deal does not follow from its deal seed" in out


def test_notation_prints_and_parses_back(simulated: tuple[Path, subprocess.CompletedProcess[str]],
                                         tmp_path: Path) -> None:
    path, _ = simulated
    shown = kseri("notation", path, "--match", "3")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith('[Rules "greek,jack_kseri=25"]\n[Seed "7:2"]\n')
    text = tmp_path / "game.txt"
    text.write_text(shown.stdout)
    parsed = kseri("notation", "--parse", text)
    assert parsed.returncode == 0, parsed.stderr
    assert json.loads(parsed.stdout) == read_records(path)[2]
    text.write_text(shown.stdout.replace("Round 1 dealer", "Round 1 dealr"))
    broken = kseri("notation", "--parse", text)
    assert broken.returncode == 2
    assert "game.txt, line 7: expected dealer, seed, centre, shown or hands, not 'dealr'" in broken.stderr


def test_unreadable_files_are_refused_with_exit_code_2(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text('{"format": "kseri-record/1"}\nnot json\n')
    for command in ("replay", "verify", "notation"):
        run = kseri(command, garbage)
        assert run.returncode == 2, command
        assert "garbage.jsonl, line 2: not JSON" in " ".join(run.stderr.split())
    missing = kseri("replay", tmp_path / "missing.jsonl")
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_rules_lists_each_preset_with_options_that_parse_back() -> None:
    run = kseri("rules")
    assert run.returncode == 0
    for name in ("greek", "classic", "pisti", "partnership", "three-player", "faro", "children"):
        assert f"│ {name} " in run.stdout
    # in players' words: who plays, the kseris, the points and the target
    words = " ".join(line.split("│")[2].strip() for line in run.stdout.splitlines() if line.count("│") == 4)
    for phrase in ("2 players, 6 cards each per deal", "Kseri 10, Jack on a lone Jack 20",
                   "10♦ 3, 2♣ 2; most cards 3", "the target rises by 100", "5 players with two decks"):
        assert phrase in words, phrase
    shown = kseri("rules", "pisti,jack_kseri=none,card_points=TD:3/2C:2/A:1/J:1,target=51")
    assert shown.returncode == 0
    values = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in shown.stdout.splitlines()
              if line.count("│") == 3}
    assert values["jack_kseri"] == "none" and values["target"] == "51" and values["name"] == "pisti"


def test_cli_errors_name_the_flag_and_help_has_no_type_noise() -> None:
    level = kseri("play", "--plain", "--level", "wizard")
    assert level.returncode == 2
    assert "Invalid value for '--level': unknown bot level 'wizard'" in level.stderr
    rules = kseri("simulate", "--rules", "nope")
    assert rules.returncode == 2 and "Invalid value for '--rules': unknown preset 'nope'" in rules.stderr
    shown = kseri("play", "--help")
    assert shown.returncode == 0 and "--plain" in shown.stdout
    assert "<bool>" not in shown.stdout


def test_serve_on_a_port_in_use_says_so_before_printing_any_address() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = kseri("serve", "--port", port)
    assert run.returncode == 2 and run.stdout == ""
    assert f"port {port} is in use" in run.stderr and f"--port {port + 1}" in run.stderr
