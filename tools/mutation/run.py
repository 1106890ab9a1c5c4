"""Mutation testing of ``src/session_toolset`` with mutmut, scored per test suite.

    python tools/mutation/run.py [--suite corpus] [--suite stateful] [--suite strength]
                                 [--jobs 2] [--sample N] [--json FILE] [--report-only]

Each suite is one mutmut run in its own work directory ``build/mutation/<suite>/``: a copy of
``src/session_toolset`` (the only code mutmut mutates) and the suite's tests, under a generated
``pyproject.toml`` that holds mutmut's configuration.  The project's own tree is never mutated, so
other work (and the project's ``pytest``) can go on while a run is in progress.  Mutant names are
deterministic, so the runs line up mutant by mutant and the combined scores are unions:

* ``corpus``   - every vector under ``src/session_toolset_harness/vectors/`` replayed in-process
  against the mutated adapter (``suites/test_mutation_corpus.py``, one item per vector);
* ``stateful`` - the explore state machine against the mutated adapter, fixed seed, bounded
  budget (``suites/test_mutation_stateful.py``);
* ``strength`` - ``tests/strength/``, the tests written to kill what the two suites let survive.

Reported for each suite and for ``corpus+stateful`` ("both") and, when ``strength`` ran,
``corpus+stateful+strength``: killed / survived / no tests / timeout / other, per module and in
total.  A mutant counts as killed by a union when any of its suites killed it; otherwise as a
timeout when any timed out; otherwise as survived (a mutant no test reaches - mutmut's "no tests"
- is reported apart but is a survivor: nothing would notice it).  The score is killed / (total -
timeouts): timeouts are neither kills nor survivors, and are listed apart.  The second score also
leaves out the survivors ``equivalent.json`` argues to be equivalent (an entry applies only while
the mutant's diff still removes and adds exactly the recorded lines).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PACKAGE = "session_toolset"
WORK = REPO / "build" / "mutation"
SUITES = ("corpus", "stateful", "strength")

# mutmut's exit-code vocabulary (mutmut/stats.py), folded into this report's classes.
KILLED = "killed"
SURVIVED = "survived"
NO_TESTS = "no tests"
TIMEOUT = "timeout"
OTHER = "other"
CLASSES = (KILLED, SURVIVED, NO_TESTS, TIMEOUT, OTHER)
_BY_EXIT_CODE: dict[int | None, str] = {
    1: KILLED,
    3: KILLED,  # pytest internal error while running a mutant: the mutant broke something
    -11: KILLED,  # the mutant crashed the interpreter
    0: SURVIVED,
    5: NO_TESTS,
    33: NO_TESTS,
    36: TIMEOUT,
    24: TIMEOUT,
    -24: TIMEOUT,
    152: TIMEOUT,
    255: TIMEOUT,
    -9: TIMEOUT,  # SIGKILL: mutmut's hard stop one CPU second after SIGXCPU
}

EQUIVALENT = HERE / "equivalent.json"
# Under WORK: the mutants a --stateful-on-corpus-survivors run gave the stateful suite.
SURVIVORS_ONLY_MARKER = "stateful-on-corpus-survivors.txt"

STATEFUL_DEFAULTS = {"examples": 25, "steps": 20, "seed": 0}


def classify(exit_code: int | None) -> str:
    return _BY_EXIT_CODE.get(exit_code, OTHER)


# --- work directories ------------------------------------------------------------------------


def _config(suite: str, timeout_multiplier: float) -> str:
    return "\n".join(
        [
            "[tool.mutmut]",
            f'source_paths = ["src/{PACKAGE}"]',
            'pytest_add_cli_args_test_selection = ["tests/"]',
            'pytest_add_cli_args = ["-p", "no:cacheprovider"]',
            "use_git_change_detection = false",
            f"timeout_multiplier = {timeout_multiplier}",
            "",
            "[tool.pytest.ini_options]",
            'addopts = ""',
            f"# suite: {suite}",
            "",
        ]
    )


def prepare(suite: str, timeout_multiplier: float, work: Path | None = None) -> Path:
    """A fresh work directory for ``suite`` (default ``build/mutation/<suite>``): source copy,
    suite tests, mutmut configuration."""
    work = WORK / suite if work is None else work
    if work.exists():
        shutil.rmtree(work)
    (work / "tests").mkdir(parents=True)
    shutil.copytree(
        REPO / "src" / PACKAGE,
        work / "src" / PACKAGE,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    if suite == "strength":
        shutil.copytree(
            REPO / "tests" / "strength",
            work / "tests" / "strength",
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
    else:
        shutil.copy2(HERE / "suites" / f"test_mutation_{suite}.py", work / "tests")
    (work / "pyproject.toml").write_text(_config(suite, timeout_multiplier), encoding="utf-8")
    return work


def _mutmut() -> list[str]:
    found = shutil.which("mutmut", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "mutmut"]


_GENERATE = """
from mutmut.__main__ import create_mutants
from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir, setup_source_paths
from mutmut.__main__ import set_mutant_under_test
import os
os.makedirs("mutants", exist_ok=True)
set_mutant_under_test("mutant_generation")
copy_src_dir()
copy_also_copy_files()
setup_source_paths()
create_mutants(int(os.environ["MUTATION_JOBS"]))
"""


def generate_only(work: Path, jobs: int) -> None:
    """Let mutmut write the mutants without running anything (to draw a sample from)."""
    env = dict(os.environ, MUTATION_JOBS=str(jobs))
    subprocess.run(
        [sys.executable, "-c", _GENERATE],
        cwd=work,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def run_suite(
    suite: str, *, jobs: int, names: Sequence[str], env: dict[str, str], log: Path
) -> float:
    """``mutmut run`` in the suite's work directory; the wall-clock seconds it took."""
    work = WORK / suite
    start = time.perf_counter()
    with log.open("w", encoding="utf-8") as out:
        done = subprocess.run(
            [*_mutmut(), "run", "--max-children", str(jobs), *names],
            cwd=work,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
        )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise SystemExit(f"mutmut run for {suite!r} failed ({done.returncode}); log {log}:\n{tail}")
    return seconds


# --- results -----------------------------------------------------------------------------------


@dataclass
class Mutant:
    name: str
    module: str  # path relative to src/, e.g. session_toolset/grant.py
    status: dict[str, str] = field(default_factory=dict)  # suite -> class


def meta_files(work: Path) -> list[Path]:
    return sorted((work / "mutants" / "src" / PACKAGE).rglob("*.py.meta"))


def load_results(suite: str, work: Path | None = None) -> dict[str, tuple[str, int | None]]:
    """mutant name -> (module path, exit code) for one suite's work directory."""
    work = WORK / suite if work is None else work
    found: dict[str, tuple[str, int | None]] = {}
    for meta in meta_files(work):
        module = meta.relative_to(work / "mutants" / "src").as_posix().removesuffix(".meta")
        data = json.loads(meta.read_text(encoding="utf-8"))
        for name, code in data["exit_code_by_key"].items():
            found[name] = (module, code)
    return found


def union(statuses: Iterable[str]) -> str:
    seen = set(statuses)
    for cls in (KILLED, TIMEOUT, OTHER, SURVIVED, NO_TESTS):
        if cls in seen:
            return cls
    return NO_TESTS


@dataclass
class Score:
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def percent(self) -> float:
        scored = self.total - self.counts[TIMEOUT]
        return 100.0 * self.counts[KILLED] / scored if scored else 100.0

    def row(self, label: str) -> str:
        cells = "".join(f"{self.counts[c]:>10}" for c in CLASSES)
        return f"{label:<40}{self.total:>7}{cells}{self.percent:>9.2f}%"


def header() -> str:
    cells = "".join(f"{c:>10}" for c in CLASSES)
    return f"{'':<40}{'total':>7}{cells}{'score':>10}{'equiv.':>8}{'w/o eq.':>10}"


def score(mutants: Iterable[Mutant], suites: Sequence[str]) -> tuple[Score, dict[str, Score]]:
    total = Score()
    per_module: dict[str, Score] = {}
    for mutant in mutants:
        cls = union(mutant.status[s] for s in suites)
        total.counts[cls] += 1
        per_module.setdefault(mutant.module, Score()).counts[cls] += 1
    return total, per_module


def wilson(killed: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a sampled kill rate, in percent."""
    if n == 0:
        return 0.0, 100.0
    p = killed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return 100.0 * max(0.0, centre - half), 100.0 * min(1.0, centre + half)


# --- survivors: where and what -----------------------------------------------------------------

_NAME = re.compile(r"^(?P<dotted>.+)\.x(?:ǁ(?P<cls>[^ǁ]+)ǁ|_)(?P<func>.+)__mutmut_(?P<n>\d+)$")


def _function_node(tree: ast.Module, cls: str | None, func: str) -> ast.AST | None:
    body: list[ast.stmt] = tree.body
    if cls is not None:
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls]
        if not classes:
            return None
        body = classes[0].body
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == func:
            return node
    return None


def describe(work: Path, module: str, name: str) -> tuple[int, str]:
    """The mutant's line in ``src/<module>`` and a unified diff of its function."""
    match = _NAME.match(name)
    spans_path = work / "mutants" / "src" / f"{module}.spans"
    if match is None or not spans_path.exists():
        return 0, f"(no diff: unrecognised mutant name {name})"
    generated = name.rpartition(".")[2]
    original_name = generated.rsplit("__mutmut_", 1)[0] + "__mutmut_orig"
    spans = json.loads(spans_path.read_text(encoding="utf-8"))["spans"]
    lines = (work / "mutants" / "src" / module).read_text(encoding="utf-8").splitlines()

    def chunk(key: str) -> list[str]:
        start, end = spans[key]
        return lines[start - 1 : end]

    before = [line.replace(original_name, match["func"]) for line in chunk(original_name)]
    after = [line.replace(generated, match["func"]) for line in chunk(generated)]
    diff = "\n".join(
        difflib.unified_diff(before, after, f"src/{module}", f"src/{module}", n=1, lineterm="")
    )
    source = (REPO / "src" / module).read_text(encoding="utf-8")
    node = _function_node(ast.parse(source), match["cls"], match["func"])
    line = 0
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        def_line = re.compile(rf"\s*(async\s+)?def\s+{re.escape(match['func'])}\b")
        def_index = next((i for i, text in enumerate(before) if def_line.match(text)), 0)
        first = next(
            (i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b),
            min(len(before), len(after)),
        )
        line = node.lineno + first - def_index
    return line, diff


# --- justified survivors ----------------------------------------------------------------------


def changed_lines(diff: str) -> tuple[list[str], list[str]]:
    """The removed and the added lines of a unified diff, stripped."""
    body = [line for line in diff.splitlines() if not line.startswith(("---", "+++", "@@"))]
    removed = [line[1:].strip() for line in body if line.startswith("-")]
    added = [line[1:].strip() for line in body if line.startswith("+")]
    return removed, added


def load_equivalent_entries(path: Path = EQUIVALENT) -> list[dict[str, Any]]:
    """The entries of ``equivalent.json`` as written, in file order (duplicates included)."""
    if not path.exists():
        return []
    entries: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return entries


def load_equivalent(path: Path = EQUIVALENT) -> dict[str, dict[str, Any]]:
    """Survivors argued to be equivalent: mutant name -> {removed, added, reason}.  An entry only
    applies while the mutant's diff still removes and adds exactly those lines, so a justification
    goes stale (and is reported) when the source moves under it."""
    return {str(entry["mutant"]): entry for entry in load_equivalent_entries(path)}


_RULE = re.compile(r"^[A-Z][A-Z0-9_]*$")


def entry_list_problems(entries: Sequence[dict[str, Any]]) -> list[str]:
    """What is wrong with the list as a whole: a mutant named twice (the second entry would
    silently replace the first), one change (file, line, removed, added) argued twice under two
    names, a rule that is not an upper-case name, or one rule given two different reasons (a
    rule is one argument: the report prints one reason per rule, so a second reason would be
    shown under the first one's text)."""
    problems: list[str] = []
    names = Counter(str(entry.get("mutant")) for entry in entries)
    problems += [f"{name}: {count} entries" for name, count in sorted(names.items()) if count > 1]
    changes = Counter(
        json.dumps([e.get("where"), e.get("removed"), e.get("added")]) for e in entries
    )
    problems += [f"the change {change} has {n} entries" for change, n in changes.items() if n > 1]
    reasons: dict[str, set[str]] = {}
    for entry in entries:
        rule = str(entry.get("rule", ""))
        if not _RULE.match(rule):
            problems.append(f"{entry.get('mutant')}: rule {rule!r} is not an upper-case name")
        reasons.setdefault(rule, set()).add(str(entry.get("reason", "")))
    problems += [
        f"rule {rule}: {len(texts)} different reasons"
        for rule, texts in sorted(reasons.items())
        if len(texts) > 1
    ]
    return problems


def generate_mutants(work: Path, jobs: int = 2) -> dict[str, str]:
    """Generate the mutants of the current tree in ``work`` (mutmut's generation step only, no
    test runs: a few seconds); mutant name -> module path."""
    prepare("corpus", 5.0, work)
    generate_only(work, jobs)
    return {name: module for name, (module, _) in load_results("corpus", work).items()}


def mutant_where(work: Path, module: str, name: str) -> tuple[str, list[str], list[str]]:
    """``src/<module>:<line>`` of a generated mutant (its first changed line in the current
    source), with the lines its diff removes and adds.  The line number is checked against the
    source text: the line there must read the first removed line, so a ``where`` derived here
    points at the code the entry argues about."""
    line, diff = describe(work, module, name)
    removed, added = changed_lines(diff)
    source = (REPO / "src" / module).read_text(encoding="utf-8").splitlines()
    if removed and not (0 < line <= len(source) and source[line - 1].strip() == removed[0]):
        raise ValueError(f"{name}: line {line} of src/{module} does not read {removed[0]!r}")
    return f"src/{module}:{line}", removed, added


def equivalence_problems(
    entries: dict[str, dict[str, Any]], work: Path, mutants: dict[str, str]
) -> list[str]:
    """One line per ``equivalent.json`` entry that no longer matches the mutants generated in
    ``work`` (`generate_mutants`): its mutant is gone, or the mutant's diff no longer removes and
    adds exactly the recorded lines, or its ``where`` is not the mutant's current file and line,
    or it carries no rule or reason.  A stale entry is an argument about code that is not there
    any more: CI fails until it is re-argued against the new diff or dropped (and the mutant
    scored like any other); a moved one (same diff, another line) is fixed with
    ``--fix-equivalent-where``.  Problems of the list as a whole: `entry_list_problems`."""
    problems: list[str] = []
    for name, entry in sorted(entries.items()):
        problems += [f"{name}: no {key}" for key in ("rule", "reason") if not entry.get(key)]
        if name not in mutants:
            problems.append(f"{name}: no such mutant of the current tree")
            continue
        where, removed, added = mutant_where(work, mutants[name], name)
        if removed != entry["removed"] or added != entry["added"]:
            problems.append(
                f"{name}: the mutant now changes {removed} -> {added}, "
                f"the entry argues about {entry['removed']} -> {entry['added']}"
            )
        elif entry.get("where") != where:
            said = entry.get("where")
            problems.append(f"{name}: the mutant is at {where}, the entry says {said}")
    return problems


def fix_equivalent_where(work: Path, mutants: dict[str, str], path: Path = EQUIVALENT) -> int:
    """Rewrite the ``where`` of every entry whose mutant still makes exactly the recorded change
    (same removed and added lines) but now sits on another line; nothing else is touched.  The
    number of entries changed."""
    entries = load_equivalent_entries(path)
    changed = 0
    for entry in entries:
        name = str(entry["mutant"])
        if name not in mutants:
            continue
        where, removed, added = mutant_where(work, mutants[name], name)
        if removed == entry["removed"] and added == entry["added"] and entry["where"] != where:
            entry["where"] = where
            changed += 1
    path.write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return changed


# --- Markdown ---------------------------------------------------------------------------------


def markdown(report: dict[str, Any], widest_label: str) -> str:
    """The report as Markdown: scores, per module, justified equivalents, open survivors."""
    out = [
        "| suites | total | killed | survived | no tests | timeout | score "
        "| equivalent | score without equivalent |"
    ]
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, data in report["scores"].items():
        c = Counter(data["total"])
        with_equivalent = data["percent_without_equivalent"]
        out.append(
            f"| {label} | {sum(c.values())} | {c[KILLED]} | {c[SURVIVED]} | {c[NO_TESTS]} "
            f"| {c[TIMEOUT]} | {data['percent']:.2f}% | {data['justified_equivalent']} "
            f"| {with_equivalent:.2f}% |"
        )
    out += ["", f"Per module ({widest_label}):", ""]
    out.append("| module | total | killed | survived | no tests | timeout |")
    out.append("|---|---:|---:|---:|---:|---:|")
    for module, counts in report["scores"][widest_label]["modules"].items():
        c = Counter(counts)
        out.append(
            f"| {module} | {sum(c.values())} | {c[KILLED]} | {c[SURVIVED]} | {c[NO_TESTS]} "
            f"| {c[TIMEOUT]} |"
        )
    justified = [s for s in report["survivors"] if s["equivalent"]]
    open_ = [s for s in report["survivors"] if not s["equivalent"]]
    out += ["", f"Survivors of {widest_label} justified as equivalent ({len(justified)}):"]
    groups: dict[str, list[dict[str, Any]]] = {}
    for item in justified:
        groups.setdefault(item["equivalent_rule"] or "-", []).append(item)
    for rule, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        out += ["", f"**{rule}** ({len(items)}): {items[0]['equivalent']}", ""]
        for item in items:
            removed, added = changed_lines(item["diff"])
            change = f"`{' / '.join(removed)}` → `{' / '.join(added)}`"
            out.append(f"- {item['where']} {change}")
    out += ["", f"Open survivors of {widest_label} ({len(open_)}):", ""]
    for item in open_:
        out += [f"- {item['where']} `{item['name']}`", "", "```diff", item["diff"], "```", ""]
    if report["timeouts"]:
        out += ["", f"Timeouts of {widest_label}: " + ", ".join(report["timeouts"])]
    return "\n".join(out) + "\n"


# --- the command -------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python tools/mutation/run.py",
        description="Mutation testing of src/session_toolset (mutmut), scored per suite.",
    )
    parser.add_argument(
        "--suite",
        action="append",
        choices=SUITES,
        help="suite to run (repeatable); default: corpus and stateful",
    )
    parser.add_argument("--jobs", type=int, default=2, help="mutants tested at once (default 2)")
    parser.add_argument("--sample", type=int, default=0, help="test N random mutants only")
    parser.add_argument("--sample-seed", type=int, default=0, help="seed for --sample (default 0)")
    parser.add_argument(
        "--mutants",
        type=Path,
        help="test only these mutants: a file of names, one per line, or a --json report "
        "(its survivors), e.g. to re-check an earlier run's survivors after adding vectors",
    )
    parser.add_argument("--json", type=Path, help="also write the full report as JSON here")
    parser.add_argument(
        "--markdown", type=Path, help="also write the scores and survivors as Markdown here"
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="do not run; score the results already under build/mutation/",
    )
    parser.add_argument(
        "--timeout-multiplier",
        type=float,
        default=5.0,
        help="mutmut's CPU budget per mutant is 2 x this x (clean test time + 1 s) (default 5)",
    )
    for key, value in STATEFUL_DEFAULTS.items():
        parser.add_argument(
            f"--stateful-{key}", type=int, default=value, help=f"stateful suite {key} ({value})"
        )
    parser.add_argument(
        "--stateful-profile",
        choices=("dev", "ci", "nightly"),
        help="run the stateful suite at this explore budget (its examples x steps, "
        "seed --stateful-seed) instead of --stateful-examples/--stateful-steps",
    )
    parser.add_argument(
        "--stateful-driver",
        choices=("in-process", "serve"),
        default="in-process",
        help="how the stateful suite reaches the mutated adapter: handle_line directly "
        "(in-process, the default) or its whole stdin/stdout loop in a thread (serve)",
    )
    parser.add_argument(
        "--sample-non-equivalent",
        action="store_true",
        help="draw --sample from the mutants not listed in equivalent.json",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="only the totals, not per module or survivors"
    )
    parser.add_argument(
        "--stateful-on-corpus-survivors",
        action="store_true",
        help="run the stateful suite only on the mutants the corpus suite did not kill: the "
        "corpus+stateful score is the same, in a fraction of the time, but stateful's own "
        "score is not measured (its row is left out)",
    )
    parser.add_argument(
        "--check-equivalent",
        action="store_true",
        help="generate the mutants (no test runs) and check every equivalent.json entry still "
        "matches one (same diff, same file and line, a rule and a reason, no duplicates); "
        "exit 1 if not",
    )
    parser.add_argument(
        "--fix-equivalent-where",
        action="store_true",
        help="generate the mutants, rewrite the file:line of every equivalent.json entry whose "
        "mutant makes the same change on another line, then check as --check-equivalent",
    )
    return parser


def _listed_mutants(path: Path) -> set[str]:
    """The mutant names in ``path``: one per line, or a report (``--json``) whose survivors
    are taken."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return {str(item["name"]) for item in json.loads(text)["survivors"]}
    return {line.strip() for line in text.splitlines() if line.strip()}


def _sample(suite: str, jobs: int, size: int, seed: int, exclude: Iterable[str] = ()) -> list[str]:
    generate_only(WORK / suite, jobs)
    names = sorted(set(load_results(suite)) - set(exclude))
    return sorted(random.Random(seed).sample(names, min(size, len(names))))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.check_equivalent or args.fix_equivalent_where:
        work = WORK / "equivalence"
        generated = generate_mutants(work, args.jobs)
        if args.fix_equivalent_where:
            moved = fix_equivalent_where(work, generated)
            print(f"{EQUIVALENT.name}: moved the where of {moved} entries")
        problems = entry_list_problems(load_equivalent_entries())
        problems += equivalence_problems(load_equivalent(), work, generated)
        for problem in problems:
            print(problem)
        print(f"{EQUIVALENT.name}: {len(load_equivalent())} entries, {len(problems)} problems")
        return 1 if problems else 0
    suites: list[str] = sorted(set(args.suite or ["corpus", "stateful"]), key=SUITES.index)
    env = dict(os.environ)
    for key in STATEFUL_DEFAULTS:
        env[f"MUTATION_STATEFUL_{key.upper()}"] = str(getattr(args, f"stateful_{key}"))
    env.pop("SESSION_TOOLSET_PROFILE", None)
    env.pop("MUTATION_STATEFUL_PROFILE", None)
    if args.stateful_profile:
        env["MUTATION_STATEFUL_PROFILE"] = args.stateful_profile
    env["MUTATION_STATEFUL_DRIVER"] = args.stateful_driver
    timings: dict[str, float] = {}
    names: list[str] = []
    survivors_only = bool(args.stateful_on_corpus_survivors)
    if survivors_only and not {"corpus", "stateful"} <= set(suites):
        build_parser().error("--stateful-on-corpus-survivors needs --suite corpus --suite stateful")
    if not args.report_only:
        WORK.mkdir(parents=True, exist_ok=True)
        for suite in suites:
            prepare(suite, args.timeout_multiplier)
        if args.sample:
            excluded = load_equivalent() if args.sample_non_equivalent else {}
            names = _sample(suites[0], args.jobs, args.sample, args.sample_seed, excluded)
        if args.mutants:
            names = sorted(_listed_mutants(args.mutants))
        marker = WORK / SURVIVORS_ONLY_MARKER
        marker.unlink(missing_ok=True)
        for suite in suites:
            selected = names
            if suite == "stateful" and survivors_only:
                selected = sorted(
                    name
                    for name, (_, code) in load_results("corpus").items()
                    if classify(code) not in (KILLED, TIMEOUT) and (not names or name in names)
                )
                marker.write_text("\n".join(selected) + "\n", encoding="utf-8")
                print(f"mutation: stateful on the {len(selected)} corpus survivors", flush=True)
                if not selected:
                    continue
            print(f"mutation: running suite {suite!r} ...", flush=True)
            timings[suite] = run_suite(
                suite, jobs=args.jobs, names=selected, env=env, log=WORK / f"{suite}.log"
            )
            print(f"mutation: suite {suite!r} done in {timings[suite]:.0f} s", flush=True)
    elif {"corpus", "stateful"} <= set(suites) and (WORK / SURVIVORS_ONLY_MARKER).exists():
        survivors_only = True  # re-scoring a survivors-only run: the marker lists what ran
    elif survivors_only:
        build_parser().error("--report-only: no survivors-only stateful run under build/mutation")

    results = {suite: load_results(suite) for suite in suites}
    if survivors_only:
        # stateful ran only where the corpus did not kill: elsewhere its verdict is "not run",
        # recorded as no tests, which a union with the corpus's kill ignores
        ran = set((WORK / SURVIVORS_ONLY_MARKER).read_text(encoding="utf-8").split())
        stateful = results["stateful"]
        results["stateful"] = {
            name: (module, stateful[name][1] if name in ran and name in stateful else 33)
            for name, (module, _) in results["corpus"].items()
        }
    mutants: dict[str, Mutant] = {}
    for suite, found in results.items():
        for name, (module, code) in found.items():
            mutant = mutants.setdefault(name, Mutant(name, module))
            mutant.status[suite] = classify(code)
    if names:
        mutants = {n: m for n, m in mutants.items() if n in set(names)}
    else:  # a mutant mutmut never reached ("not checked") has no verdict: leave it out, say so
        unchecked = [m for m in mutants.values() if None in (results[s][m.name][1] for s in suites)]
        if unchecked:
            print(f"mutation: {len(unchecked)} mutants were never checked (interrupted run?)")
            mutants = {n: m for n, m in mutants.items() if m not in unchecked}
    for mutant in mutants.values():
        for suite in suites:
            mutant.status.setdefault(suite, NO_TESTS)

    combos: list[tuple[str, list[str]]] = [
        (s, [s]) for s in suites if not (survivors_only and s == "stateful")
    ]
    if {"corpus", "stateful"} <= set(suites):
        combos.append(("corpus+stateful", ["corpus", "stateful"]))
    if len(suites) > 1 and set(suites) != {"corpus", "stateful"}:
        combos.append(("+".join(suites), list(suites)))

    # Describe every mutant some combination lets survive (the diff is needed to match the
    # justified-equivalent list), then score each combination with and without that list.
    equivalent = load_equivalent()
    work = WORK / suites[0]
    described: dict[str, tuple[int, str]] = {}
    justified: set[str] = set()
    for mutant in mutants.values():
        if all(
            union(mutant.status[s] for s in members) in (KILLED, TIMEOUT) for _, members in combos
        ):
            continue
        described[mutant.name] = describe(work, mutant.module, mutant.name)
        entry = equivalent.get(mutant.name)
        if entry is not None:
            removed, added = changed_lines(described[mutant.name][1])
            if removed == entry["removed"] and added == entry["added"]:
                justified.add(mutant.name)
    stale = sorted(set(equivalent) - justified)

    report: dict[str, Any] = {
        "tool": "mutmut",
        "suites": suites,
        "sample": len(names) or None,
        "seconds": timings,
        "stateful": {k: getattr(args, f"stateful_{k}") for k in STATEFUL_DEFAULTS},
        "stateful_profile": args.stateful_profile,
        "stateful_driver": args.stateful_driver,
        "sample_seed": args.sample_seed if names else None,
        "sample_non_equivalent": bool(args.sample_non_equivalent) if names else None,
        "stateful_on_corpus_survivors_only": survivors_only,
        "scores": {},
    }
    print()
    print(header())
    for label, members in combos:
        total, per_module = score(mutants.values(), members)
        surviving = {
            m.name
            for m in mutants.values()
            if union(m.status[s] for s in members) not in (KILLED, TIMEOUT)
        }
        equivalent_here = len(surviving & justified)
        scored = total.total - total.counts[TIMEOUT]
        # the usual mutation score: equivalent mutants leave the denominator, like timeouts
        rest = scored - equivalent_here
        adjusted = 100.0 * total.counts[KILLED] / rest if rest else 100.0
        print(total.row(label) + f"{equivalent_here:>8}{adjusted:>9.2f}%")
        interval = wilson(total.counts[KILLED], rest) if names else None
        if interval is not None:
            print(
                f"{'':<40}sample of {len(names)}: {total.counts[KILLED]}/{rest} non-equivalent "
                f"killed, 95% Wilson interval {interval[0]:.1f}%-{interval[1]:.1f}%"
            )
        report["scores"][label] = {
            "wilson_95": [round(x, 2) for x in interval] if interval else None,
            "total": dict(total.counts),
            "percent": round(total.percent, 2),
            "justified_equivalent": equivalent_here,
            "percent_without_equivalent": round(adjusted, 2),
            "modules": {m: dict(s.counts) for m, s in sorted(per_module.items())},
        }
    widest_label, widest = combos[-1]
    if not args.quiet:
        print(f"\nper module, {widest_label}:")
        _, per_module = score(mutants.values(), widest)
        for module, module_score in sorted(per_module.items()):
            print(module_score.row(module))

    survivors = []
    for mutant in sorted(mutants.values(), key=lambda m: m.name):
        cls = union(mutant.status[s] for s in widest)
        if cls in (KILLED, TIMEOUT):
            continue
        line, diff = described[mutant.name]
        survivors.append(
            {
                "name": mutant.name,
                "where": f"src/{mutant.module}:{line}",
                "class": cls,
                "by_suite": mutant.status,
                "equivalent": equivalent[mutant.name]["reason"]
                if mutant.name in justified
                else None,
                "equivalent_rule": equivalent[mutant.name].get("rule", "")
                if mutant.name in justified
                else None,
                "diff": diff,
            }
        )
    timeouts = [m.name for m in mutants.values() if union(m.status[s] for s in widest) == TIMEOUT]
    report["survivors"] = survivors
    report["timeouts"] = sorted(timeouts)
    report["stale_equivalent_entries"] = stale
    if not args.quiet:
        open_survivors = [item for item in survivors if item["equivalent"] is None]
        print(
            f"\nsurvivors of {widest_label}: {len(survivors)} "
            f"({len(survivors) - len(open_survivors)} justified as equivalent in {EQUIVALENT.name})"
        )
        for item in open_survivors:
            print(f"\n## {item['where']}  {item['name']}  ({item['class']})")
            print(item["diff"])
        if timeouts:
            print(f"\ntimeouts of {widest_label}: {', '.join(sorted(timeouts))}")
    if stale and not names:
        print(f"\nstale entries in {EQUIVALENT.name} (no longer a matching survivor): {stale}")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(markdown(report, widest_label), "utf-8")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
