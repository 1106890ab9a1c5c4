"""How small explore's shrunk vector of a miniature is: one run per seed at the `ci` budget
(300 examples x 50 steps, shrinking on), in-process.

    python tools/explore_strength/shrink_size.py [--seeds 5] [--examples 300] [--steps 50] [NAME]

Prints, per seed: the steps the run needed to find the bug, the requests of the shrunk
sequence, the bytes of their JSON text (what a person reads) and of the vector file written,
and the seconds the run took (finding plus shrinking).  Default miniature:
`mini_rebuild_ignores_trust`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from session_toolset_harness.conform.jsonio import RawLine
from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.sut import InProcessSut
from session_toolset_harness.explore.vectorize import failure_vector


def _text(request: object) -> str:
    if isinstance(request, RawLine):
        return request.data.decode("utf-8", "replace")
    return json.dumps(request, ensure_ascii=False, separators=(",", ":"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("name", nargs="?", default="mini_rebuild_ignores_trust")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args(argv)
    module = importlib.import_module(f"miniatures.{args.name}")
    sizes: list[int] = []
    counts: list[int] = []
    for seed in range(args.seeds):
        started = time.perf_counter()
        with module.patch():
            result = explore(
                InProcessSut(),
                examples=args.examples,
                steps=args.steps,
                seed_value=seed,
            )
        seconds = time.perf_counter() - started
        if result.failure is None:
            print(f"seed {seed}: not found in {result.steps} steps ({seconds:.1f} s)")
            continue
        requests = [r.request for r in result.failure.steps]
        text = sum(len(_text(r).encode("utf-8")) for r in requests)
        vector = failure_vector(result.failure, result.digests, seed, preflight=result.preflight)
        file_bytes = len(json.dumps(vector, indent=1, ensure_ascii=False).encode("utf-8"))
        counts.append(len(requests))
        sizes.append(text)
        print(
            f"seed {seed}: found after {result.steps} steps; shrunk to {len(requests)} requests, "
            f"{text} bytes of requests, vector file {file_bytes} bytes ({seconds:.1f} s)",
            flush=True,
        )
        for r in requests:
            print(f"    > {_text(r)[:200]}")
    if counts:
        print(
            f"{args.name}: {len(counts)}/{args.seeds} found; requests median "
            f"{statistics.median(counts)} (max {max(counts)}); request bytes median "
            f"{statistics.median(sizes)} (max {max(sizes)})"
        )
    return 0 if len(counts) == args.seeds else 1


if __name__ == "__main__":
    raise SystemExit(main())
