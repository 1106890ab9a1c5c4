"""Partial-mode trace check: a faithful log with its catalog lines removed, timed.

    python benchmarks/bench_trace_partial.py [--lines N] [--max-hidden K]
    python benchmarks/bench_trace_partial.py --shape recorded [--lines N] [--jobs J]

``--shape synthetic`` (the default): worlds of about 100 lines recorded with the reference
adapter (two tools cataloged, a set built, a grant issued and activated, gate calls, a schema
drift denied, a rebuild, more gate calls), repeated until N lines; every catalog line is removed
and `check_partial` runs in this process with ``--partial catalog``.

``--shape recorded``: ``session-toolset conform --record`` runs the packaged vectors against the
reference adapter (one stream per vector), its catalog mutations are removed, and its streams
are repeated under new names until N lines; then ``session-toolset trace --partial catalog
--keep-going --jobs J`` checks it in a child process.  Prints the verdict, lines/s, wall and CPU
seconds, and the load average around the run (the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
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


def recorded(lines: int, jobs: int, max_hidden: int | None) -> int:
    """Time ``trace --partial catalog`` on conform recordings without their catalog lines."""
    with tempfile.TemporaryDirectory() as tmp:
        recording = Path(tmp) / "conform.jsonl"
        subprocess.run(
            [
                "session-toolset",
                "conform",
                "--adapter",
                "session-toolset adapter",
                "--record",
                str(recording),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        kept = []
        for text in recording.read_text(encoding="utf-8").splitlines():
            op = json.loads(text)["request"].get("op")
            if not (isinstance(op, str) and op in CATALOG_GROUP):
                kept.append(json.loads(text))
        log = Path(tmp) / "log.jsonl"
        written, copy = 0, 0
        with log.open("w", encoding="utf-8") as out:
            while written < lines:
                for entry in kept[: lines - written]:
                    entry = {**entry, "stream": f"copy {copy}/{entry.get('stream')}"}
                    out.write(json.dumps(entry) + "\n")
                written = min(lines, written + len(kept))
                copy += 1
        bound = [] if max_hidden is None else ["--max-hidden", str(max_hidden)]
        command = ["session-toolset", "trace", "--partial", "catalog", "--keep-going"]
        command += ["--jobs", str(jobs), "--quiet", *bound, str(log)]
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(f"$ {' '.join(command[:-1])} LOG  (exit {done.returncode})")
    print(done.stdout.splitlines()[-1] if done.stdout else done.stderr.strip())
    print(
        f"{written} lines ({copy} copies of {len(kept)} recorded lines): "
        f"{written / wall:.0f} lines/s, {wall:.1f} s wall, {cpu:.1f} s CPU "
        f"(trace and its workers), load average {load:.1f} before and "
        f"{os.getloadavg()[0]:.1f} after"
    )
    return 0 if done.returncode in (0, 3) else 1


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument(
        "--max-hidden", type=int, help="bound each gap (default: 2 synthetic, any recorded)"
    )
    parser.add_argument("--shape", choices=("synthetic", "recorded"), default="synthetic")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (recorded shape)")
    args = parser.parse_args()
    if args.shape == "recorded":
        return recorded(args.lines, args.jobs, args.max_hidden)
    k = 2 if args.max_hidden is None else args.max_hidden
    requests: list[Request] = []
    n = 0
    while len(requests) < args.lines:
        requests += world(n)
        n += 1
    lines = record(requests[: args.lines])
    log = without(lines, frozenset(CATALOG_GROUP))
    start = time.perf_counter()
    verdict = check_partial(log, frozenset(CATALOG_GROUP), k)
    took = time.perf_counter() - start
    print(
        f"{len(lines)} recorded lines, {len(log)} after removing catalog lines, {n} worlds: "
        f"consistent={verdict.consistent} undecided={verdict.undecided}"
    )
    print(f"{len(log) / took:.0f} lines/s, {took:.1f} s total")
    return 0 if verdict.consistent else 1


if __name__ == "__main__":
    raise SystemExit(main())
