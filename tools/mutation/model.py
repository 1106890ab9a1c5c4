"""Mutation testing of the model (``model/session_toolset_model``) with mutmut, scored against
``prove --all-profiles`` alone and against prove + the model tests (``tests/model``).

    python tools/mutation/model.py [--sample N] [--sample-seed S] [--jobs 1] [--json FILE]

Same tool and version as `run` (mutmut, pinned in pyproject.toml), same work-directory scheme
(``build/mutation-model/<suite>/``: a copy of the model package and the suite's tests under a
generated mutmut configuration; the project's tree is never mutated).  The ``prove`` suite is
one test running every obligation, witness, mutant and reach row of all profiles; ``model``
runs ``tests/model``.  A mutant counts as killed by prove + model tests when either suite kills
it; the model suite runs only on the mutants prove leaves alive.  Wrap a run in
``flock /work/mutation.lock nice ...`` on the shared machine.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
base: Any = importlib.import_module("run")  # tools/mutation/run.py: the src/ runner

REPO = Path(base.REPO)
PACKAGE = "session_toolset_model"
base.PACKAGE = PACKAGE
base.WORK = REPO / "build" / "mutation-model"
SUITES = ("prove", "model")


def prepare(suite: str, timeout_multiplier: float) -> Path:
    work = Path(base.WORK) / suite
    if work.exists():
        shutil.rmtree(work)
    (work / "tests").mkdir(parents=True)
    shutil.copytree(
        REPO / "model" / PACKAGE,
        work / "src" / PACKAGE,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    if suite == "prove":
        shutil.copy2(base.HERE / "model_suites" / "test_mutation_prove.py", work / "tests")
    else:
        for test in sorted((REPO / "tests" / "model").glob("*.py")):
            shutil.copy2(test, work / "tests")
    (work / "pyproject.toml").write_text(base._config(suite, timeout_multiplier), encoding="utf-8")
    return work


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sample", type=int, default=0)
    p.add_argument("--sample-seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--timeout-multiplier", type=float, default=5.0)
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    for suite in SUITES:
        prepare(suite, args.timeout_multiplier)
    base.generate_only(base.WORK / "prove", args.jobs)
    every = sorted(base.load_results("prove"))
    names = every
    if args.sample:
        names = sorted(random.Random(args.sample_seed).sample(every, min(args.sample, len(every))))
    env = dict(base.os.environ)
    logs = base.WORK / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    secs = base.run_suite("prove", jobs=args.jobs, names=names, env=env, log=logs / "prove.log")
    prove = {n: base.classify(c) for n, (_, c) in base.load_results("prove").items() if n in names}
    alive = [n for n in names if prove.get(n) != base.KILLED]
    model: dict[str, str] = {}
    if alive:
        base.generate_only(base.WORK / "model", args.jobs)
        log = logs / "model.log"
        secs += base.run_suite("model", jobs=args.jobs, names=alive, env=env, log=log)
        model = {n: base.classify(c) for n, (_, c) in base.load_results("model").items()}
    both = {
        n: base.KILLED if base.KILLED in (prove.get(n), model.get(n)) else prove.get(n, "")
        for n in names
    }

    def pct(d: dict[str, str]) -> str:
        c = Counter(d.values())
        scored = len(d) - c[base.TIMEOUT]
        return f"{c[base.KILLED]}/{scored} killed ({100.0 * c[base.KILLED] / max(scored, 1):.1f}%)"

    print(f"model mutants: {len(every)} generated, {len(names)} tested (seed {args.sample_seed})")
    print(f"prove --all-profiles alone: {pct(prove)}")
    print(f"prove + tests/model:        {pct(both)}")
    survivors = [n for n in names if both[n] != base.KILLED]
    for n in survivors:
        print(f"  survivor: {n} ({both[n]})")
    print(f"{secs:.0f} s")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"generated": len(every), "tested": names, "prove": prove, "both": both}, indent=1
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
