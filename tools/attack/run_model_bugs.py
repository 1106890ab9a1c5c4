"""Plant each model bug of ``tools/attack/model_bugs/`` in a scratch copy and see what catches it.

    python tools/attack/run_model_bugs.py                 # every patch
    python tools/attack/run_model_bugs.py -k gate         # patches whose name contains "gate"
    python tools/attack/run_model_bugs.py --json out.json # also keep the per-bug results

Each ``<bug>.patch`` starts with one ``# SPEC.md ...`` line naming the sentence it breaks, then a
``git diff`` of the model.  For every patch the tracked files of this checkout are copied to a
temporary directory, the patch is applied there (never to the working tree), and, with that copy
first on ``PYTHONPATH``, two commands run:

* ``session-toolset prove --all-profiles --quiet --no-cache --json F``
* ``session-toolset check --quiet --json G``

The table lists, per bug: the proof rows (``check == "proof"``) whose result is not the expected
one, by name; how many other rows (witness, reachability, agreement, mutant) are unexpected; the
number of recorded vectors the patched model disagrees with; and which ``check`` stages failed.
Expect several minutes per bug on two cores (5 to 20 under load).  Exit status 0 when every run
finished (whatever it caught), 2 when a patch does not apply or a command cannot run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
BUGS = Path(__file__).resolve().parent / "model_bugs"
SOURCE_DIRS = ("src", "model", "proofs")
CHECK_STAGES = ("prove", "conform", "model_vs_recorded", "model_vs_implementation")


@dataclass
class Outcome:
    """What one planted bug did to ``prove`` and ``check``."""

    bug: str
    cites: str
    proof_rows: list[str] = field(default_factory=list)
    other_rows: dict[str, int] = field(default_factory=dict)
    recorded_disagreements: int = 0
    prove_exit: int = 0
    check_exit: int = 0
    check_failed: list[str] = field(default_factory=list)


def tracked_copy(dest: Path) -> None:
    """Copy the tracked files of this checkout (no virtual environment, no caches) to ``dest``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, check=True, capture_output=True
    ).stdout
    for name in listed.decode().split("\0"):
        if not name:
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)


def run_json(cmd: list[str], cwd: Path, env: dict[str, str], out: Path) -> tuple[int, Any]:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if not out.exists():
        raise RuntimeError(f"{' '.join(cmd)} wrote no report: {proc.stderr.strip()[-300:]}")
    return proc.returncode, json.loads(out.read_text())


def unexpected(rows: list[dict[str, Any]]) -> tuple[list[str], dict[str, int]]:
    """Names of the unexpected proof rows, and counts of the other unexpected rows by check."""
    proofs: list[str] = []
    others: dict[str, int] = {}
    for row in rows:
        if row["result"] == row["expected"]:
            continue
        if row["check"] == "proof":
            label = f"{row['name']}[{row['profile']}]={row['result']}"
            proofs.append(label)
        else:
            kind = row["check"].split(":")[0]
            others[kind] = others.get(kind, 0) + 1
    return proofs, others


def plant(patch: Path, session_toolset: str) -> Outcome:
    cites = patch.read_text().splitlines()[0].lstrip("# ").strip()
    outcome = Outcome(patch.stem, cites)
    with tempfile.TemporaryDirectory(prefix=f"model-bug-{patch.stem}-") as tmp:
        tree = Path(tmp) / "tree"
        tracked_copy(tree)
        applied = subprocess.run(
            ["git", "apply", str(patch)], cwd=tree, capture_output=True, text=True
        )
        if applied.returncode != 0:
            raise RuntimeError(f"{patch.name} does not apply: {applied.stderr.strip()}")
        env = dict(os.environ)
        paths = [str(tree / d) for d in SOURCE_DIRS]
        env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")]).rstrip(":")
        env.setdefault("SESSION_TOOLSET_SHARED", "/work/shared")
        prove_json = Path(tmp) / "prove.json"
        cmd = [session_toolset, "prove", "--all-profiles", "--quiet", "--no-cache"]
        outcome.prove_exit, report = run_json(
            [*cmd, "--json", str(prove_json)], tree, env, prove_json
        )
        outcome.proof_rows, outcome.other_rows = unexpected(report["rows"])
        outcome.recorded_disagreements = len(report["independent"]["disagreements"])
        check_json = Path(tmp) / "check.json"
        outcome.check_exit, check = run_json(
            [session_toolset, "check", "--quiet", "--json", str(check_json)],
            tree,
            env,
            check_json,
        )
        outcome.check_failed = [s for s in CHECK_STAGES if check[s]["exit_status"] != 0]
    return outcome


def table(outcomes: list[Outcome]) -> str:
    lines = [
        "| bug | proof rows refuted | other unexpected rows | recorded vectors differing | check |",
        "|---|---|---|---|---|",
    ]
    for o in outcomes:
        others = ", ".join(f"{k} {n}" for k, n in sorted(o.other_rows.items())) or "-"
        verdict = "fail: " + ", ".join(o.check_failed) if o.check_failed else "PASS (missed)"
        lines.append(
            f"| {o.bug} | {', '.join(o.proof_rows) or 'none'} | {others} "
            f"| {o.recorded_disagreements} | {verdict} |"
        )
    refuted = sum(1 for o in outcomes if o.proof_rows)
    caught = sum(1 for o in outcomes if o.check_failed)
    lines.append("")
    lines.append(
        f"{len(outcomes)} bugs: {refuted} refuted by a proof row, {caught} caught by check"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-k", default="", help="only patches whose name contains this text")
    parser.add_argument("--json", type=Path, help="write the per-bug results here")
    args = parser.parse_args(argv)
    session_toolset = shutil.which("session-toolset") or str(
        Path(sys.executable).with_name("session-toolset")
    )
    patches = sorted(p for p in BUGS.glob("*.patch") if args.k in p.stem)
    if not patches:
        print(f"run_model_bugs: error: no patch matches {args.k!r}", file=sys.stderr)
        return 2
    outcomes: list[Outcome] = []
    try:
        for patch in patches:
            outcomes.append(plant(patch, session_toolset))
            if sys.stderr.isatty():
                print(f"{patch.stem}: done", file=sys.stderr)
    except (RuntimeError, OSError) as exc:
        print(f"run_model_bugs: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("run_model_bugs: interrupted; the bugs run so far:", file=sys.stderr)
    print(table(outcomes))
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
