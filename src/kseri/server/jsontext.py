"""JSON text built from parts already encoded: the server sends every connection a state
message of several kilobytes after each play, most of it the same for every seat and for many
plays in a row (the rules, the round's plays, the finished rounds' results); those parts are
turned into JSON once and spliced in, byte for byte what encoding the whole would give.

>>> spliced({"a": 1, "b": None, "c": [2]}, {"b": "[1,2]"})
'{"a":1,"b":[1,2],"c":[2]}'
"""

from __future__ import annotations

from typing import Any

from kseri.server.db import dumps


def spliced(data: dict[str, Any], texts: dict[str, str]) -> str:
    """``dumps(data)``, with the value of each key in ``texts`` replaced by that JSON text
    (keys keep ``data``'s order; a key of ``texts`` missing from ``data`` is not added)."""
    parts: list[str] = []
    run: dict[str, Any] = {}
    for key, value in data.items():
        text = texts.get(key)
        if text is None:
            run[key] = value
            continue
        if run:
            parts.append(dumps(run)[1:-1])
            run = {}
        parts.append(f"{dumps(key)}:{text}")
    if run:
        parts.append(dumps(run)[1:-1])
    return "{" + ",".join(parts) + "}"
