"""The reference adapter with one fault: ``--fault crash|hang|extra|wrong --on OP --nth N``
misbehaves on the N-th request (counted per process) whose op is OP.

* ``crash``: exit with status 3 instead of replying;
* ``hang``: stop answering (sleep);
* ``extra``: write the reply twice (one line nobody asked for);
* ``wrong``: answer that one request with a rejection (``Protocol``) instead of its reply, then
  behave again: a divergence that happens once per process, so it does not reproduce when the
  same requests are replayed to the same process (a flaky implementation).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from session_toolset.adapter import World, handle_line


def _op(line: bytes) -> object:
    """The op of a request line; None for a raw line that is not a JSON object (explore sends
    malformed lines on purpose: the fault must not fire, or crash, on them)."""
    try:
        request = json.loads(line)
    except ValueError:
        return None
    return request.get("op") if isinstance(request, dict) else None


WRONG = json.dumps({"ok": False, "error": "Protocol", "message": "injected once"}) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", choices=["crash", "hang", "extra", "wrong"], required=True)
    parser.add_argument("--on", required=True)
    parser.add_argument("--nth", type=int, default=1)
    args = parser.parse_args()
    world, seen = World(), 0
    for raw in sys.stdin.buffer:
        line = raw.rstrip(b"\n")
        reply = handle_line(world, line)
        text = json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n"
        if _op(line) == args.on:
            seen += 1
            if seen == args.nth:
                if args.fault == "crash":
                    sys.stderr.write("injected crash\n")
                    return 3
                if args.fault == "hang":
                    time.sleep(3600)
                if args.fault == "extra":
                    sys.stdout.write(text)
                if args.fault == "wrong":
                    text = WRONG
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
