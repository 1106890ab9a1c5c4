"""Steps per second of ``session-toolset explore``, in one run: in-process, against the reference
adapter as a subprocess, against a minimal fast adapter (a replay of the same run, from a separate
process), pipelined and not, ``--jobs 1`` and ``--jobs 2``, and the reference adapter's own
CPU; with ``--baseline REV`` the same figures for another revision of the tree
(``git archive REV``), measured in the same run, and their ratios.
Prints figures and asserts nothing.

    python benchmarks/bench_explore.py [--baseline REV] [--examples N] [--steps N]
                                       [--jobs-examples N] [--seed S] [--quick] [--repeat N]

Every figure is one exploration in a fresh interpreter (``explore_probe.py``): wall-clock steps
per second, shrinking off, fixed seed, so both trees explore the same examples.  With
``--repeat N`` every figure is measured N times, the trees interleaved, and the best (shortest)
time kept: on a machine shared with other jobs that is the figure least disturbed by them.  Steps
per CPU-second of the explorer process (an adapter's CPU not included) are printed too: they
move much less with the machine's load than wall-clock figures.  The machine's load average is
printed before and after: on a shared machine the ratios are the point.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PROBE = HERE / "explore_probe.py"
REPLAY = HERE / "replay_adapter.py"
REFERENCE = f"{sys.executable} -m session_toolset.adapter"


def extract(rev: str, into: Path) -> Path:
    """The tree of ``rev`` (``git archive``), unpacked under ``into``."""
    data = subprocess.run(
        ["git", "archive", "--format=tar", rev], cwd=HERE.parent, capture_output=True, check=True
    ).stdout
    tree = into / "baseline"
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(tree, filter="data")
    if not (tree / "src" / "session_toolset_harness").is_dir():
        raise SystemExit(f"git archive {rev} holds no src/session_toolset_harness")
    return tree


def probe(tree: Path | None, *args: str) -> dict[str, Any]:
    """One exploration of ``tree`` (None: this tree)."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree / "src"), str(tree / "model")])
    done = subprocess.run(
        [sys.executable, str(PROBE), *args], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"probe {args} failed:\n{done.stderr[-2000:]}")
    value: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if tree is not None and not str(value["module"]).startswith(str(tree)):
        raise SystemExit(f"the baseline probe imported {value['module']}, not {tree}")
    if value.get("failure") or value.get("error"):
        print(f"  note: {args}: {value.get('failure') or value.get('error')}"[:300])
    return value


def rate(result: dict[str, Any] | None, key: str = "seconds") -> float | None:
    if result is None or not result.get(key):
        return None
    return float(result["steps"]) / float(result[key])


def best(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The repeats of one figure (same seed, same steps): the shortest wall and CPU times."""
    merged = dict(results[0])
    for key in ("seconds", "cpu"):
        values = [float(r[key]) for r in results if r.get(key)]
        merged[key] = min(values) if values else None
    return merged


def load() -> str:
    try:
        return Path("/proc/loadavg").read_text(encoding="utf-8").split(" ", 3)[:3].__str__()
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--baseline", metavar="REV", help="also time this revision (git archive)")
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--jobs-examples", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="a quarter of the budget")
    parser.add_argument("--repeat", type=int, default=1, help="best of N runs per figure")
    args = parser.parse_args()
    repeat = max(args.repeat, 1)
    scale = 4 if args.quick else 1
    budget = [
        "--examples",
        str(args.examples // scale),
        "--steps",
        str(args.steps),
        "--seed",
        str(args.seed),
    ]
    jobs_budget = [
        "--examples",
        str(args.jobs_examples // scale),
        "--steps",
        str(args.steps),
        "--seed",
        str(args.seed),
    ]
    print(f"load average before: {load()}; cpus: {os.cpu_count()}")
    with tempfile.TemporaryDirectory() as scratch:
        base = None if args.baseline is None else extract(args.baseline, Path(scratch))
        trees = {"now": None, **({} if base is None else {"today": base})}
        recordings = {}
        for label, tree in trees.items():
            recordings[label] = Path(scratch) / f"{label}.rec"
            probe(tree, *budget, "--record", str(recordings[label]))
        rows: list[tuple[str, dict[str, Any] | None, dict[str, Any] | None]] = []

        def row(name: str, *extra: str, both: bool = True, replay: bool = False) -> None:
            """One row per tree's figure (the trees measured interleaved)."""
            labels = list(trees)
            runs: dict[str, list[dict[str, Any]]] = {label: [] for label in labels}
            for _ in range(repeat):  # interleaved, so a burst of load hits both trees alike
                for label in labels:
                    if label == "today" and not both:
                        continue
                    options = list(extra)
                    if replay:
                        options += ["--adapter", f"{sys.executable} {REPLAY} {recordings[label]}"]
                    runs[label].append(probe(trees.get(label), *budget, *options))
            figures = {label: best(r) if r else None for label, r in runs.items()}
            rows.append((name, figures.get("today"), figures["now"]))

        def jobs_figures(*extra: str) -> dict[int, dict[str, Any]]:
            runs: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
            for _ in range(repeat):
                for n in (1, 2):
                    runs[n].append(probe(None, *jobs_budget, "--jobs", str(n), *extra))
            return {n: best(r) for n, r in runs.items()}

        row("in-process (reference)")
        row("reference adapter subprocess, pipelined", "--adapter", REFERENCE)
        row(
            "reference adapter subprocess, step batches",
            "--adapter",
            REFERENCE,
            "--window",
            "1",
            both=False,
        )
        row(
            "reference adapter subprocess, not pipelined",
            "--adapter",
            REFERENCE,
            "--no-pipeline",
            both=False,
        )
        row("fast replay adapter, pipelined", replay=True)
        row("fast replay adapter, not pipelined", "--no-pipeline", both=False, replay=True)
        jobs = jobs_figures("--adapter", REFERENCE)
        jobs_in = jobs_figures()
    print(f"load average after:  {load()}")
    print()
    for title, key in (("steps/s (wall)", "seconds"), ("steps per CPU-s (explorer)", "cpu")):
        print(f"{title:<54} {'today':>8} {'now':>8} {'ratio':>7}")
        for name, today, now in rows:
            t, n = rate(today, key), rate(now, key)
            ratio = f"{n / t:6.2f}x" if t and n else ""
            print(
                f"{name:<54} {t or 0:>8,.0f} {n or 0:>8,.0f} {ratio:>7}"
                if t
                else f"{name:<54} {'':>8} {n or 0:>8,.0f}"
            )
        print()
    adapter = next(now for name, _, now in rows if name.endswith("adapter subprocess, pipelined"))
    if adapter and adapter.get("adapter_cpu") and adapter.get("cpu"):
        # Against an adapter, each job is two busy processes: two jobs on two cores can run
        # at most 2 / (1 + adapter share) times one job, whatever the explorer does.
        share = float(adapter["adapter_cpu"]) / float(adapter["cpu"])
        print(
            f"reference adapter CPU per explorer CPU-s: {share:.0%} (start-up "
            f"included); bound on --jobs 2 / --jobs 1 against it on 2 cores: "
            f"{2 / (1 + share):.2f}x"
        )
    every_jobs = (
        ("reference adapter", jobs),
        ("in-process", jobs_in),
    )
    for label, figures in every_jobs:
        one, two = rate(figures[1]), rate(figures[2])
        print(
            f"--jobs 1 / --jobs 2, {label:<31} {one or 0:>8,.0f} {two or 0:>8,.0f} steps/s"
            + (f"   ratio {two / one:.2f}x" if one and two else "")
        )
    # Per CPU-second of the explorer processes (the adapters' CPU not included): equal figures
    # for one and two jobs mean nothing serializes; a wall ratio below 2 is then the cores the
    # machine's other load (and each job's adapter process) took.
    for label, figures in every_jobs:
        per = {n: rate(figures[n], "cpu") for n in (1, 2)}
        if per[1] and per[2]:
            print(
                f"explorer steps per CPU-s, {label:<30} {per[1]:>8,.0f} {per[2]:>8,.0f}"
                f"   ratio {per[2] / per[1]:.2f}x"
            )


if __name__ == "__main__":
    main()
