"""Print the speed of ``session-toolset trace`` in complete mode: a script, not a test.

Run: ``python benchmarks/bench_trace.py`` (``--lines N`` for another log size, default 20,000;
``--one-stream`` for a log of one partition).

The log is the reference adapter's transcript of the whole conformance corpus (each vector
its own stream, about 5,500 lines), repeated with fresh stream names until it holds N lines: a
realistic mix of every op and outcome.  With ``--one-stream`` the stream keys are left out: one
partition, one vector after the other (each begins with ``reset``).  Two figures, timed
round-robin in the same rounds, each the median of the rounds, the cyclic garbage collector paused:

* parse: ``json.loads`` of every line of the log, nothing else (the floor);
* complete: the whole complete-mode check of the same log (`run.check_logs`, one process).

It prints lines/s of each and the ratio complete / parse (target: within 10x).
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import statistics
import sys
import time
from importlib import resources
from pathlib import Path

from session_toolset.adapter import World, handle_line
from session_toolset_harness.conform import vectors
from session_toolset_harness.conform.jsonio import encode_line
from session_toolset_harness.trace.record import TraceWriter
from session_toolset_harness.trace.run import check_logs


def transcript() -> list[str]:
    folder = Path(str(resources.files("session_toolset_harness") / "vectors"))
    out = io.StringIO()
    writer = TraceWriter(out)
    for vector in vectors.load_all(vectors.discover([folder])):
        if isinstance(vector, vectors.Vector):
            world = World()
            for step in vector.steps:
                writer.exchange(
                    vector.id, step.send, handle_line(world, encode_line(step.send)[:-1])
                )
    return out.getvalue().splitlines(keepends=True)


def make_log(size: int, one_stream: bool = False) -> str:
    base = transcript()
    lines: list[str] = []
    round_ = 0
    while len(lines) < size:
        for text in base:
            entry = json.loads(text)
            entry["stream"] = f"{round_}/{entry['stream']}"
            if one_stream:
                del entry["stream"]
            lines.append(json.dumps(entry) + "\n")
        round_ += 1
    return "".join(lines[:size])


def parse_only(text: str) -> None:
    loads = json.loads
    for line in io.StringIO(text):
        loads(line)


def complete(text: str) -> None:
    result = check_logs(["-"], io.StringIO(text), keep_going=True)
    assert not result.violations, result.violations[:1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--one-stream", action="store_true", help="a log of one partition")
    args = parser.parse_args()
    text = make_log(args.lines, args.one_stream)
    count = text.count("\n")
    print(f"log: {count} lines, {len(text) / 1e6:.1f} MB (the corpus transcript, repeated)")
    times: dict[str, list[float]] = {"parse": [], "complete": []}
    ratios: list[float] = []
    gc.disable()
    try:
        complete(text)  # warm-up
        for _ in range(args.rounds):
            row = {}
            for name, job in (("parse", parse_only), ("complete", complete)):
                started = time.perf_counter()
                job(text)
                row[name] = time.perf_counter() - started
                times[name].append(row[name])
            ratios.append(row["complete"] / row["parse"])
    finally:
        gc.enable()
    for name, values in times.items():
        seconds = statistics.median(values)
        print(f"{name:>9}: {count / seconds:>10,.0f} lines/s ({seconds:.3f} s)")
    print(f"    ratio: complete / parse = {statistics.median(ratios):.1f}x (target <= 10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
