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


def run_kseri(args: list[str], env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``python -m kseri ARGS`` to its end with ``stdin``."""
    return subprocess.run(
        [sys.executable, "-m", "kseri", *args], input=stdin, env=env, capture_output=True,
        text=True, encoding="utf-8", timeout=60, check=False,
    )
