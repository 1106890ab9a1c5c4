"""One timed exploration, printed as one JSON line; run by ``bench_explore.py`` in a fresh process.

It only uses what the explorer has always had (``explore()``, ``InProcessSut``, ``AdapterSut``),
so the same file times today's tree and an older one (``PYTHONPATH`` pointing at its sources):

    python benchmarks/explore_probe.py --examples N --steps N --seed S
        [--adapter CMD] [--no-pipeline] [--window N] [--jobs N] [--record FILE]

``--record FILE`` (in-process only) writes every request line and its reply line, for the replay
adapter (``replay_adapter.py``) to answer the same run from a separate process in microseconds.
``--engine E`` is explore's ``--engine`` (trees that have it).
The printed ``adapter_cpu``
is the CPU seconds of this process's children (the adapter, start-up included) during the run.
"""

from __future__ import annotations

import argparse
import inspect
import json
import resource
import shlex
import time
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, required=True)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--adapter")
    parser.add_argument("--no-pipeline", action="store_true")
    parser.add_argument("--window", type=int)
    parser.add_argument("--jobs", type=int, default=0, help="0: explore() itself; N: run_plan")
    parser.add_argument("--record")
    parser.add_argument("--engine", help="explore's --engine (trees that have it)")
    args = parser.parse_args()

    from session_toolset_harness.explore import run, sut

    if args.jobs:
        from session_toolset_harness.explore.parallel import Plan, run_plan

        plan = Plan(
            examples=args.examples,
            steps=args.steps,
            seed=args.seed,
            jobs=args.jobs,
            shrink=False,
            pipeline=not args.no_pipeline,
            adapter=None if args.adapter is None else tuple(shlex.split(args.adapter)),
            **({} if args.engine is None else {"engine": args.engine}),
        )
        outcome = run_plan(plan)
        result = outcome.result
        print(
            json.dumps(
                {
                    "steps": result.steps,
                    "seconds": outcome.wall_seconds,
                    "cpu": result.cpu_seconds,  # the workers' explorer CPU, summed
                    "failure": None if result.failure is None else result.failure.reason,
                    "error": result.error,
                }
            )
        )
        return

    lines: list[tuple[str, str]] = []
    if args.record:
        original = sut.handle_line  # type: ignore[attr-defined]

        def recording(world: Any, line: bytes) -> Any:
            reply = original(world, line)
            text = json.dumps(reply, ensure_ascii=False, separators=(",", ":"))
            lines.append((line.decode("utf-8", "surrogateescape"), text))
            return reply

        sut.handle_line = recording  # type: ignore[attr-defined]
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    target: Any = (
        sut.InProcessSut() if args.adapter is None else sut.AdapterSut(shlex.split(args.adapter))
    )
    options: dict[str, Any] = {}
    accepted = inspect.signature(run.explore).parameters
    if "pipeline" in accepted:
        options["pipeline"] = not args.no_pipeline
    if args.window is not None and "window" in accepted:
        options["window"] = args.window
    if args.engine is not None:
        if "engine" not in accepted:
            raise SystemExit(f"--engine {args.engine}: this tree's explore() has no engine")
        options["engine"] = args.engine
    start, cpu_start = time.perf_counter(), time.process_time()
    result = run.explore(
        target,
        examples=args.examples,
        steps=args.steps,
        seed_value=args.seed,
        shrink=False,
        **options,
    )
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    target.close()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    adapter_cpu = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
    if args.record:
        with open(args.record, "w", encoding="utf-8") as out:
            for request, reply in lines:
                out.write(json.dumps([request, reply]) + "\n")
    print(
        json.dumps(
            {
                "steps": result.steps,
                "seconds": seconds,
                "cpu": cpu,  # this process only (an adapter's CPU not included)
                "adapter_cpu": adapter_cpu,
                "failure": None if result.failure is None else result.failure.reason,
                "error": result.error,
                "module": run.__file__,
            }
        )
    )


if __name__ == "__main__":
    main()
