"""Where a running server is: ``kill -USR2 <pid>`` writes the stack of every thread and of every
asyncio task to standard error, between the lines :data:`BEGIN` and :data:`END`.

The threads' stacks are written by :mod:`faulthandler` from the signal handler itself, so they
come even when the event loop is held; the tasks' stacks are written by the event loop when it
next runs: each task's chain of awaits, down to what it waits for."""

from __future__ import annotations

import asyncio
import faulthandler
import re
import signal
import sys
from typing import Any, TextIO

BEGIN = "--- kseri: the stacks of every task ---"
END = "--- kseri: end of the stacks ---"


def awaits(awaitable: Any) -> list[str]:
    """A suspended coroutine's chain of awaits, outermost first: a line per frame, then what the
    innermost waits for (a future, a sleep) if that is not a coroutine itself."""
    lines = []
    while awaitable is not None:
        frame = getattr(awaitable, "cr_frame", None) or getattr(awaitable, "gi_frame", None) \
            or getattr(awaitable, "ag_frame", None)
        if frame is None:
            lines.append(f"    waiting for {awaitable!r:.300}")
            break
        path = re.sub(r"^.*/(site-packages|src|lib/python3\.\d+)/", "", frame.f_code.co_filename)
        lines.append(f"  {path}:{frame.f_lineno} in {frame.f_code.co_name}")
        awaitable = getattr(awaitable, "cr_await", None) or getattr(awaitable, "gi_yieldfrom", None) \
            or getattr(awaitable, "ag_await", None)
    return lines


def dump_tasks(out: TextIO) -> None:
    """Write every asyncio task of the running loop with its chain of awaits."""
    lines = [BEGIN]
    for task in sorted(asyncio.all_tasks(), key=lambda task: task.get_name()):
        lines.append(f"{task.get_name()} ({task.get_coro().__qualname__}):")  # type: ignore[union-attr]
        lines.extend(awaits(task.get_coro()))
    lines.append(END)
    out.write("\n".join(lines) + "\n")
    out.flush()


def dump_on_signal(loop: asyncio.AbstractEventLoop) -> None:
    """Dump threads and tasks to standard error on SIGUSR2 (in the loop's thread, at startup)."""
    loop.add_signal_handler(signal.SIGUSR2, dump_tasks, sys.stderr)
    faulthandler.register(signal.SIGUSR2, file=sys.stderr, all_threads=True, chain=True)
