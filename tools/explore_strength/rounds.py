"""How many rounds ``session-toolset explore --budget ci --seed S`` needs, seed by seed.

    python tools/explore_strength/rounds.py [--seeds 10] [--first 0] [--jobs 1] [--random-only]
                                            [--engine hypothesis|prng]

For each seed it runs that command (the real console script, in a child process, so what is
measured is exactly what a user runs), reads its ``--json`` report and prints the rounds it ran
(one stream per round), its steps, aimed examples and CPU time.  ``--random-only`` instead runs
the first round's random examples alone (``--examples 300 --steps 50``, the same Hypothesis
settings and seed, no minimum, so no aimed examples) and prints what they missed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from session_toolset_harness.corpus import coverage as condition_gate
from session_toolset_harness.explore import coverage
from session_toolset_harness.explore.prng_engine import DEFAULT_ENGINE, ENGINES
from session_toolset_harness.explore.report import conditions_from_json
from session_toolset_harness.explore.run import PROFILES

COMMAND = str(Path(sys.executable).parent / "session-toolset")
CI = PROFILES["ci"]


def run(seed: int, random_only: bool, folder: Path, engine: str) -> dict[str, Any]:
    report = folder / f"seed-{seed}.json"
    argv = [COMMAND, "explore", "--seed", str(seed), "--quiet", "--json", str(report)]
    argv += ["--engine", engine]
    argv += ["--out", str(folder / f"failure-{seed}.json")]
    argv += (
        ["--examples", str(CI.examples), "--steps", str(CI.steps)]
        if random_only
        else ["--budget", "ci"]
    )
    subprocess.run(argv, check=False, capture_output=True)
    found: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return found


def missed(found: dict[str, Any]) -> list[str]:
    hits: Counter[tuple[str, str]] = Counter()
    for op, code, count in found["coverage"]:
        hits[(op, code)] += count
    short = [f"{op} {code}" for (op, code), _ in coverage.missing(hits, CI.min_hits)]
    return short + condition_gate.missing(conditions_from_json(found["conditions"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="seeds run at once")
    parser.add_argument("--random-only", action="store_true")
    parser.add_argument("--engine", choices=ENGINES, default=DEFAULT_ENGINE)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    seeds = list(range(args.first, args.first + args.seeds))
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        reports = list(pool.map(lambda s: run(s, args.random_only, Path(tmp), args.engine), seeds))
    more = 0
    for seed, found in zip(seeds, reports, strict=True):
        head = f"seed {seed}: {found['steps']} steps, {found['cpu_seconds']:.1f} s CPU"
        if found["verdict"] not in ("pass", "coverage"):
            more += 1
            print(f"{head}: {found['verdict']}: {found['error'] or found['divergence']}")
            continue
        if args.random_only:
            gaps = missed(found)
            more += bool(gaps)
            print(f"{head}: " + ("nothing missed" if not gaps else "missed " + "; ".join(gaps)))
            continue
        rounds = len(found["streams"])
        more += rounds > 1
        aimed = found.get("aimed_examples", 0)
        print(f"{head}, {aimed} aimed examples: {rounds} round(s), verdict {found['verdict']}")
    what = "miss something" if args.random_only else "need more than one round"
    print(f"{more} of {len(seeds)} seeds {what} ({time.perf_counter() - started:.0f} s wall)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
