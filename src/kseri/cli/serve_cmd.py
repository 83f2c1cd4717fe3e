"""``kseri serve``: run the game server."""

from __future__ import annotations

import contextlib
import errno
import gc
import socket
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kseri.cli.command import app

if TYPE_CHECKING:  # the server's modules load when a server starts, not with every command
    from fastapi import FastAPI

    from kseri.server import ServerSettings
    from kseri.server.guard import GuardedServer
    from kseri.server.limits import Limits

SWITCH_INTERVAL = 0.0005
"""Seconds a thread may hold the interpreter while another waits for it, in a server."""
FULL_PASS_EVERY = 30.0
"""Seconds between the server's full passes of the cycle collector (:func:`collect_on_a_clock`)."""


@app.command("serve")
def serve_command(
    host: str = typer.Option("127.0.0.1", help="Address to listen on (0.0.0.0: every interface)."),
    port: int = typer.Option(8000, min=0, max=65535, help="Port to listen on (0 to 65535)."),
    db: str = typer.Option(
        None, "--db", help="Database URL, e.g. postgresql+asyncpg://user@host/kseri "
        "(default: $KSERI_DATABASE_URL, else SQLite in the user's data folder)."),
    bot_delay: float = typer.Option(0.8, help="Seconds a bot waits before playing."),
    grace: float = typer.Option(
        60.0, help="Seconds an absent player keeps their seat before a bot plays for them."),
    ready_timeout: float = typer.Option(30.0, help="Seconds to wait for players' ready before dealing."),
    limits: str = typer.Option(
        "", help="Bounds on what one client may ask, changed from their defaults: "
        "'rate=20,tables_per_minute=20,max_body=65536' (every limit: docs/server.md)."),
    allow_origin: Annotated[list[str] | None, typer.Option(
        help="Another origin whose pages may connect (repeatable; '*' for any). The server's "
        "own origin always may.")] = None,
    bot_offer: float = typer.Option(
        20.0, help="Seconds a quick-game seek waits for an opponent before a bot is offered."),
    rated_talk: bool = typer.Option(
        True, "--rated-talk/--no-rated-talk", help="Whether players may say table-talk phrases "
        "in rated games (casual tables always allow them; docs/server.md)."),
    redis: str = typer.Option(
        None, "--redis", help="Run as one process of a cluster: the Redis its processes share, e.g. "
        "redis://127.0.0.1:6379/0 (default: $KSERI_REDIS_URL; none: a single process). Needs a "
        "PostgreSQL --db (docs/server.md, Cluster)."),
    lease: float = typer.Option(
        4.0, help="In a cluster: seconds a process holds a table without renewing its lease."),
    puzzle_cuts: float = typer.Option(
        2.0, min=0, help="Finished games a minute, at most, cut into puzzles in the background "
        "(analysed too; 0: none; docs/analysis.md)."),
    trusted_proxy: Annotated[list[str] | None, typer.Option(
        help="The address of a reverse proxy in front (repeatable): only its X-Forwarded-For and "
        "X-Forwarded-Proto are believed, and it is exempt from the per-address connection "
        "ceiling. Without one, forwarded headers are ignored (docs/server.md).")] = None,
    certfile: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False, help="Serve HTTPS and WSS with this certificate (PEM, its chain "
        "after it); needs --keyfile. The session cookie is then Secure.")] = None,
    keyfile: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False, help="The certificate's private key (PEM, unencrypted).")] = None,
    log_level: str = typer.Option("warning", help="uvicorn's log level."),
    schedule: Annotated[list[str] | None, typer.Option(
        "--schedule", help="A tournament the server creates at its time (UTC), repeatable: "
        "'daily 18:00 greek swiss 5' or 'weekly sun 17:00 pisti duplicate 4' "
        "(PERIOD [DAY] HH:MM RULES FORMAT ROUNDS).")] = None,
) -> None:
    """Start the game server (HTTP, WebSocket and the web page) and print the address to open."""
    import os

    from kseri.server import ServerSettings, create_app, default_database_url
    from kseri.server.guard import raise_descriptor_limit
    from kseri.server.limits import Limits
    from kseri.server.settings import REDIS_ENV

    try:
        bounds = Limits.from_spec(limits)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--limits") from None
    from kseri.server.schedule import parse_schedule

    try:
        parse_schedule(schedule or [])
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--schedule") from None
    settings = ServerSettings(database_url=db or default_database_url(), bot_delay=bot_delay,
                              grace=grace, ready_timeout=ready_timeout,
                              limits=bounds,
                              allowed_origins=tuple(allow_origin or ()), bot_offer=bot_offer,
                              rated_talk=rated_talk,
                              redis_url=redis or os.environ.get(REDIS_ENV) or None, lease=lease,
                              puzzle_cuts=puzzle_cuts, schedule=tuple(schedule or ()))
    tls = _tls_and_listening(settings, certfile, keyfile, host, port)
    _check_services(settings)
    shown_host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    shown_cluster = "" if settings.redis_url is None else f", cluster through {_safe(settings.redis_url)}"
    scheme = "https" if tls else "http"
    typer.echo(f"kseri server: open {scheme}://{shown_host}:{port}/  "
               f"(database: {_safe(settings.database_url)}{shown_cluster})")
    before, after = raise_descriptor_limit()
    if after > before:
        typer.echo(f"kseri server: open descriptors allowed raised from {before} to {after}")
    server = _guarded_server(create_app(settings), bounds, tuple(trusted_proxy or ()),
                             host=host, port=port, log_level=log_level, **tls)
    # the application, its routes and models, and uvicorn's protocols live as long as the
    # process: out of the cycle collector's sight, its full passes walk the live tables alone
    gc.collect()
    gc.freeze()
    collect_on_a_clock(FULL_PASS_EVERY)
    # the database writer's thread takes the interpreter back within half a millisecond of
    # asking, not the default 5 ms: a commit asks several times, and every play waits for one
    sys.setswitchinterval(SWITCH_INTERVAL)
    with contextlib.suppress(KeyboardInterrupt):  # raised again by uvicorn once it has stopped
        server.run()
    if not server.started:
        raise typer.Exit(1)


def _tls_and_listening(settings: ServerSettings, certfile: Path | None, keyfile: Path | None,
                       host: str, port: int) -> dict[str, str]:
    """uvicorn's TLS arguments; exit with the reason where the settings cannot run a cluster,
    the certificate and key do not go together, or the address cannot be listened on."""
    problem = settings.cluster_problem() or _tls_problem(certfile, keyfile)
    if problem:
        typer.echo(f"kseri serve: {problem}", err=True)
        raise typer.Exit(2)
    problem = _cannot_listen(host, port)
    if problem:
        typer.echo(f"error: cannot listen on {host}:{port}: {problem}", err=True)
        raise typer.Exit(2)
    return {} if certfile is None else {"ssl_certfile": str(certfile), "ssl_keyfile": str(keyfile)}


def _check_services(settings: ServerSettings) -> None:
    """Exit with the reason unless the database (and, in a cluster, Redis) answers."""
    import asyncio

    from kseri.server.db import DatabaseUnavailable
    from kseri.server.registry import open_store

    async def check() -> None:
        await (await open_store(settings)).close()
        if settings.redis_url is not None:
            from kseri.server.cluster import check_redis

            await check_redis(settings.redis_url)

    try:
        asyncio.run(check())
    except DatabaseUnavailable as error:
        typer.echo(f"kseri serve: {error}", err=True)
        raise typer.Exit(1) from None


def _guarded_server(application: FastAPI, limits: Limits, proxies: tuple[str, ...],
                    **options: Any) -> GuardedServer:
    """uvicorn serving ``application`` under the connection guard (``server/guard.py``), with
    forwarded headers believed from ``proxies`` alone, loaded and ready to run."""
    import uvicorn

    from kseri.server.guard import ConnectionGuard, GuardedServer

    guard = ConnectionGuard(limits, application.state.metrics, proxies)
    config = uvicorn.Config(application, http=guard.protocol(), proxy_headers=bool(proxies),
                            forwarded_allow_ips=list(proxies), ws_max_size=1 << 20, ws_ping_interval=20,
                            ws_ping_timeout=20, ws_per_message_deflate=False, **options)
    config.load()
    return GuardedServer(config, guard)


def collect_on_a_clock(every: float) -> None:
    """Make the cycle collector's full passes come every ``every`` seconds, from a thread of
    their own, instead of at the collector's trigger (the younger generations stay as they are).

    Under load the trigger fires every few seconds and each full pass holds the whole process
    for 30 to 120 ms, a pause every play in flight waits out; on a clock the pauses are rare and
    the cyclic garbage of ``every`` seconds waits for its pass (docs/scaling.md)."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 2**31 - 1)

    def collect() -> None:
        while True:
            time.sleep(every)
            passes = gc.get_stats()[-1]["collections"]
            gc.collect()
            # a collect() that finds another pass running (a younger one that let this thread
            # in while a finalizer ran) returns at once, having done nothing: ask again
            while gc.get_stats()[-1]["collections"] == passes:
                time.sleep(0.001)
                gc.collect()

    threading.Thread(target=collect, name="full-collection", daemon=True).start()


def _tls_problem(certfile: Path | None, keyfile: Path | None) -> str | None:
    """Why these files cannot serve TLS (one given without the other, or they do not load as
    a certificate and its key), or ``None``."""
    import ssl

    if certfile is None and keyfile is None:
        return None
    if certfile is None or keyfile is None:
        return "--certfile and --keyfile go together: give both, or neither for plain HTTP"
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(certfile, keyfile)
    except (ssl.SSLError, OSError) as error:
        return (f"cannot serve TLS with the certificate {certfile} and the key {keyfile} "
                f"({getattr(error, 'reason', None) or error}); check that they are PEM files "
                "and belong together")
    return None


def _safe(url: str) -> str:
    """The URL without its password."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _cannot_listen(host: str, port: int) -> str | None:
    """Why the server could not listen on ``host:port`` (checked before printing an address
    that might be someone else's server), or ``None``."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as error:
        return f"unknown host {host!r} ({error.strerror}); check --host"
    with socket.socket(family, kind, proto) as probe:
        # as uvicorn binds: a port left in TIME_WAIT (a server just stopped) is free to use,
        # one another program listens on is not
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return (f"port {port} is in use (another kseri server, or another program); "
                        f"choose another with --port, e.g. --port {port + 1}")
            if error.errno == errno.EACCES:
                return f"port {port} needs special rights here; choose another with --port, e.g. --port 8000"
            return f"{error.strerror}; check --host and --port"
    return None
