"""Writing trace logs: one ``{"stream", "request", "reply"}`` line per exchange.

The request written is the object the adapter read: the request line as sent, read by SPEC.md
1.4's rules (so a ``send_line`` with a repeated key or an unusual number spelling is logged as
the value it denotes).  A line that is not a JSON object - blank, malformed, an array, bytes
that are not UTF-8 - has no request object to log: it is skipped and counted (`skipped`).  Such
a line cannot change the world (PROTOCOL.md: it gets a ``Protocol`` reply and the world is
unchanged), so skipping it hides no state change from the checker, only that one reply.
"""

from __future__ import annotations

import json
from typing import IO, Any

from session_toolset_model.world.json_text import Malformed, parse_line

from ..conform.jsonio import encode_line

_ENCODE = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode


def request_object(data: bytes) -> dict[str, Any] | None:
    """The request object a line (without its newline) holds, or None if it holds none."""
    try:
        value = parse_line(data).value
    except Malformed:
        return None
    return value if isinstance(value, dict) else None


class TraceWriter:
    """Appends exchanges to an open text file as trace lines."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.lines = 0
        self.skipped = 0

    def write(self, stream: str | None, request: dict[str, Any], reply: object) -> None:
        line: dict[str, Any] = {} if stream is None else {"stream": stream}
        line["request"] = request
        line["reply"] = reply
        self.out.write(_ENCODE(line) + "\n")
        self.lines += 1

    def exchange(self, stream: str | None, sent: object, reply: object) -> None:
        """Log one request as sent (a request value or a ``RawLine``) and its reply.  A request
        object is logged as it is: ``trace`` reads it as its request line would be read."""
        if isinstance(sent, dict):
            request: dict[str, Any] | None = sent
        else:
            request = request_object(encode_line(sent)[:-1])
        if request is None:
            self.skipped += 1
        else:
            self.write(stream, request, reply)

    def note(self, path: object) -> str:
        skipped = f" ({self.skipped} lines that are not JSON objects skipped)" * bool(self.skipped)
        return f"recorded {self.lines} trace lines to {path}{skipped}"
