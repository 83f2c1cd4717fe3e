"""The plain (line-by-line) mode, driven as a user would: a subprocess reading stdin."""

from __future__ import annotations

import io
import json
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kseri.cards import ALL_CARDS
from kseri.cli import app
from kseri.engine import Match, View, random_round
from kseri.records import append_record, load_record, match_from_record, record_from_match
from kseri.rules import Rules
from kseri.tui.plain import PlainGame
from kseri.tui.replay import ReplayError, print_replay, replay_steps
from kseri.tui.session import GameSession

Run = Callable[..., subprocess.CompletedProcess[str]]
FAST = ["--rules", "greek,target=51", "--level", "greedy", "--seed", "3"]


def test_a_whole_match_is_played_scored_and_recorded(tmp_path: Path, run_kseri: Run) -> None:
    record = tmp_path / "match.json"
    done = run_kseri(["play", "--plain", *FAST, "--record", str(record)], "1\n" * 600)
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
    shown = run_kseri(["show", "--plain", str(record)])
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.count(": Greedy deals.") + shown.stdout.count(": You deal") >= 1
    assert f"{winner} won the match." in shown.stdout
    again = run_kseri(["play", "--plain", "--resume", str(record)])
    assert again.returncode == 2
    assert f"the match in {record} is over; replay it with: kseri show {record}" in again.stderr


def first_turn(spec: str, seed: int) -> View:
    """What the player sees at their first turn of a match (the bots play first if due)."""
    session = GameSession.start(Rules.from_spec(spec), ("you", "greedy"), seed)
    while session.state == "bot":
        session.play_bot(session.choose_bot())
    return session.view()


def test_the_centre_line_counts_the_cards_in_the_centre(run_kseri: Run) -> None:
    """The dealer's opponent leads onto the dealt centre (4 cards; Pisti's 3 of them face down):
    the state line then counts 5 cards, the one led on top."""
    for rules, face_down in (("greek", ""), ("pisti", " (3 face down)")):
        done = run_kseri(["play", "--plain", "--rules", rules, "--level", "greedy", "--seed", "3"], "q\n")
        assert done.returncode == 0, done.stderr
        led = re.search(r"Greedy plays (\S+) on ", done.stdout)
        assert led, done.stdout
        assert f"-- Round 1. Centre: 5 cards, {led[1]} on top{face_down}. Stock: " in done.stdout


def test_bad_input_is_explained_and_the_game_goes_on(run_kseri: Run, kseri_env: dict[str, str]) -> None:
    view = first_turn("greek,target=51", 3)
    hand = view.hand
    absent = next(card for card in ALL_CARDS if card not in hand)
    named = str(hand[2]).lower()  # e.g. "td" for the 10♦
    answers = ["xx", "9", "", "zz9", "m", "h", str(absent), named]
    done = run_kseri(["play", "--plain", *FAST], "\n".join(answers) + "\n")
    out = done.stdout
    assert "Not played: 'xx' is not a card: ranks are 2-10, T, J, Q, K, A" in out
    assert "There is no card 9: your hand has 6 (1-6)." in out
    assert "Please choose a card" in out
    seen = len(view.centre_dealt) + len(view.plays)  # the memory aid: the centre as dealt and the plays
    assert f"Seen this round ({seen} cards):" in out
    hint = re.search(r"Hint, best first \(points the master expects for your side over the others\): (.*)",
                     out)
    assert hint
    assert sorted(re.findall(r"(\S+) [+-]\d+\.\d", hint.group(1))) == sorted(c.pretty() for c in hand)
    assert f"Not played: {absent.pretty()} is not in your hand ({' '.join(c.pretty() for c in hand)})" in out
    assert f"You play {hand[2].pretty()} on " in out
    # End of input quits and saves the unfinished game in the data folder.
    saved = re.search(r"Game stopped: (.+)\nResume it with: kseri play --resume (.+)\n", out)
    assert saved, out
    path = Path(saved.group(1))
    assert path.is_relative_to(Path(kseri_env["XDG_DATA_HOME"]))
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["complete"] is False and record["names"] == ["you", "greedy"]
    with pytest.raises(ReplayError, match=r"is not over \(hands stay hidden until it is\)"):
        replay_steps(path)


def test_an_interrupted_game_resumes_where_it_stopped(
    tmp_path: Path, run_kseri: Run, kseri_env: dict[str, str]
) -> None:
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

    # Without --plain: standard input is a pipe, so the plain mode is chosen by itself.
    resumed = run_kseri(["play", "--resume", str(record)], "1\n" * 600)
    assert resumed.returncode == 0, resumed.stderr
    first_hand = re.search(r"Your hand: (.*)", resumed.stdout)
    assert first_hand and first_hand.group(1).count(")") == hand_size
    assert "wins the match" in resumed.stdout or "You win the match" in resumed.stdout
    finished = load_record(record)
    assert finished["complete"] is True
    assert finished["rounds"][0]["plays"][:played] == [
        play for r in saved["rounds"] for play in r["plays"]
    ][:played]


def test_bad_options_are_refused_clearly() -> None:
    runner = CliRunner()
    seats = runner.invoke(app, ["play", "--plain", "--seats", "you,wizard"])
    assert seats.exit_code == 2
    assert "unknown seat 'wizard' in --seats: use 'you' or a bot level (random, expert-5" in seats.output
    count = runner.invoke(app, ["play", "--plain", "--rules", "partnership", "--seats", "you,greedy"])
    assert "--seats names 2 seat(s) but these rules have 4 players" in count.output
    twice = runner.invoke(app, ["play", "--plain", "--seats", "you,you"])
    assert "--seats must name 'you' exactly once" in twice.output
    rules = runner.invoke(app, ["play", "--plain", "--rules", "greek,jack_kseri=abc"])
    assert "jack_kseri must be a whole number" in rules.output
    missing = runner.invoke(app, ["play", "--plain", "--resume", "/nonexistent/game.json"])
    assert missing.exit_code == 2 and "cannot read /nonexistent/game.json" in missing.output


def play_plain(session: GameSession, answers: str) -> str:
    """Run the plain mode in this process on text streams; what it printed."""
    out = io.StringIO()
    assert PlainGame(session, out=out, inp=io.StringIO(answers)).run() == 0
    return out.getvalue()


def test_partners_and_three_players_play_whole_matches(tmp_path: Path) -> None:
    four = GameSession.start(Rules.from_spec("partnership,target=31"), ("greedy", "you", "random", "greedy"),
                             1, record_path=tmp_path / "four.json")
    text = play_plain(four, "1\n" * 800)
    assert "Greedy (seat 0), You (seat 1), Random (seat 2), Greedy 2 (seat 3)" in text
    assert "   You & Greedy 2: " in text and "   Greedy & Random: " in text
    assert four.state == "match-over" and "the match, " in text
    three = GameSession.start(Rules.from_spec("three-player,target=31"), ("you", "random", "random"), 2,
                              record_path=tmp_path / "three.json")
    text = play_plain(three, "1\n" * 800)
    assert "Cards in hand: Random 4, Random 2 4." in text
    assert three.state == "match-over" and "the match, " in text


def test_show_picks_one_match_of_a_records_file(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    winners = []
    for seed in (1, 2):
        match, rng = Match(Rules.from_spec("greek,target=40"), seed=seed), random.Random(seed)
        while True:
            random_round(match, rng)
            if match.is_over():
                break
            match.next_round()
        winners.append(match.winner)
        append_record(path, record_from_match(match))
    out = io.StringIO()
    print_replay(replay_steps(path, 2), out)
    text = out.getvalue()
    assert text.startswith("Round 1: Seat ") and f"Seat {(winners[1] or 0) + 1} won the match." in text
    with pytest.raises(ReplayError, match="holds 2 record\\(s\\); choose one with --number 1 to 2"):
        replay_steps(path, 3)


class Player(io.StringIO):
    """Standard input that plays the first card, and says yes to one more match only."""

    def __init__(self, out: io.StringIO) -> None:
        super().__init__()
        self.out = out
        self.offers = 0

    def readline(self, size: int | None = -1) -> str:
        if self.out.getvalue().endswith("Play again? [y/N]: "):
            self.offers += 1
            return "y\n" if self.offers == 1 else "n\n"
        return "1\n"


def test_another_match_after_the_first(tmp_path: Path) -> None:
    record = tmp_path / "first.json"
    session = GameSession.start(Rules.from_spec("greek,target=30"), ("you", "greedy"), 3, record_path=record)
    out = io.StringIO()
    game = PlainGame(session, out=out, inp=Player(out))
    assert game.run() == 0
    text = out.getvalue()
    assert text.count("Play again? [y/N]: ") == 2 and text.count("kseri: greek rules, You (seat 0)") == 2
    again = tmp_path / "first-again-2.json"
    assert f"The record is saved in {again}" in text
    assert load_record(record)["complete"] and load_record(again)["complete"]
    assert load_record(record)["seed"] != load_record(again)["seed"]
