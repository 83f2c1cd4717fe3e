"""``kseri serve``: run the game server."""

from __future__ import annotations

import typer

from kseri.cli import app


@app.command("serve")
def serve_command(
    host: str = typer.Option("127.0.0.1", help="Address to listen on (0.0.0.0: every interface)."),
    port: int = typer.Option(8000, help="Port to listen on."),
    db: str = typer.Option(
        None, "--db", help="Database URL, e.g. postgresql+asyncpg://user@host/kseri "
        "(default: $KSERI_DATABASE_URL, else SQLite in the user's data folder)."),
    bot_delay: float = typer.Option(0.8, help="Seconds a bot waits before playing."),
    grace: float = typer.Option(
        60.0, help="Seconds an absent player keeps their seat before a bot plays for them."),
    ready_timeout: float = typer.Option(30.0, help="Seconds to wait for players' ready before dealing."),
    rate: float = typer.Option(
        20.0, help="Messages a second one connection may send (twice as many at once)."),
    signup_limit: int = typer.Option(5, help="Accounts one address may create an hour."),
    signin_limit: int = typer.Option(
        10, help="Failed sign-ins an account may see in 15 minutes (an address: five times as many)."),
    bot_offer: float = typer.Option(
        20.0, help="Seconds a quick-game seek waits for an opponent before a bot is offered."),
    log_level: str = typer.Option("warning", help="uvicorn's log level."),
) -> None:
    """Start the game server (HTTP, WebSocket and the web page) and print the address to open."""
    import uvicorn

    from kseri.server import ServerSettings, create_app, default_database_url

    settings = ServerSettings(database_url=db or default_database_url(), bot_delay=bot_delay,
                              grace=grace, ready_timeout=ready_timeout, rate=rate, burst=2 * rate,
                              signup_limit=signup_limit, signin_limit=signin_limit, bot_offer=bot_offer)
    shown_host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    typer.echo(f"kseri server: open http://{shown_host}:{port}/  (database: {_safe(settings.database_url)})")
    uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level,
                ws_max_size=1 << 20, ws_ping_interval=20, ws_ping_timeout=20, ws_per_message_deflate=False)


def _safe(url: str) -> str:
    """The URL without its password."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
