"""``kseri serve --certfile/--keyfile``: HTTPS and WSS served directly, with a self-signed
certificate made here by Debian's ``openssl``: a request and a sign-up (its cookie Secure), a
whole match over WSS, and Chromium loading the page and playing over TLS."""

from __future__ import annotations

import asyncio
import os
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import websockets
from serverkit import LAX, START_TIMEOUT, Client, bot, finished, free_port, human


@dataclass(frozen=True)
class Certificate:
    cert: Path
    key: Path

    def context(self) -> ssl.SSLContext:
        """A client context that trusts this certificate alone."""
        return ssl.create_default_context(cafile=str(self.cert))


@dataclass
class TlsServer:
    port: int
    process: subprocess.Popen[bytes]
    printed: str

    @property
    def https(self) -> str:
        return f"https://127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    """A self-signed certificate for 127.0.0.1 (and localhost), valid for a day."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert),
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)
    return Certificate(cert, key)


@pytest.fixture(scope="module")
def server(certificate: Certificate, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsServer]:
    folder = tmp_path_factory.mktemp("tls-server")
    port = free_port()
    log_path = folder / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "kseri", "serve", "--port", str(port),
             "--db", f"sqlite+aiosqlite:///{folder / 'kseri.db'}", "--bot-delay", "0", "--limits", LAX,
             "--certfile", str(certificate.cert), "--keyfile", str(certificate.key)],
            env=dict(os.environ), stdout=log, stderr=subprocess.STDOUT)
    started = TlsServer(port, process, "")
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            pytest.fail(f"kseri serve exited with {process.returncode}: {log_path.read_text()}")
        try:
            if httpx.get(f"{started.https}/api/rules", verify=certificate.context(), timeout=1).is_success:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"kseri serve did not answer over https in {START_TIMEOUT:g} s: "
                        f"{log_path.read_text()}")
        time.sleep(0.1)
    started.printed = log_path.read_text()
    yield started
    process.terminate()
    process.wait(10)


def test_https_serves_the_api_and_a_secure_session_cookie(server: TlsServer,
                                                          certificate: Certificate) -> None:
    assert f"kseri server: open https://127.0.0.1:{server.port}/" in server.printed
    with httpx.Client(base_url=server.https, verify=certificate.context(), timeout=30) as client:
        page = client.get("/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        account = {"username": "Eleni", "password": "correct horse battery", "seats": []}
        signed_up = client.post("/api/account/signup", json=account)
        assert signed_up.status_code == 201, signed_up.text
        cookie = signed_up.headers["set-cookie"]
        assert cookie.startswith("kseri_session=") and "Secure" in cookie and "HttpOnly" in cookie
    with pytest.raises(httpx.HTTPError):  # the certificate is checked: not trusted, refused
        httpx.get(f"{server.https}/api/rules", timeout=10)
    with pytest.raises(httpx.HTTPError):  # plain HTTP is not served on a TLS port
        httpx.get(f"http://127.0.0.1:{server.port}/api/rules", timeout=10)


def test_a_match_plays_over_wss(server: TlsServer, certificate: Certificate) -> None:
    created = httpx.post(f"{server.https}/api/tables", verify=certificate.context(), timeout=30,
                         json={"rules": "greek,target=20", "seats": [human(), bot()]}).json()

    async def play() -> dict[str, object]:
        url = f"wss://127.0.0.1:{server.port}/ws/tables/{created['table']['id']}"
        connection = await websockets.connect(url, ssl=certificate.context(),
                                              origin=websockets.Origin(server.https))
        client = Client(connection, created["token"])
        await client.send({"type": "hello", "protocol": 1, "token": created["token"]})
        welcome = await client.expect("welcome")
        client.seat = welcome["seat"]
        final = await client.play_until(finished, timeout=120)
        await client.close()
        return final

    final = asyncio.run(play())
    assert final["table"]["status"] == "finished"  # type: ignore[index]


@pytest.mark.browser
def test_chromium_loads_the_page_and_plays_over_tls(server: TlsServer) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                          args=["--no-sandbox", "--disable-gpu"])
        try:
            context = chromium.new_context(ignore_https_errors=True, locale="en-GB")
            page = context.new_page()
            page.goto(f"{server.https}/")
            assert page.evaluate("location.protocol") == "https:"
            page.fill("#player-name", "Eleni")
            page.check("#opponents-bots")
            page.click("#create-game")
            page.wait_for_url(f"{server.https}/t/*")
            expect(page.locator(".hand .card-button").first).to_be_visible(timeout=30_000)
            seq = int(page.locator(".table-screen").get_attribute("data-seq") or 0)
            page.locator(".table-screen.my-turn .hand .card-button").first.click(timeout=30_000)
            page.wait_for_function("seq => Number(document.querySelector('.table-screen').dataset.seq) > seq",
                                   arg=seq, timeout=30_000)
        finally:
            chromium.close()


def test_a_certificate_without_its_key_or_a_bad_one_stops_the_start(certificate: Certificate,
                                                                     tmp_path: Path) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}"
    serve = [sys.executable, "-m", "kseri", "serve", "--db", database, "--port", str(free_port())]
    alone = subprocess.run([*serve, "--certfile", str(certificate.cert)], capture_output=True, text=True,
                           timeout=60)
    assert alone.returncode == 2
    assert "--certfile and --keyfile go together" in alone.stderr
    bogus = tmp_path / "bogus.pem"
    bogus.write_text("not a certificate")
    bad = subprocess.run([*serve, "--certfile", str(bogus), "--keyfile", str(certificate.key)],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert f"cannot serve TLS with the certificate {bogus}" in bad.stderr
