"""Issue 19, attacker finding 4: the nginx configuration in docs/server.md works as written.

The test runs the documented block itself in Debian's nginx (its listen address and upstream
changed, nothing else), with ``kseri serve --trusted-proxy 127.0.0.1`` behind it: a browser's
sign-up and WebSocket pass the origin checks, each client is counted at its own address, and
an ``X-Forwarded-For`` a client writes itself is never believed (through the proxy or around
it)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from serverkit import Server, free_port

DOCS = Path(__file__).resolve().parents[2] / "docs" / "server.md"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def documented_block() -> str:
    """The ```nginx block of docs/server.md that says it is kseri behind nginx."""
    blocks = re.findall(r"```nginx\n(.*?)```", DOCS.read_text(), re.S)
    found = [block for block in blocks if block.startswith("# kseri behind nginx")]
    assert len(found) == 1, "docs/server.md must hold one '# kseri behind nginx' block"
    return found[0]


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[tuple[str, Server]]:
    """The documented nginx on a free loopback port in front of a kseri server."""
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}", {
        "--trusted-proxy": "127.0.0.1", "--limits": "tables_per_minute=3,tables_burst=3"}).start()
    port = free_port()
    block = documented_block()
    assert "listen 80;" in block and "proxy_pass http://127.0.0.1:8000;" in block
    block = block.replace("listen 80;", f"listen 127.0.0.1:{port};")
    block = block.replace("proxy_pass http://127.0.0.1:8000;", f"proxy_pass http://127.0.0.1:{server.port};")
    folder = tmp_path / "nginx"
    folder.mkdir()
    (folder / "nginx.conf").write_text(f"""
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
{block}
}}
""")
    nginx = [NGINX, "-c", str(folder / "nginx.conf"), "-p", str(folder), "-e", str(folder / "error.log")]
    subprocess.run(nginx, check=True, timeout=30)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(url + "/readyz", timeout=5).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, (folder / "error.log").read_text()
        time.sleep(0.1)
    yield url, server
    subprocess.run([*nginx, "-s", "stop"], timeout=30)
    server.stop()


def client_from(source: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=20)


def created(client: httpx.Client, url: str, spoofed: str | None = None) -> int:
    """Tables ``client`` could open in a row (at most 30), each with ``spoofed`` as its own
    X-Forwarded-For when given."""
    count = 0
    for number in range(30):
        headers = {"x-forwarded-for": spoofed or f"203.0.113.{number}"} if spoofed != "" else {}
        answer = client.post(url + "/api/tables", json={"rules": "greek"}, headers=headers)
        if answer.status_code != 201:
            assert answer.status_code == 429, answer.text
            break
        count += 1
    return count


async def test_a_browser_signs_up_and_plays_through_the_documented_proxy(proxied: tuple[str, Server]) -> None:
    url, _ = proxied
    page = {"origin": url, "sec-fetch-site": "same-origin"}
    with client_from("127.0.0.21") as browser:
        signed = browser.post(url + "/api/account/signup", headers=page,
                              json={"username": "proxied", "password": "a long secret"})
        assert signed.status_code == 201, signed.text
        table = browser.post(url + "/api/tables", json={"rules": "greek", "seats": [
            {"kind": "human"}, {"kind": "bot", "level": "greedy"}]}, headers=page)
        assert table.status_code == 201, table.text
    ws_url = url.replace("http", "ws") + f"/ws/tables/{table.json()['table']['id']}"
    async with websockets.connect(ws_url, origin=url) as ws:  # type: ignore[arg-type]
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": table.json()["token"]}))
        assert json.loads(await ws.recv())["type"] == "welcome"


def test_each_client_is_counted_at_its_own_address_and_cannot_spoof_it(proxied: tuple[str, Server]) -> None:
    url, server = proxied
    # through the proxy: 30 creations each claiming another address meet one allowance (3)
    with client_from("127.0.0.22") as first:
        assert created(first, url) == 3
    # another client through the same proxy has its own allowance: the proxy's address is not
    # what is counted
    with client_from("127.0.0.23") as second:
        assert created(second, url, spoofed="") == 3
    # around the proxy, straight to the server: a forwarded header from a client that is not a
    # trusted proxy is ignored too
    with client_from("127.0.0.24") as direct:
        assert created(direct, server.http) == 3


def test_without_a_trusted_proxy_no_forwarded_header_is_believed(tmp_path: Path) -> None:
    """Before --trusted-proxy, uvicorn believed any loopback client's X-Forwarded-For: 30 of 30
    creations, each naming another address, were accepted."""
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}",
                    {"--limits": "tables_per_minute=3,tables_burst=3"}).start()
    try:
        with client_from("127.0.0.1") as local:
            assert created(local, server.http) == 3
    finally:
        server.stop()
