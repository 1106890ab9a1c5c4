"""Where an in-process exploration spends its CPU: self time by part, under ``cProfile``.  Prints
figures.

    python benchmarks/explore_profile.py [--examples 200] [--steps 50] [--seed 0] [--top 0]

One warm-up run (20 examples, seed + 1), then the profiled run (shrinking off).  Every function's
own time (``tottime``) goes to the part its file belongs to:

* ``generators``: ``explore/draw.py`` and ``explore/strategies.py`` (what draws the examples);
* ``explore``: the rest of the harness (the machine, its rules, the observer, the client);
* ``model``: the model package (the world, the oracle, the condition recorder);
* ``implementation``: ``src/session_toolset`` (the reference adapter and library);
* ``python``: the standard library and builtins (``json`` included).

Profiling slows every call alike, roughly; the shares are the point, not the seconds.
``--top N`` also lists the N functions with the most self time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
from collections import Counter

from session_toolset_harness.explore import run
from session_toolset_harness.explore.sut import InProcessSut

PARTS = (
    "generators",
    "explore",
    "model",
    "implementation",
    "python",
)


def part_of(filename: str) -> str:
    path = filename.replace("\\", "/")
    if path.endswith(("/explore/draw.py", "/explore/strategies.py")):
        return "generators"
    if "/session_toolset_harness/" in path:
        return "explore"
    if "/session_toolset_model/" in path:
        return "model"
    if "/session_toolset/" in path:
        return "implementation"
    return "python"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--top", type=int, default=0)
    args = parser.parse_args()
    if args.examples < 1 or args.steps < 1:
        parser.error("--examples and --steps must be at least 1")

    def once(examples: int, seed_value: int) -> run.ExploreResult:
        return run.explore(
            InProcessSut(),
            examples=examples,
            steps=args.steps,
            seed_value=seed_value,
            shrink=False,
        )

    once(20, args.seed + 1)  # warm-up: imports, caches, first-use costs
    profile = cProfile.Profile()
    profile.enable()
    result = once(args.examples, args.seed)
    profile.disable()
    if result.failure is not None or result.error is not None:
        raise SystemExit(f"the run did not pass: {result.error or result.failure}")
    stats = pstats.Stats(profile)
    shares: Counter[str] = Counter()
    functions: Counter[str] = Counter()
    entries = stats.stats  # type: ignore[attr-defined]
    for (filename, line, name), (_cc, _nc, own, _cum, _callers) in entries.items():
        shares[part_of(filename)] += own
        functions[f"{filename.rsplit('/', 1)[-1]}:{line}({name})"] += own
    total = sum(shares.values())
    print(
        f"{args.examples} x {args.steps}, seed {args.seed}: "
        f"{result.steps:,} steps; {total:.2f} s of self time under cProfile"
    )
    for part in PARTS:
        print(f"  {part:<24} {shares[part]:7.2f} s  {100 * shares[part] / total:5.1f}%")
    for where, own in functions.most_common(args.top):
        print(f"    {own:7.3f} s  {where}")


if __name__ == "__main__":
    main()
