"""The game server (``kseri serve``): tables, seats and play over HTTP and WebSocket, kept
durable in SQLite or PostgreSQL. See ``docs/server.md`` and ``docs/protocol.md``."""

from kseri.server.app import create_app
from kseri.server.settings import ServerSettings, default_database_url

__all__ = ["ServerSettings", "create_app", "default_database_url"]
