"""Partial-mode trace check: a faithful log with its catalog lines removed, timed.

    python benchmarks/bench_trace_partial.py [--lines N] [--max-hidden K]

The log is recorded with the reference adapter: worlds of about 100 lines (two tools cataloged,
a set built, a grant issued and activated, gate calls, a schema drift denied, a rebuild, more
gate calls), repeated until N lines.  Every catalog line is then removed and `check_partial`
runs with ``--partial catalog``.  Prints lines/s and total seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "trace"))

from partial_support import (  # type: ignore[import-not-found]
    record,
    session,
    without,
)

from session_toolset_harness.trace.partial import CATALOG_GROUP, check_partial

Request = dict[str, Any]


def world(n: int) -> list[Request]:
    tag = f"w{n}"
    out: list[Request] = session(tag, ["x", "y"])
    gate = [
        {"op": "authorize", "set": f"{tag}-set", "tool": "mcp.srv:x"},
        {"op": "authorize", "set": f"{tag}-set", "tool": "mcp.srv:y"},
        {"op": "is_stale", "set": f"{tag}-set"},
    ]
    while len(out) < 100:
        out.append(gate[len(out) % 3])
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--max-hidden", type=int, default=2)
    args = parser.parse_args()
    requests: list[Request] = []
    n = 0
    while len(requests) < args.lines:
        requests += world(n)
        n += 1
    lines = record(requests[: args.lines])
    log = without(lines, frozenset(CATALOG_GROUP))
    start = time.perf_counter()
    verdict = check_partial(log, frozenset(CATALOG_GROUP), args.max_hidden)
    took = time.perf_counter() - start
    print(
        f"{len(lines)} recorded lines, {len(log)} after removing catalog lines, {n} worlds: "
        f"consistent={verdict.consistent} undecided={verdict.undecided}"
    )
    print(f"{len(log) / took:.0f} lines/s, {took:.1f} s total")
    return 0 if verdict.consistent else 1


if __name__ == "__main__":
    raise SystemExit(main())
