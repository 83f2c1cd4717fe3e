"""The full-screen app in a real pseudo-terminal: keys in, and a hang-up never loses the match."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from kseri.records import load_record, match_from_record


def read_until(fd: int, needle: bytes, seen: bytearray, timeout: float = 30) -> None:
    """Read the terminal's output until ``needle`` appears in it."""
    deadline = time.monotonic() + timeout
    while needle not in seen:
        assert time.monotonic() < deadline, f"{needle!r} never appeared on the screen"
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                seen.extend(os.read(fd, 65536))
            except OSError:
                break


def test_a_hang_up_saves_the_match_in_the_data_folder(kseri_env: dict[str, str]) -> None:
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = kseri_env | {"TERM": "xterm-256color"}
    game = subprocess.Popen(
        [sys.executable, "-m", "kseri", "play", "--level", "greedy", "--seed", "3", "--delay", "0"],
        stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True,
    )
    os.close(slave)
    screen = bytearray()
    try:
        read_until(master, b"Your turn", screen)
        os.write(master, b"1")
        read_until(master, b"You play", screen)
    finally:
        os.close(master)  # the terminal goes away, and its process is told so
        game.send_signal(signal.SIGHUP)
        try:
            game.wait(timeout=30)
        finally:
            if game.poll() is None:
                game.kill()
    assert game.returncode == 0  # it left by itself, having saved
    saved = list((Path(kseri_env["XDG_DATA_HOME"]) / "kseri" / "games").glob("*.json"))
    assert len(saved) == 1
    record = load_record(saved[0])
    assert record["complete"] is False and record["names"] == ["you", "greedy"]
    match = match_from_record(record)
    assert 0 in {play.seat for play in match.plays[0]}  # our play is in it


def test_ctrl_c_saves_and_prints_where(tmp_path: Path, kseri_env: dict[str, str]) -> None:
    record = tmp_path / "later.json"
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    game = subprocess.Popen(
        [sys.executable, "-m", "kseri", "play", "--seed", "4", "--level", "random", "--delay", "0",
         "--record", str(record)],
        stdin=slave, stdout=slave, stderr=slave, env=kseri_env | {"TERM": "xterm-256color"},
        start_new_session=True,
    )
    os.close(slave)
    screen = bytearray()
    try:
        read_until(master, b"Your turn", screen)
        os.write(master, b"\x03")  # Ctrl-C
        read_until(master, b"Resume it with: kseri play --resume", screen)
        assert game.wait(timeout=30) == 0
    finally:
        if game.poll() is None:
            game.kill()
        os.close(master)
    assert f"Game saved: {record}".encode() in screen
    assert load_record(record)["complete"] is False


def test_a_dumb_terminal_gets_the_plain_mode(kseri_env: dict[str, str]) -> None:
    master, slave = os.openpty()
    game = subprocess.Popen(
        [sys.executable, "-m", "kseri", "play", "--seed", "4", "--level", "random"],
        stdin=slave, stdout=slave, stderr=slave, env=kseri_env | {"TERM": "dumb"}, start_new_session=True,
    )
    os.close(slave)
    screen = bytearray()
    try:
        read_until(master, b"Your turn (1-6, a card, h, m, s, q): ", screen)
        os.write(master, b"q\n")
        read_until(master, b"Resume it with: kseri play --resume", screen)
        assert game.wait(timeout=30) == 0
    finally:
        if game.poll() is None:
            game.kill()
        os.close(master)
    assert b"\x1b[" not in screen  # no escape sequences: plain text only
