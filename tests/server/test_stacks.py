"""``kill -USR2``: a running server writes where it is (every thread's stack and every asyncio
task's) and goes on serving."""

from __future__ import annotations

import asyncio

import httpx
from serverkit import Client, Server, human

from kseri.server.stacks import BEGIN, END


def test_sigusr2_dumps_threads_and_tasks_and_the_server_goes_on(sqlite_url: str) -> None:
    server = Server(sqlite_url).start()
    try:
        table = server.create([human("Ana"), human("Ben")])

        async def watched() -> str:
            client = await Client.connect(server, table["table"]["id"], table["token"])
            try:
                return await asyncio.to_thread(server.stacks)
            finally:
                await client.close()

        dump = asyncio.run(watched())
        assert BEGIN in dump and END in dump, dump
        threads, tasks = dump.split(BEGIN)
        assert "most recent call first" in threads and "serve_command" in threads  # faulthandler's
        assert "_write_forever" in tasks and "queues.py" in tasks  # the database writer, waiting
        handler = f"table {table['table']['id']}: a connection"  # named for its table
        assert handler in tasks and "kseri/server/wire.py" in tasks.split(handler)[1]
        assert httpx.get(server.http + "/api/rules", timeout=10).status_code == 200
        assert server.process is not None and server.process.poll() is None
    finally:
        server.stop()
