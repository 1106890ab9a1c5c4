"""Mutation testing of the model (``model/session_toolset_model``) with mutmut's mutants, scored
against ``prove --all-profiles`` alone and against prove + the model tests (``tests/model``).

    python tools/mutation/model.py [--sample N] [--sample-seed S] [--jobs 2] [--json FILE]

The mutants are mutmut's (same tool and version as `run`, pinned in pyproject.toml), generated
once into ``build/mutation-model/mutants/`` (a copy of the model package; the project's tree is
never mutated).  They are not run through ``mutmut run``: its stats pass runs the suite once with
every trampoline recording its callers, which for one ``prove --all-profiles`` took over three
CPU minutes, and its per-test selection buys nothing for a one-test suite.  Instead each sampled
mutant is activated the way mutmut does it (``MUTANT_UNDER_TEST``, read by the trampolines) in a
fresh process:

* ``prove``: ``model_suites/prove_failfast.py`` - what ``prove --all-profiles`` decides its exit
  status on: the model's world replayed against the independent corpus, then every check in
  report order, stopping at the first failure (``prove`` fails exactly then);
* ``model``: ``pytest -x tests/model``, only on the mutants prove leaves alive.

Exit 0 is a survivor, a failing suite (exit 1; pytest's 2, a collection error, too) a kill; a
run past its CPU budget (``--timeout-multiplier`` x the clean run's CPU time, enforced with
RLIMIT_CPU, plus a wall-clock stop) is a timeout, reported apart and left out of the score; any
other exit is ``other`` (not a kill).  Before any mutant, both suites must pass with no mutant
active and fail with mutmut's ``fail`` sentinel (so the mutated copy is the one imported).  The
sample is drawn with ``random.Random(seed).sample`` over the sorted mutant names and run in the
drawn order, so a prefix of an interrupted run is itself a random sample.  Wrap a run in
``flock /work/mutation.lock nice ...`` on the shared machine.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
base: Any = importlib.import_module("run")  # tools/mutation/run.py: the src/ runner

REPO = Path(base.REPO)
PACKAGE = "session_toolset_model"
base.PACKAGE = PACKAGE
WORK = REPO / "build" / "mutation-model"
base.WORK = WORK
PROVE = Path(base.HERE) / "model_suites" / "prove_failfast.py"
EQUIVALENT = Path(base.HERE) / "model_equivalent.json"
KILLED, SURVIVED, TIMEOUT, OTHER = base.KILLED, base.SURVIVED, base.TIMEOUT, base.OTHER


def prepare() -> Path:
    """A fresh work directory: the model copy, the model tests, mutmut's configuration."""
    if WORK.exists():
        shutil.rmtree(WORK)
    (WORK / "tests").mkdir(parents=True)
    shutil.copytree(
        REPO / "model" / PACKAGE,
        WORK / "src" / PACKAGE,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    for test in sorted((REPO / "tests" / "model").glob("*.py")):
        shutil.copy2(test, WORK / "tests")
    # The proofs and the driver are snapshotted too, so the tree may change during a run (a
    # merge that adds a model module the old mutated copy lacks must not turn into "kills").
    shutil.copytree(
        REPO / "proofs" / "session_toolset_proofs",
        WORK / "proofs" / "session_toolset_proofs",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    shutil.copy2(PROVE, WORK / PROVE.name)
    (WORK / "pyproject.toml").write_text(base._config("model", 1.0), encoding="utf-8")
    return WORK


def command(suite: str) -> list[str]:
    if suite == "prove":
        return [sys.executable, str(WORK / PROVE.name)]
    return [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
            "-p", "no:randomly", "tests"]  # fmt: skip


def execute(suite: str, mutant: str, cpu_limit: float | None) -> dict[str, Any]:
    """One suite run with ``mutant`` active: exit code, CPU seconds, wall seconds, last line."""
    path = os.pathsep.join(str(WORK / d) for d in ("mutants/src", "proofs"))
    env = dict(os.environ, MUTANT_UNDER_TEST=mutant, PYTHONPATH=path)
    env.pop("SESSION_TOOLSET_PROFILE", None)

    def limit() -> None:
        if cpu_limit is not None:
            soft = math.ceil(cpu_limit)
            resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))

    start = time.perf_counter()
    proc = subprocess.Popen(
        command(suite),
        cwd=WORK,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        preexec_fn=limit,  # no threads touch the child between fork and exec
    )
    timer = None
    if cpu_limit is not None:  # a stop for a child that sleeps or waits instead of computing
        timer = threading.Timer(4 * cpu_limit + 60, proc.kill)
        timer.start()
    assert proc.stdout is not None
    output = proc.stdout.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if timer is not None:
        timer.cancel()
    code = proc.returncode
    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        verdict = TIMEOUT
    elif code == 0:
        verdict = SURVIVED
    elif code == 1 or (suite == "model" and code == 2):
        verdict = KILLED
    else:
        verdict = OTHER
    lines = [line for line in output.splitlines() if line.strip()]
    failed = [line for line in lines if line.startswith("FAILED")]
    return {
        "verdict": verdict,
        "exit": code,
        "cpu": round(usage.ru_utime + usage.ru_stime, 1),
        "wall": round(time.perf_counter() - start, 1),
        "why": (failed or lines or [""])[-1][:300],
    }


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of k successes in n trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def score(verdicts: dict[str, str], equivalent: set[str] | None = None) -> dict[str, Any]:
    """Killed of scored (timeouts left out) and, with ``equivalent`` (the survivors
    ``model_equivalent.json`` argues about), killed of the non-equivalent ones too."""
    c = Counter(verdicts.values())
    scored = len(verdicts) - c[TIMEOUT]
    low, high = wilson(c[KILLED], scored)
    out: dict[str, Any] = {
        "tested": len(verdicts),
        "counts": dict(c),
        "scored": scored,
        "percent": round(100.0 * c[KILLED] / scored, 1) if scored else None,
        "wilson95": [round(100 * low, 1), round(100 * high, 1)],
    }
    if equivalent is not None:
        same = sorted(n for n in equivalent if verdicts.get(n) == SURVIVED)
        rest = scored - len(same)
        low, high = wilson(c[KILLED], rest)
        out["equivalent"] = same
        out["non_equivalent"] = rest
        out["percent_non_equivalent"] = round(100.0 * c[KILLED] / rest, 1) if rest else None
        out["wilson95_non_equivalent"] = [round(100 * low, 1), round(100 * high, 1)]
    return out


def line(label: str, s: dict[str, Any]) -> str:
    c = Counter(s["counts"])
    text = (
        f"{label}: {c[KILLED]}/{s['scored']} killed ({s['percent']}%, 95% Wilson "
        f"{s['wilson95'][0]}-{s['wilson95'][1]}%); survived {c[SURVIVED]}, timeout "
        f"{c[TIMEOUT]}, other {c[OTHER]}"
    )
    if "non_equivalent" in s:
        low, high = s["wilson95_non_equivalent"]
        text += (
            f"; {len(s['equivalent'])} equivalent: {c[KILLED]}/{s['non_equivalent']} "
            f"non-equivalent killed ({s['percent_non_equivalent']}%, 95% Wilson {low}-{high}%)"
        )
    return text


def load_equivalent(path: Path = EQUIVALENT) -> dict[str, dict[str, Any]]:
    """The model's survivors argued to be equivalent under SPEC.md (``model_equivalent.json``,
    entries as in ``equivalent.json``: mutant, where, rule, removed, added, reason); a list with
    a duplicate or a rule given two reasons is refused."""
    entries = base.load_equivalent_entries(path)
    problems = base.entry_list_problems(entries)
    if problems:
        raise SystemExit(f"{path.name}: " + "; ".join(problems))
    return {str(e["mutant"]): e for e in entries}


def applies(entry: dict[str, Any], diff: str) -> bool:
    """An entry argues about one change: it applies while the diff removes and adds exactly
    the recorded lines."""
    removed, added = base.changed_lines(diff)
    return bool(removed == entry["removed"] and added == entry["added"])


def equivalence_problems(entries: dict[str, dict[str, Any]], modules: dict[str, str]) -> list[str]:
    """The entries that no longer describe a generated mutant: gone, another change, another
    line (a stale argument is refused, never applied)."""
    problems = []
    for name, entry in sorted(entries.items()):
        if name not in modules:
            problems.append(f"{name}: no such mutant of the current tree")
            continue
        where, diff = diff_of(name, modules[name])
        if not applies(entry, diff):
            problems.append(f"{name}: the mutant's change is not the one the entry argues about")
        elif where != entry["where"]:
            problems.append(f"{name}: the mutant is at {where}, the entry says {entry['where']}")
    return problems


def equivalent_in(
    mutants: dict[str, dict[str, Any]], entries: dict[str, dict[str, Any]] | None = None
) -> set[str]:
    """The mutants of a report that an entry of ``entries`` (default: ``model_equivalent.json``)
    applies to (their recorded diff is the argued change)."""
    entries = load_equivalent() if entries is None else entries
    return {
        n for n, e in mutants.items() if n in entries and applies(entries[n], e.get("diff", ""))
    }


def diff_of(name: str, module: str) -> tuple[str, str]:
    """Where (``model/<module>:line``) and the unified diff of one mutant."""
    saved = base.REPO
    base.REPO = WORK  # `describe` reads the unmutated function from <REPO>/src/<module>
    try:
        where, diff = base.describe(WORK, module, name)
    finally:
        base.REPO = saved
    return f"model/{module}:{where}", diff


def kill_kind(why: str) -> str:
    """What made prove fail: an exception, or the first failing row's check kind."""
    if why.startswith("FAILED exception"):
        return "exception"
    if not why.startswith("FAILED "):
        return "other"
    check = why.split("] ", 1)[1].split(":", 1)[0] if "] " in why else ""
    return "mutant row" if check == "mutant" else f"{check or 'other'} row"


_CALLED = re.compile(r"^(?P<dotted>.+)\.x(?:ǁ(?P<cls>[^ǁ]+)ǁ|_)(?P<func>.+)__mutmut_\d+$")


def annotate(report: dict[str, Any]) -> None:
    """Add to a results report which survivors of prove sit in a function that the unmutated
    ``prove --all-profiles`` never calls (one profiled run), and the kills by kind."""
    calls = WORK / "prove-calls.json"  # once per run: `prepare` empties WORK
    if not calls.exists():
        subprocess.run(
            [sys.executable, str(WORK / PROVE.name), "--calls", str(calls)],
            cwd=WORK,
            env={  # the unmutated copy of the model and the snapshotted proofs
                **{k: v for k, v in os.environ.items() if k != "MUTANT_UNDER_TEST"},
                "PYTHONPATH": os.pathsep.join(str(WORK / d) for d in ("src", "proofs")),
            },
            check=True,
            stdout=subprocess.DEVNULL,
        )
    drawn = report.get("drawn", list(report["mutants"]))
    prefix = 0
    while prefix < len(drawn) and drawn[prefix] in report["mutants"]:
        prefix += 1
    if prefix < len(drawn):  # interrupted: score the first `prefix` drawn, a random sample too
        report["mutants"] = {n: report["mutants"][n] for n in drawn[:prefix]}
        report["interrupted_at"] = prefix
    # re-scored with the equivalence arguments as they are now
    same = equivalent_in(report["mutants"])
    report["prove"] = score({n: e["prove"]["verdict"] for n, e in report["mutants"].items()}, same)
    report["both"] = score({n: e["both"] for n, e in report["mutants"].items()}, same)
    called = set(json.loads(calls.read_text(encoding="utf-8")))
    for name, entry in report["mutants"].items():
        if entry["prove"]["verdict"] == KILLED:
            entry["kill_kind"] = kill_kind(entry["prove"]["why"])
            continue
        if name in same:
            entry["equivalent"] = load_equivalent()[name]["rule"]
        m = _CALLED.match(name)
        assert m is not None, name
        module = m["dotted"].removeprefix(PACKAGE + ".").replace(".", "/")
        qual = f"{m['cls']}.{m['func']}" if m["cls"] else m["func"]
        entry["reached_by_prove"] = f"{module}:{qual}" in called
    report["prove_kills_by_kind"] = dict(
        Counter(e["kill_kind"] for e in report["mutants"].values() if "kill_kind" in e)
    )


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sample", type=int, default=0, help="test N random mutants (0: all)")
    p.add_argument("--sample-seed", type=int, default=0)
    p.add_argument(
        "--sample-non-equivalent",
        action="store_true",
        help="draw --sample from the mutants model_equivalent.json does not list",
    )
    p.add_argument(
        "--mutant",
        action="append",
        default=[],
        metavar="NAME",
        help="test this mutant (repeatable; instead of a sample)",
    )
    p.add_argument(
        "--survivors",
        type=Path,
        metavar="FILE",
        help="test the mutants a --json report records as prove survivors (instead of a sample)",
    )
    p.add_argument("--jobs", type=int, default=2, help="mutants tested at once (default 2)")
    p.add_argument(
        "--timeout-multiplier",
        type=float,
        default=3.0,
        help="CPU budget per run: this x the clean run's CPU seconds + 10 (default 3)",
    )
    p.add_argument(
        "--prove-only",
        action="store_true",
        help="score prove alone: do not run tests/model on prove's survivors (report 'both' "
        "is then prove's verdict, marked prove_only)",
    )
    p.add_argument("--json", type=Path, help="write the results here (rewritten per mutant)")
    p.add_argument(
        "--resume",
        type=Path,
        help="reuse this --json file's verdicts (same tree, seed and sample), re-running only the "
        "drawn mutants it lacks or whose run was 'other' (no verdict)",
    )
    p.add_argument(
        "--annotate",
        type=Path,
        help="do not run mutants: add reach and kill kinds to this --json file's results",
    )
    args = p.parse_args(argv)
    if args.annotate is not None:
        report = json.loads(args.annotate.read_text(encoding="utf-8"))
        annotate(report)
        args.annotate.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", "utf-8")
        if "interrupted_at" in report:
            print(f"interrupted: scoring the first {report['interrupted_at']} drawn mutants")
        print(line("prove --all-profiles alone", report["prove"]))
        if not report.get("prove_only"):
            print(line("prove + tests/model", report["both"]))
        print(f"prove kills by kind: {report['prove_kills_by_kind']}")
        for name, entry in report["mutants"].items():
            if "reached_by_prove" in entry:
                reached = "reached" if entry["reached_by_prove"] else "NOT reached"
                why = f", equivalent ({entry['equivalent']})" if "equivalent" in entry else ""
                model = "" if report.get("prove_only") else f", with tests/model {entry['both']}"
                print(f"  survivor {name}: {reached} by prove{model}{why}")
        return 0
    if args.sample < 0 or args.jobs < 1 or args.timeout_multiplier <= 0:
        p.error("--sample must be >= 0, --jobs >= 1, --timeout-multiplier > 0")
    named: list[str] = list(args.mutant)
    if args.survivors is not None:
        try:
            earlier = json.loads(args.survivors.read_text(encoding="utf-8"))
            named += [n for n, e in earlier["mutants"].items() if e["prove"]["verdict"] == SURVIVED]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            p.error(f"--survivors {args.survivors}: not a --json report ({exc})")
    if named and (args.sample or args.sample_non_equivalent):
        p.error("--mutant/--survivors and --sample/--sample-non-equivalent exclude each other")
    equivalent = load_equivalent()

    start = time.perf_counter()
    prepare()
    base.generate_only(WORK, args.jobs)
    modules = {n: m for n, (m, _) in base.load_results("").items()}
    every = sorted(modules)
    problems = equivalence_problems(equivalent, modules)
    if problems:
        raise SystemExit(f"{EQUIVALENT.name}: stale entries: " + "; ".join(problems))
    drawn = every
    if named:
        unknown = sorted(set(named) - set(modules))
        if unknown:
            raise SystemExit(f"no such mutant of the current tree: {', '.join(unknown)}")
        drawn = list(dict.fromkeys(named))
    elif args.sample:
        population = every
        if args.sample_non_equivalent:
            population = [n for n in every if n not in equivalent]
        drawn = random.Random(args.sample_seed).sample(
            population, min(args.sample, len(population))
        )
    print(f"model mutants: {len(every)} generated in {time.perf_counter() - start:.0f} s; "
          f"testing {len(drawn)} (seed {args.sample_seed})", flush=True)  # fmt: skip

    budget: dict[str, float] = {}
    for suite in ("prove",) if args.prove_only else ("prove", "model"):
        clean = execute(suite, "", None)
        fail = execute(suite, "fail", None)
        if clean["verdict"] != SURVIVED or fail["verdict"] != KILLED:
            raise SystemExit(f"{suite}: setup check failed: clean {clean}, fail sentinel {fail}")
        budget[suite] = args.timeout_multiplier * clean["cpu"] + 10
        print(f"{suite}: clean run {clean['cpu']} CPU s ({clean['wall']} s wall); CPU budget "
              f"per mutant {budget[suite]:.0f} s", flush=True)  # fmt: skip

    results: dict[str, dict[str, Any]] = {}
    lock = threading.Lock()

    def save() -> None:
        if args.json is None:
            return
        done = [n for n in drawn if n in results]
        same = equivalent_in({n: results[n] for n in done})
        report = {
            "tool": "mutmut (mutants only; runs by tools/mutation/model.py)",
            "generated": len(every),
            "sample": len(drawn),
            "seed": None if named else args.sample_seed,
            "sample_non_equivalent": bool(args.sample_non_equivalent),
            "clean_cpu_budget": budget,
            "prove_only": bool(args.prove_only),
            "drawn": drawn,  # the draw order: an interrupted run is scored on its done prefix
            "done": len(done),
            "prove": score({n: results[n]["prove"]["verdict"] for n in done}, same),
            "both": score({n: results[n]["both"] for n in done}, same),
            "mutants": {n: results[n] for n in done},
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", "utf-8")

    def one(name: str) -> None:
        entry: dict[str, Any] = {"module": modules[name]}
        entry["prove"] = execute("prove", name, budget["prove"])
        both = entry["prove"]["verdict"]
        if both != KILLED and not args.prove_only:
            entry["model"] = execute("model", name, budget["model"])
            if entry["model"]["verdict"] == KILLED:
                both = KILLED
        entry["both"] = both
        if entry["prove"]["verdict"] != KILLED:
            entry["where"], entry["diff"] = diff_of(name, modules[name])
        with lock:
            results[name] = entry
            print(f"[{len(results)}/{len(drawn)}] {name}: prove {entry['prove']['verdict']} "
                  f"({entry['prove']['cpu']} CPU s), both {both}", flush=True)  # fmt: skip
            save()

    if args.resume is not None:
        earlier = json.loads(args.resume.read_text(encoding="utf-8"))
        seed = None if named else args.sample_seed
        if earlier["seed"] != seed or earlier["generated"] != len(every):
            raise SystemExit(f"--resume {args.resume}: another seed or tree")
        for name, entry in earlier["mutants"].items():
            # An import failure of the suite is no verdict (a run before the driver said so
            # with exit 3 recorded it as a kill): such entries are run again.
            no_start = entry["prove"]["why"].startswith(("SETUP", "ModuleNotFoundError"))
            verdicts = (entry["prove"]["verdict"], entry["both"])
            if name in drawn and OTHER not in verdicts and not no_start:
                results[name] = entry
        print(f"resumed {len(results)} verdicts from {args.resume}", flush=True)
    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(one, [n for n in drawn if n not in results]))

    same = equivalent_in(results)
    prove = score({n: results[n]["prove"]["verdict"] for n in drawn}, same)
    both = score({n: results[n]["both"] for n in drawn}, same)
    print(line("prove --all-profiles alone", prove))
    if not args.prove_only:
        print(line("prove + tests/model", both))
    for n in drawn:
        if results[n]["prove"]["verdict"] != KILLED:
            r = results[n]
            print(f"\n## {r['where']} {n}: prove {r['prove']['verdict']}, both {r['both']}")
            print(r["diff"])
    print(f"\n{time.perf_counter() - start:.0f} s")
    save()
    if args.json is not None:  # which survivors prove never reaches, kills by kind
        return main(["--annotate", str(args.json)])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
