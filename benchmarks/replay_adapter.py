"""A minimal fast PROTOCOL.md adapter: it answers a recorded run from a separate process.

    python benchmarks/replay_adapter.py RECORDING

``RECORDING`` (written by ``explore_probe.py --record``) holds every request line of one
exploration with the reference's reply line.  Each request read must be the next recorded one;
the recorded reply is written back, so the adapter costs a line comparison per request and the
benchmark measures the explorer and the pipe, not an implementation.  A request that differs
gets an ``Internal`` error reply (the explorer then reports a divergence: the run was not the
recorded one).
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as recording:
        pairs = [json.loads(line) for line in recording]
    out = sys.stdout
    for position, raw in enumerate(sys.stdin.buffer):
        line = raw.rstrip(b"\n").decode("utf-8", "surrogateescape")
        if position < len(pairs) and pairs[position][0] == line:
            out.write(pairs[position][1] + "\n")
        else:
            out.write('{"ok":false,"error":"Internal","message":"not the recorded run"}\n')
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
