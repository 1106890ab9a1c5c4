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
import re
from collections.abc import Iterator
from typing import IO, Any, BinaryIO, TextIO

from session_toolset_model.world.json_text import MAX_DEPTH, Malformed, parse_line

from ..conform.jsonio import encode_line

_UNLIKE = re.compile(rb"-0|\\u[dD][89a-fA-F]|[0-9]{19}|[eE][+-]?[0-9]{3}")
_ENCODE = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode


def _refuse(name: str) -> object:
    raise ValueError(name)


def request_object(data: bytes) -> dict[str, Any] | None:
    """The request object a line (without its newline) holds, or None if it holds none.

    Python's reading is used for a line without anything where it differs from SPEC.md 1.4's
    (``-0``, a surrogate escape, a number that may lie out of range, deep nesting: these could
    sit in a value a repeated key discards, where Python drops them silently but they make the
    line malformed); SPEC.md 1.4's own reader decides every other line."""
    if _UNLIKE.search(data) is None and data.count(b"[") + data.count(b"{") <= MAX_DEPTH:
        try:
            value = json.loads(data.decode("utf-8"), parse_constant=_refuse)
        except (ValueError, RecursionError):
            pass
        else:
            return value if isinstance(value, dict) else None
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
            self.write(stream, sent, reply)
        else:
            self.exchange_line(stream, encode_line(sent)[:-1], reply)

    def exchange_line(self, stream: str | None, data: bytes, reply: object) -> None:
        """Log one request line as sent (its bytes, without the newline) and its reply."""
        request = request_object(data)
        if request is None:
            self.skipped += 1
        else:
            self.write(stream, request, reply)

    def note(self, path: object) -> str:
        skipped = f" ({self.skipped} lines that are not JSON objects skipped)" * bool(self.skipped)
        return f"recorded {self.lines} trace lines to {path}{skipped}"


class RecordedInput:
    """An adapter's stdin that remembers the last line handed out (`recording`)."""

    def __init__(self, source: BinaryIO) -> None:
        self._source = source
        self.last = b""

    def __iter__(self) -> Iterator[bytes]:
        for raw in self._source:
            self.last = raw.rstrip(b"\n").rstrip(b"\r")
            yield raw


class RecordedOutput:
    """An adapter's stdout that logs each reply line it is given with the request line the
    adapter read last (PROTOCOL.md: exactly one reply per line, written before the next read)."""

    def __init__(self, sink: TextIO, lines: RecordedInput, writer: TraceWriter) -> None:
        self._sink = sink
        self._lines = lines
        self._writer = writer

    def write(self, text: str) -> int:
        written = self._sink.write(text)
        self._writer.exchange_line(None, self._lines.last, json.loads(text))
        return written

    def flush(self) -> None:
        self._sink.flush()
        self._writer.out.flush()


def recording(
    stdin: BinaryIO, stdout: TextIO, writer: TraceWriter
) -> tuple[RecordedInput, RecordedOutput]:
    """Streams to run an adapter's serving loop on so that ``writer`` logs every exchange
    (``session-toolset adapter --record``): the implementation itself stays unaware."""
    lines = RecordedInput(stdin)
    return lines, RecordedOutput(stdout, lines, writer)
