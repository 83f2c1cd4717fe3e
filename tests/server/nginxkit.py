"""A real nginx (``scripts/nginx``: Debian's package) on a loopback port, balancing round-robin
over ``kseri serve`` processes, for the tests; a missing nginx fails the test, never skips it."""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import serverkit
from serverkit import free_port

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "nginx"


@dataclass
class Nginx:
    """``scripts/nginx`` started in a folder of its own, in front of ``upstreams`` (ports)."""

    upstreams: list[int]
    port: int = field(default_factory=free_port)
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="kseri-nginx-",
                                                                       dir=serverkit.SCRATCH)))

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws(self, table_id: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/tables/{table_id}"

    def _run(self, *args: str) -> str:
        env = dict(os.environ, KSERI_NGINX_PORT=str(self.port), KSERI_NGINX_DIR=str(self.folder))
        done = subprocess.run([str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            raise RuntimeError(f"scripts/nginx {args[0]} failed ({done.returncode}): {done.stderr}")
        return done.stdout

    def start(self) -> Nginx:
        self._run("start", *map(str, self.upstreams))
        return self

    def stop(self) -> None:
        self._run("stop")

    def error_log(self) -> str:
        """What nginx has logged (its errors and warnings)."""
        path = self.folder / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""
