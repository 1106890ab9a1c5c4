"""How often explore finds each miniature: one `ci`-budget run (300 examples x 50 steps, one
seed, no shrinking) per seed, per miniature.

    python tools/explore_strength/find_rate.py [--seeds 10] [--examples 300] [--steps 50] [NAME...]

Prints one line per miniature: seeds found / seeds run and the steps each run needed.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

import miniatures

from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.sut import InProcessSut


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="*")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args(argv)
    names = args.names or sorted(
        i.name for i in pkgutil.iter_modules(miniatures.__path__) if i.name.startswith("mini_")
    )
    missed = 0
    for name in names:
        module = importlib.import_module(f"miniatures.{name}")
        found, needed = 0, []
        started = time.perf_counter()
        for seed in range(args.seeds):
            with module.patch():
                result = explore(
                    InProcessSut(),
                    examples=args.examples,
                    steps=args.steps,
                    seed_value=seed,
                    shrink=False,
                )
            if result.failure is not None:
                found += 1
                needed.append(result.steps)
            else:
                needed.append(-result.steps)
        missed += found < args.seeds
        print(
            f"{name:40s} {found}/{args.seeds} seeds  steps {needed}  "
            f"({time.perf_counter() - started:.1f} s)",
            flush=True,
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
