"""Write docs/figures.md: the measured figures the documentation refers to, from one run.

Every figure on that page comes from a command this script runs (or, for the model's mutation
sample, from the committed result file the named command writes), so the page is regenerated,
never edited.  The cheap measurements take about a minute on two cores:

    python benchmarks/figures.py                 # writes docs/figures.md
    python benchmarks/figures.py --out FILE      # elsewhere
    python benchmarks/figures.py --nightly       # also the nightly exploration (minutes)

Times depend on the machine and its load; the page says which machine it ran on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from session_toolset_harness.conform import compact

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "src" / "session_toolset_harness" / "vectors"
MUTATION = ROOT / "tools" / "mutation"
MODEL_SAMPLES = (  # each committed sample result and the command that writes it
    (
        MUTATION / "model_sample_seed1.json",
        "--sample 80 --sample-seed 1 --sample-non-equivalent --prove-only",
    ),
)
CLI = [sys.executable, "-m", "session_toolset_harness.cli"]


@dataclass(frozen=True)
class Command:
    """One measured command: what the page shows, and what this script runs for it."""

    title: str
    shown: str
    argv: list[str]
    keep: int = 3
    """How many of the last non-blank output lines are its summary."""


COMMANDS = [
    Command(
        "Conformance of the reference adapter (the packaged corpus)",
        "session-toolset conform --quiet",
        [*CLI, "conform", "--quiet"],
    ),
    Command(
        "Proofs, every profile, and the hazards",
        "session-toolset prove --all-profiles --hazards --quiet --no-cache",
        [*CLI, "prove", "--all-profiles", "--hazards", "--quiet", "--no-cache"],
    ),
    Command(
        "Exploration at the ci budget, in-process, seed 0",
        "session-toolset explore --budget ci --seed 0 --quiet",
        [*CLI, "explore", "--budget", "ci", "--seed", "0", "--quiet"],
    ),
    Command(
        "Tests collected by the default run",
        "pytest --collect-only -q",
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        keep=1,
    ),
]

NIGHTLY = Command(
    "Exploration at the nightly budget, two jobs, through the reference adapter",
    "session-toolset explore --budget nightly --seed 0 --jobs 2"
    ' --adapter "python -m session_toolset.adapter" --quiet',
    [
        *CLI,
        "explore",
        "--budget",
        "nightly",
        "--seed",
        "0",
        "--jobs",
        "2",
        "--adapter",
        "python -m session_toolset.adapter",
        "--quiet",
    ],
)


@dataclass(frozen=True)
class Measured:
    command: Command
    seconds: float
    status: int
    lines: list[str]


def run(command: Command, cwd: Path) -> Measured:
    """Run one command from ``cwd`` (an empty directory: no command may depend on it) and keep
    the summary lines it prints last."""
    start = time.perf_counter()
    done = subprocess.run(
        command.argv, cwd=cwd, capture_output=True, text=True, check=False, timeout=3600
    )
    seconds = time.perf_counter() - start
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return Measured(command, seconds, done.returncode, lines[-command.keep :])


def request_bytes(step: dict[str, object]) -> int:
    """The length of the request line a step sends, as the runner writes it (without ``\\n``)."""
    if "send_line" in step:
        return len(str(step["send_line"]).encode("utf-8", "surrogatepass"))
    if "send_hex" in step:
        return len(str(step["send_hex"])) // 2
    text = json.dumps(step["send"], ensure_ascii=False, separators=(",", ":"))
    return len(text.encode("utf-8", "surrogatepass"))


def corpus_lines() -> list[str]:
    """Vectors, groups, steps and the longest request line of the packaged corpus."""
    vectors = 0
    steps = 0
    longest = (0, "")
    groups: set[str] = set()
    for path in sorted(VECTORS.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or "steps" not in data:
            continue
        data = compact.expand(data)  # a compact vector's setups are steps too
        vectors += 1
        groups.add(path.relative_to(VECTORS).parts[0])
        for step in data["steps"]:
            steps += 1
            size = request_bytes(step)
            if size > longest[0]:
                longest = (size, str(data["id"]))
    return [
        f"- vectors: {vectors:,} in {len(groups)} top-level groups, {steps:,} steps",
        f"- longest request line: {longest[0]:,} bytes (`{longest[1]}`)",
    ]


def model_sample_lines(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    lines = []
    suites = (("prove", "`prove --all-profiles` alone"), ("both", "prove + `tests/model`"))
    for key, label in suites[:1] if data.get("prove_only") else suites:
        part = data[key]
        low, high = part["wilson95"]
        text = (
            f"- {label}: {part['counts'].get('killed', 0)} of {part['scored']} killed, "
            f"{part['percent']}% (95% Wilson interval {low}-{high}%)"
        )
        if "non_equivalent" in part:
            low, high = part["wilson95_non_equivalent"]
            text += (
                f"; {len(part['equivalent'])} argued equivalent in `model_equivalent.json`: "
                f"{part['counts'].get('killed', 0)} of {part['non_equivalent']} non-equivalent "
                f"killed, {part['percent_non_equivalent']}% ({low}-{high}%)"
            )
        lines.append(text)
    done = data.get("interrupted_at", data.get("done", data["sample"]))
    sample = f"- sample: {data['sample']} of {data['generated']:,} mutants, seed {data['seed']}"
    if done != data["sample"]:
        sample += f" (interrupted: the first {done} drawn are scored)"
    return [sample, *lines]


def model_sample_section() -> list[str]:
    out = [
        "",
        "## Mutation samples of the model",
        "",
        "Each read from the committed file that",
        "`python tools/mutation/model.py OPTIONS --jobs 2 --json FILE` writes (about half an hour",
        "on two cores; see [mutation.md](mutation.md)):",
    ]
    for path, options in MODEL_SAMPLES:
        if path.exists():
            lines = model_sample_lines(path)
            if (older := model_changed_since(path)) is not None:
                lines.insert(0, f"- **drawn on an older model:** {older}; re-draw to score it")
            out += ["", f"`{path.name}` (`{options}`):", "", *lines]
    return out


def model_changed_since(path: Path) -> str | None:
    """Why a committed sample no longer scores the current model (None: it does): its mutants
    are named by the source they were drawn from, so any change under model/ since the sample
    was committed (or since, uncommitted) makes its score a figure of another tree."""
    git = ["git", "-C", str(ROOT)]
    drawn = subprocess.run(
        [*git, "log", "-1", "--format=%H", "--", str(path)], capture_output=True, text=True
    ).stdout.strip()
    if not drawn:
        return "the sample is not committed, so the tree it was drawn on is unknown"
    changed = subprocess.run([*git, "diff", "--quiet", drawn, "--", "model"], check=False)
    if changed.returncode == 0:
        return None
    if changed.returncode != 1:
        return "git cannot tell whether model/ changed since the sample was committed"
    return "model/ has changed since the sample was committed"


def page(measured: list[Measured]) -> str:
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    machine = (
        f"Machine: {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}; load average {os.getloadavg()[0]:.1f} at the start; "
        f"generated {when}."
    )
    out = [
        "# Figures",
        "",
        "Generated by `python benchmarks/figures.py`; do not edit by hand. Each figure is what the",
        "command above it printed on this run; times depend on the machine and its load.",
        "",
        machine,
        "",
        "## The packaged corpus",
        "",
        "Counted from `src/session_toolset_harness/vectors/` (request lines as the runner writes",
        "them, without the newline):",
        "",
        *corpus_lines(),
    ]
    for m in measured:
        out += [
            "",
            f"## {m.command.title}",
            "",
            "```",
            f"$ {m.command.shown}",
            *m.lines,
            "```",
            "",
            f"Exit status {m.status}, {m.seconds:.1f} s wall.",
        ]
    out += [*model_sample_section(), ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "figures.md")
    parser.add_argument("--nightly", action="store_true", help="also the nightly exploration")
    args = parser.parse_args(argv)
    commands = [*COMMANDS, NIGHTLY] if args.nightly else COMMANDS
    measured = []
    with tempfile.TemporaryDirectory() as scratch:
        for command in commands:
            cwd = ROOT if command.argv[1:3] == ["-m", "pytest"] else Path(scratch)
            print(f"figures: {command.shown}", file=sys.stderr, flush=True)
            measured.append(run(command, cwd))
    failed = [m.command.shown for m in measured if m.status != 0]
    args.out.write_text(page(measured), encoding="utf-8")
    print(f"figures: wrote {args.out}", file=sys.stderr)
    if failed:
        print(f"figures: failed: {'; '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
