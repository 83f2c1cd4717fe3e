"""Bench tests run real subprocesses (engines, workers, the CLI): they import this checkout."""

import os
from pathlib import Path

import pytest

import kseri

SOURCE = Path(kseri.__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def kseri_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Subprocesses import this checkout's kseri, installed or not."""
    paths = [str(SOURCE), os.environ.get("PYTHONPATH")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, paths)))
