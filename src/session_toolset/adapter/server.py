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


def serve(stdin: BinaryIO, stdout: TextIO, stderr: TextIO) -> int:
    """Answer requests until EOF; return the exit status (0)."""
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
    return 0


def main() -> int:
    """Entry point of ``python -m session_toolset.adapter`` and ``session-toolset adapter``."""
    return serve(sys.stdin.buffer, sys.stdout, sys.stderr)
