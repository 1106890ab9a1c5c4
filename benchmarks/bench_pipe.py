"""Requests per second through the PROTOCOL.md pipe, and the wall time of the whole corpus.

Prints figures and asserts nothing.  The throughput loop talks to the adapter exactly as the
conformance runner does (`AdapterProcess.exchange`: one request line, one reply line, flushed);
the corpus figure is one full `session-toolset conform` run against the reference adapter.

    python benchmarks/bench_pipe.py [--requests N] [--adapter CMD]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time

from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.conform.client import AdapterProcess, ExchangeError

SETUP = [
    {"op": "reset"},
    {
        "op": "catalog_insert",
        "source": {"kind": "builtin", "name": "bash"},
        "provenance": {"kind": "builtin_runtime"},
        "schema": {"type": "object"},
    },
    {"op": "set_new", "name": "A", "session": "s-1", "core": ["builtin:bash"]},
]
MIX = [
    {"op": "authorize", "set": "A", "tool": "builtin:bash"},
    {"op": "snapshot", "set": "A"},
    {"op": "catalog_state"},
    {"op": "tool_id_parse", "raw": "mcp.srv-a:lookup"},
]


def throughput(argv: list[str], requests: int) -> float:
    adapter = AdapterProcess(argv)
    try:
        for request in SETUP:
            reply = adapter.exchange(request, 10.0)
            if isinstance(reply, ExchangeError) or reply.value.get("ok") is not True:
                raise SystemExit(f"setup failed: {reply}")
        start = time.perf_counter()
        for i in range(requests):
            reply = adapter.exchange(MIX[i % len(MIX)], 10.0)
            if isinstance(reply, ExchangeError):
                raise SystemExit(f"exchange failed: {reply}")
        return requests / (time.perf_counter() - start)
    finally:
        adapter.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--adapter", help="adapter command (default: the reference adapter)")
    args = parser.parse_args()
    argv = (
        shlex.split(args.adapter)
        if args.adapter
        else [sys.executable, "-m", "session_toolset.adapter"]
    )
    print(f"pipe throughput ({args.requests:,} requests, 4-op mix, median of 3)")
    rates = [throughput(argv, args.requests) for _ in range(3)]
    print(f"    {statistics.median(rates):>9,.0f} requests/s\n")

    walls = []
    for _ in range(3):
        start = time.perf_counter()
        status = conform_main(["--quiet"] + (["--adapter", args.adapter] if args.adapter else []))
        walls.append(time.perf_counter() - start)
        if status != 0:
            raise SystemExit("the corpus did not pass; figures would be meaningless")
    print(
        f"\nwhole packaged corpus through the pipe (median of 3): {statistics.median(walls):.2f} s"
    )


if __name__ == "__main__":
    main()
