"""Helpers for the terminal game's tests: running ``kseri`` as a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def kseri_env(tmp_path: Path) -> dict[str, str]:
    """The environment for ``python -m kseri``: this checkout first on the path, and a private
    data folder (where unfinished games are saved by default)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["PYTHONIOENCODING"] = "utf-8"
    return env


class Kseri:
    """Runs ``python -m kseri ARGS`` to its end with some standard input."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def __call__(self, args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "kseri", *args], input=stdin, env=self.env, capture_output=True,
            text=True, encoding="utf-8", timeout=60, check=False,
        )


@pytest.fixture
def run_kseri(kseri_env: dict[str, str]) -> Kseri:
    """``run_kseri(["play", "--plain"], "1\\n")``: the command's result, output as text."""
    return Kseri(kseri_env)
