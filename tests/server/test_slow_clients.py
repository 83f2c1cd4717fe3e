"""Issue 19, attacker finding 2 and 6: slow clients cannot take every file descriptor, and an
operator sees them try (server/guard.py). Real servers on loopback, real sockets."""

from __future__ import annotations

import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from serverkit import Server

PARTIAL = b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\n"
"""A request's first lines, its headers never finished."""


def slow_client(port: int, source: str) -> socket.socket:
    """A connection from ``source`` that sent the start of a request and no more."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=60, source_address=(source, 0))
    sock.sendall(PARTIAL)
    return sock


def answer_of(sock: socket.socket) -> bytes:
    """Everything the server sent until it closed the connection (generous wait)."""
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


def metric(server: Server, name: str) -> float:
    """The value of one metric line (name with its labels) in ``/metrics``."""
    for line in httpx.get(server.http + "/metrics", timeout=30).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise AssertionError(f"{name} is not in /metrics")


def wait_for(condition: object, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"waited {timeout} s for {what}")


def test_slow_headers_are_cut_off_and_one_address_is_held_to_its_ceiling(tmp_path: Path) -> None:
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}",
                    {"--limits": "http_connections_per_address=8,header_timeout=3"}).start()
    try:
        held = [slow_client(server.port, "127.0.0.5") for _ in range(8)]
        wait_for(lambda: metric(server, 'kseri_http_refused_total{reason="per-address"}') == 0
                 and len(held) == 8, "the server to answer /metrics")
        # the ninth from that address is refused at once, with a reason (read before it sends
        # anything: closing on unread bytes would reset the connection, the answer unread)
        ninth = socket.create_connection(("127.0.0.1", server.port), 60, ("127.0.0.5", 0))
        assert answer_of(ninth).startswith(b"HTTP/1.1 503")
        # meanwhile the honest are served: another address, and the operator's /metrics
        assert httpx.get(server.http + "/api/rules", timeout=30).status_code == 200
        assert metric(server, 'kseri_http_refused_total{reason="per-address"}') == 1
        # the held connections are cut off once their headers are late
        for sock in held:
            assert answer_of(sock).startswith(b"HTTP/1.1 408")
        assert metric(server, 'kseri_http_refused_total{reason="header-timeout"}') == 8
        # and the address may connect again
        again = socket.create_connection(("127.0.0.1", server.port), 30, ("127.0.0.5", 0))
        again.sendall(PARTIAL + b"\r\n")
        assert answer_of_first_response(again).startswith(b"HTTP/1.1 200")
        log = server.output()
        assert "refusing HTTP connections from 127.0.0.5" in log
        assert "http_connections_per_address" in log and "header_timeout" in log
    finally:
        server.stop()


def answer_of_first_response(sock: socket.socket) -> bytes:
    """The status line and headers of the first response on a kept-alive connection."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(4096)
        if not chunk:
            break
        received += chunk
    sock.close()
    return received


def test_the_descriptor_limit_is_raised_at_start_and_shown(tmp_path: Path) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert hard > 256, "the test machine's hard limit leaves nothing to raise"
    raised = hard if hard != resource.RLIM_INFINITY else 1 << 20
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}", descriptors=(256, hard)).start()
    try:
        assert f"raised from 256 to {min(raised, 1 << 20)}" in server.output()
        assert metric(server, "kseri_descriptor_limit") == min(raised, 1 << 20)
        assert 0 < metric(server, "kseri_descriptors_open") < 256
    finally:
        server.stop()


def test_a_server_out_of_descriptors_says_so_and_recovers(tmp_path: Path) -> None:
    """With the limit fixed low (soft = hard, nothing to raise) and slow clients from many
    addresses holding every descriptor, the server logs it and counts it; once they are gone,
    it serves again."""
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}",
                    {"--limits": "http_connections_per_address=40,header_timeout=30"},
                    descriptors=(150, 150)).start()
    try:
        held = []
        for number in range(200):  # 40 an address: the ceiling per address is not what stops them
            try:
                held.append(slow_client(server.port, f"127.0.3.{1 + number // 40}"))
            except OSError:
                break
        wait_for(lambda: "descriptors open: new connections are refused" in server.output(),
                 "the server to log that it is out of descriptors")
        for sock in held:
            sock.close()
        wait_for(lambda: _serves(server), "the server to serve again")
        assert metric(server, "kseri_descriptors_exhausted_total") >= 1
        assert metric(server, "kseri_descriptor_limit") == 150
    finally:
        server.stop()


def _serves(server: Server) -> bool:
    try:
        return httpx.get(server.http + "/api/rules", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def test_a_port_out_of_range_is_refused_before_anything_starts() -> None:
    """Newcomer finding 8: ``--port 99999`` printed that address and listened elsewhere."""
    done = subprocess.run([sys.executable, "-m", "kseri", "serve", "--port", "99999"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "--port" in done.stderr and "65535" in done.stderr
    assert "open http" not in done.stdout
