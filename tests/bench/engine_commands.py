"""Command lines of real engine processes for the bench tests."""

import sys
from pathlib import Path

ENGINES = Path(__file__).parent / "engines"


def kseri_engine(level: str) -> list[str]:
    """The command line of a built-in bot served over the engine protocol."""
    return [sys.executable, "-m", "kseri", "engine", "--level", level]


def misbehaving_engine(mode: str) -> list[str]:
    """The command line of the test engine that misbehaves as ``mode`` says."""
    return [sys.executable, str(ENGINES / "misbehaving_engine.py"), mode]
