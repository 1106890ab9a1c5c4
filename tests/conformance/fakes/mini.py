"""A tiny PROTOCOL.md adapter with injectable faults, to exercise the runner's error handling.

It implements only what the tests' vectors use: hello, reset, tool_id_parse (simplified),
catalog_set_generation (echoes the value) and authorize (always a NotCataloged gate denial).
``--fault KIND`` misbehaves on requests whose op equals ``--on`` (default: every op but hello and
reset), e.g. ``--fault crash --on tool_id_parse``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time

SEGMENT = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")


def parse_tool_id(raw: str) -> dict[str, object]:
    if not raw:
        return {"ok": False, "error": "ToolIdError.Empty", "message": "empty"}
    if ":" not in raw:
        return {"ok": False, "error": "ToolIdError.MissingNamespace", "message": "no colon"}
    namespace, _, name = raw.partition(":")
    if not SEGMENT.match(namespace):
        return {"ok": False, "error": "ToolIdError.InvalidNamespace", "message": "bad namespace"}
    if not SEGMENT.match(name):
        return {"ok": False, "error": "ToolIdError.InvalidName", "message": "bad name"}
    return {"ok": True, "id": raw}


def answer(request: object) -> dict[str, object]:
    if not isinstance(request, dict):
        return {"ok": False, "error": "Protocol", "message": "not an object"}
    op = request.get("op")
    if op == "hello":
        return {"ok": True, "protocol": 1, "implementation": "fake-mini 0"}
    if op == "reset":
        return {"ok": True}
    if op == "tool_id_parse" and isinstance(request.get("raw"), str):
        return parse_tool_id(request["raw"])
    if op == "catalog_set_generation" and "value" in request:
        return {"ok": True, "generation": request["value"]}
    if op == "authorize" and isinstance(request.get("tool"), str):
        return {
            "ok": False,
            "error": "ToolAuthorizationError.NotCataloged",
            "message": "not cataloged",
            "tool": request["tool"],
        }
    return {"ok": False, "error": "Protocol", "message": f"unsupported request {op!r}"}


def faulty(fault: str, reply: dict[str, object]) -> str | None:
    """The line to write for a faulty reply, or None when the fault already acted."""
    line = json.dumps(reply)
    if fault == "crash":
        sys.stderr.write("fake-mini: boom, crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    if fault == "hang":
        time.sleep(3600)
    if fault == "silent-exit":
        sys.exit(0)
    if fault == "invalid-json":
        return "{this is not json"
    if fault == "non-object":
        return "[1, 2, 3]"
    if fault == "nan":
        return '{"ok": true, "id": NaN}'
    if fault == "twice":
        return line + "\n" + line
    if fault == "long-message":
        return json.dumps({**reply, "message": "x" * 600})
    if fault == "no-message":
        return json.dumps({k: v for k, v in reply.items() if k != "message"})
    if fault == "float-generation":
        return json.dumps({**reply, "generation": float(reply.get("generation", 0))})  # type: ignore[arg-type]
    if fault == "extra-field":
        return json.dumps({**reply, "surprise": True})
    return line


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", default="none")
    parser.add_argument("--on", default=None)
    parser.add_argument("--eof-status", type=int, default=0)
    parser.add_argument("--stderr-spam", type=int, default=0)
    parser.add_argument("--record", default=None, help="append each received line, in hex")
    args = parser.parse_args()
    if args.stderr_spam:
        sys.stderr.write("noise " * args.stderr_spam + "\nlast words of the fake\n")
        sys.stderr.flush()
    for raw in sys.stdin.buffer:
        if args.record:
            with open(args.record, "a", encoding="ascii") as record:
                record.write(raw.hex() + "\n")
        try:
            request: object = json.loads(raw)
        except ValueError:
            request = None
        reply = answer(request)
        op = request.get("op") if isinstance(request, dict) else None
        targeted = op == args.on if args.on else op not in ("hello", "reset")
        line = faulty(args.fault, reply) if targeted else json.dumps(reply)
        if line is not None:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
    return int(args.eof_status)


if __name__ == "__main__":
    sys.exit(main())
