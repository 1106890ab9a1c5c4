"""An adapter broken from the start: ``--mode MODE`` picks how (the harness's fail-fast tests).

* ``exit-now``: exits with status 3 before reading anything (after a line on stderr);
* ``die-before-hello``: reads the first request line, then exits with status 3 unanswered;
* ``wrong-hello``: answers every request with a hello reply of protocol 2;
* ``hang``: reads requests and never answers;
* ``close-stdout``: closes its stdout at once, then reads requests until EOF;

``--pid-file F`` writes the process id to ``F`` first (to check that nothing outlives a run).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--mode",
        choices=["exit-now", "die-before-hello", "wrong-hello", "hang", "close-stdout"],
        required=True,
    )
    parser.add_argument("--pid-file")
    args = parser.parse_args()
    if args.pid_file:
        with open(args.pid_file, "w", encoding="ascii") as out:
            out.write(str(os.getpid()))
    sys.stderr.write(f"broken adapter: mode {args.mode}\n")
    sys.stderr.flush()
    if args.mode == "exit-now":
        return 3
    if args.mode == "die-before-hello":
        sys.stdin.buffer.readline()
        return 3
    if args.mode == "close-stdout":
        os.close(1)
        for _ in sys.stdin.buffer:
            pass
        return 0
    for _line in sys.stdin.buffer:
        if args.mode == "hang":
            time.sleep(3600)
        reply = {"ok": True, "protocol": 2, "implementation": "broken"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
