"""The PROTOCOL.md v1 transport: one JSON request per line in, exactly one reply line out.

The loop never dies on input: a line that is not UTF-8, not JSON, not an object, names an
unknown op or carries a bad field gets a ``Protocol`` reply and leaves the world unchanged.
Replies are flushed before the next line is read, so a runner can pace requests one at a time.
"""

from __future__ import annotations

import json
import sys
import traceback
from typing import BinaryIO, TextIO

from ..errors import SessionToolsetError
from ..json_value import JsonInputError, JsonValue, parse_json
from .codec import encode_error
from .fields import ProtocolError, Request
from .ops import HANDLERS
from .world import World

__all__ = ["handle_line", "serve"]

Reply = dict[str, JsonValue]


def _protocol(message: str) -> Reply:
    return {"ok": False, "error": "Protocol", "message": message}


def handle_line(world: World, line: bytes) -> Reply:
    """The reply to one raw request line (without its newline)."""
    try:
        request = parse_json(line)
    except JsonInputError as err:
        return _protocol(f"request is not valid JSON: {err}")
    if not isinstance(request, dict):
        return _protocol("request must be a JSON object")
    op = request.get("op")
    if not isinstance(op, str):
        return _protocol('request needs a string field "op"')
    handler = HANDLERS.get(op)
    if handler is None:
        return _protocol("unknown op")
    try:
        fields = handler(world, Request(request))
    except ProtocolError as err:
        return _protocol(str(err))
    except SessionToolsetError as err:
        return encode_error(err)
    except (JsonInputError, ValueError, TypeError, OverflowError) as err:
        # A value the implementation refuses outside its typed errors (e.g. a schema that is
        # not JSON-representable) is bad input, not a crash.
        return _protocol(f"invalid value: {type(err).__name__}")
    reply: Reply = {"ok": True}
    reply.update(fields)
    return reply


def record_line(record: TextIO, line: bytes, reply: Reply) -> None:
    """Append one trace line ``{"request", "reply"}`` (the format ``session-toolset trace``
    reads) to ``record``; a line that holds no JSON object has no request to log and is left
    out (its reply is ``Protocol`` and it changed nothing)."""
    try:
        request = parse_json(line)
    except JsonInputError:
        return
    if isinstance(request, dict):
        entry = {"request": request, "reply": reply}
        record.write(json.dumps(entry, ensure_ascii=True, separators=(",", ":")) + "\n")
        record.flush()


def serve(stdin: BinaryIO, stdout: TextIO, stderr: TextIO, record: TextIO | None = None) -> int:
    """Answer requests until EOF; return the exit status (0).  With ``record``, every request
    object and its reply is also appended there as a trace line (`record_line`)."""
    world = World()
    for raw in stdin:
        line = raw.rstrip(b"\n").rstrip(b"\r")
        try:
            reply = handle_line(world, line)
        except Exception as err:  # a bug in the adapter: report it, keep serving
            traceback.print_exc(file=stderr)
            reply = {"ok": False, "error": "Internal", "message": type(err).__name__}
        stdout.write(json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n")
        stdout.flush()
        if record is not None:
            record_line(record, line, reply)
    return 0


def main(record: TextIO | None = None) -> int:
    """Entry point of ``python -m session_toolset.adapter`` and ``session-toolset adapter``
    (which passes ``--record FILE`` opened as ``record``)."""
    return serve(sys.stdin.buffer, sys.stdout, sys.stderr, record)
