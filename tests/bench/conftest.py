"""Shared pieces of the bench tests: commands for real engine subprocesses."""

import os
import sys
from pathlib import Path

import pytest

import kseri

ENGINES = Path(__file__).parent / "engines"
SOURCE = Path(kseri.__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def kseri_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Subprocesses (engines, workers, the CLI) import this checkout's kseri."""
    paths = [str(SOURCE), os.environ.get("PYTHONPATH")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, paths)))


def kseri_engine(level: str) -> list[str]:
    """The command line of a built-in bot served over the engine protocol."""
    return [sys.executable, "-m", "kseri", "engine", "--level", level]


def misbehaving_engine(mode: str) -> list[str]:
    """The command line of the test engine that misbehaves as ``mode`` says."""
    return [sys.executable, str(ENGINES / "misbehaving_engine.py"), mode]
