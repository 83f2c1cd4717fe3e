"""The plain (line-by-line) mode, driven as a user would: a subprocess reading stdin."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import run_kseri

from kseri.records import load_record, match_from_record

FAST = ["--rules", "greek,target=51", "--level", "greedy", "--seed", "3"]


def test_a_whole_match_is_played_scored_and_recorded(tmp_path: Path, kseri_env: dict[str, str]) -> None:
    record = tmp_path / "match.json"
    done = run_kseri(["play", "--plain", *FAST, "--record", str(record)], kseri_env, "1\n" * 600)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("kseri: greek rules, You (seat 0), Greedy (seat 1); match seed 3")
    assert "Your hand: 1) " in out
    assert re.search(r"You play \S+ on ", out) and re.search(r"Greedy plays \S+ on ", out)
    # After each round: the itemised breakdown per side and the running totals.
    rounds = re.findall(r"== Round (\d+) is over\.", out)
    assert rounds == [str(n) for n in range(1, len(rounds) + 1)]
    assert re.search(r"   You: \d+ points: point cards \d+ \(.*\), majority \d, kseris \d+", out)
    assert "   Match: You " in out
    match = match_from_record(load_record(record))
    assert match.is_over() and load_record(record)["complete"] is True
    winner = ("You", "Greedy")[match.winner or 0]
    assert f"== {winner} win" in out
    assert f"You {match.totals[0]} · Greedy {match.totals[1]} (target {match.target})" in out
    assert out.rstrip().endswith("Play again? [y/N]:")
    # The record replays, plain, with every hand at each deal.
    shown = run_kseri(["show", "--plain", str(record)], kseri_env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.count(": Greedy deals.") + shown.stdout.count(": You deal") >= 1
    assert f"{winner} won the match." in shown.stdout
    again = run_kseri(["play", "--plain", "--resume", str(record)], kseri_env)
    assert again.returncode == 2
    assert f"the match in {record} is over; replay it with: kseri show {record}" in again.stderr


def test_bad_input_is_explained_and_the_game_goes_on(tmp_path: Path, kseri_env: dict[str, str]) -> None:
    done = run_kseri(["play", "--plain", *FAST], kseri_env, "xx\n9\n\nzz9\nm\n1\n")
    out = done.stdout
    assert "Not played: 'xx' is not a card: ranks are 2-10, T, J, Q, K, A" in out
    assert "There is no card 9: your hand has 6 (1-6)." in out
    assert "Please choose a card" in out
    assert "Seen this round (4 cards):" in out  # the memory aid: the centre as dealt
    assert re.search(r"You play \S+ on ", out)
    # End of input quits and saves the unfinished game in the data folder.
    saved = re.search(r"Game stopped: (.+)\nResume it with: kseri play --resume (.+)\n", out)
    assert saved, out
    path = Path(saved.group(1))
    assert path.is_relative_to(Path(kseri_env["XDG_DATA_HOME"]))
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["complete"] is False and record["names"] == ["you", "greedy"]
    secret = run_kseri(["show", "--plain", str(path)], kseri_env)
    assert secret.returncode == 2 and "is not over (hands stay hidden until it is)" in secret.stderr


def test_a_card_can_be_named(kseri_env: dict[str, str]) -> None:
    first = run_kseri(["play", "--plain", *FAST], kseri_env, "")
    hand = re.search(r"Your hand: 1\) (\S+)", first.stdout)
    assert hand
    card = hand.group(1).replace("10", "T").translate(str.maketrans("♣♦♥♠", "cdhs"))
    done = run_kseri(["play", "--plain", *FAST], kseri_env, f"{card.lower()}\n")
    assert f"You play {hand.group(1)} on " in done.stdout
    missing = run_kseri(["play", "--plain", *FAST], kseri_env, "2c\n")
    if "2♣" not in hand.group(0):
        assert "Not played: 2♣ is not in your hand" in missing.stdout


def test_an_interrupted_game_resumes_where_it_stopped(tmp_path: Path, kseri_env: dict[str, str]) -> None:
    record = tmp_path / "unfinished.json"
    log = tmp_path / "out.txt"
    with log.open("w", encoding="utf-8") as out:
        game = subprocess.Popen(
            [sys.executable, "-m", "kseri", "play", "--plain", *FAST, "--record", str(record)],
            stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT, env=kseri_env, text=True,
        )
        assert game.stdin is not None
        game.stdin.write("1\n" * 5)
        game.stdin.flush()
        deadline = time.monotonic() + 30
        while log.read_text(encoding="utf-8").count("Your turn") < 6:  # five answered, one waiting
            assert game.poll() is None and time.monotonic() < deadline, log.read_text(encoding="utf-8")
            time.sleep(0.05)
        game.send_signal(signal.SIGINT)
        assert game.wait(timeout=30) == 130
    text = log.read_text(encoding="utf-8")
    assert f"Game interrupted (SIGINT): {record}" in text
    assert f"Resume it with: kseri play --resume {record}" in text
    saved = load_record(record)
    assert saved["complete"] is False
    played = sum(len(r["plays"]) for r in saved["rounds"])
    assert played >= 10  # five of ours, and the bot's answers
    before = match_from_record(saved)
    hand_size = len(before.view(0).hand)

    resumed = run_kseri(["play", "--plain", "--resume", str(record)], kseri_env, "1\n" * 600)
    assert resumed.returncode == 0, resumed.stderr
    first_hand = re.search(r"Your hand: (.*)", resumed.stdout)
    assert first_hand and first_hand.group(1).count(")") == hand_size
    assert "wins the match" in resumed.stdout or "You win the match" in resumed.stdout
    finished = load_record(record)
    assert finished["complete"] is True
    assert finished["rounds"][0]["plays"][:played] == [
        play for r in saved["rounds"] for play in r["plays"]
    ][:played]


def test_bad_options_are_refused_clearly(kseri_env: dict[str, str]) -> None:
    seats = run_kseri(["play", "--plain", "--seats", "you,wizard"], kseri_env)
    assert seats.returncode == 2
    assert "unknown seat 'wizard' in --seats: use 'you' or a bot level (random, greedy" in seats.stderr
    count = run_kseri(["play", "--plain", "--rules", "partnership", "--seats", "you,greedy"], kseri_env)
    assert "--seats names 2 seat(s) but these rules have 4 players" in count.stderr
    rules = run_kseri(["play", "--plain", "--rules", "greek,jack_kseri=abc"], kseri_env)
    assert "jack_kseri must be a whole number" in rules.stderr
    missing = run_kseri(["play", "--plain", "--resume", "/nonexistent/game.json"], kseri_env)
    assert missing.returncode == 2 and "cannot read /nonexistent/game.json" in missing.stderr


def test_partners_and_three_players_play_whole_matches(kseri_env: dict[str, str]) -> None:
    four = run_kseri(["play", "--plain", "--rules", "partnership,target=31", "--seed", "1",
                      "--seats", "greedy,you,random,greedy"], kseri_env, "1\n" * 800)
    assert four.returncode == 0, four.stderr
    assert "You (seat 1), Greedy (seat 0)" not in four.stdout
    assert "Greedy (seat 0), You (seat 1), Random (seat 2), Greedy 2 (seat 3)" in four.stdout
    assert "   You & Greedy 2: " in four.stdout and "   Greedy & Random: " in four.stdout
    assert "the match" in four.stdout
    three = run_kseri(["play", "--plain", "--rules", "three-player,target=31", "--seed", "2",
                       "--level", "random"], kseri_env, "1\n" * 800)
    assert three.returncode == 0, three.stderr
    assert "Cards in hand: Random 4, Random 2 4." in three.stdout
