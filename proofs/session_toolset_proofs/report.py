"""Running obligations under profiles and mutants, and the report (table, JSON, JUnit).

Rows: for each selected profile, every obligation (``proof``: expected ``proved`` unless the
profile is expected to refute it); for the default profile also its ``witness`` (expected
``sat``) and one ``mutant`` row per mutant that must refute it (expected ``refuted``).
"""

from __future__ import annotations

import json
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any
from xml.sax.saxutils import escape

from session_toolset_model import keyword, reachability
from session_toolset_model.ops import OPS, outcomes_for
from session_toolset_model.profiles import DEFAULT, DEFAULT_PROFILE, Variant

from .explore import nodes
from .obligations import EXPECTED_PROFILE_REFUTATIONS, OBLIGATIONS, Obligation
from .reach import reach_op
from .search import Found, find
from .solve import check, construction
from .vectors import vector, vector_id

FORMAT_VERSION = 1
"""The ``--json`` report's format: the envelope every session-toolset report opens with
(``session_toolset_harness.envelope``, restated here: the proofs import the model only)."""

CONSTRUCTION = ("simplify", "no premises")
"""Bases of a proved goal that hold by construction (reported apart, not counted as proved)."""


@dataclass
class Row:
    name: str
    profile: str
    kind: str
    check: str
    result: str
    expected: str
    seconds: float
    trace: dict[str, str] = field(default_factory=dict)
    concrete: list[dict[str, Any]] = field(default_factory=list)
    """The concrete trace from the initial state: ops with arguments and outcomes."""
    found: Found | None = field(default=None, repr=False, compare=False)
    basis: str = ""
    """For a proved row: ``premises``, or by construction (``simplify``, ``no premises``)."""

    @property
    def passed(self) -> bool:
        return self.result == self.expected

    @property
    def by_construction(self) -> bool:
        return self.result == "proved" and self.basis in CONSTRUCTION


@dataclass
class Report:
    rows: list[Row]

    @property
    def ok(self) -> bool:
        return all(r.passed for r in self.rows)

    def summary(self) -> str:
        failed = sum(not r.passed for r in self.rows)
        secs = sum(r.seconds for r in self.rows)
        return (
            f"{len(self.rows)} checks, {len(self.rows) - failed} as expected, {failed} not; "
            f"{self.proof_counts()}; {secs:.1f} s summed over checks"
        )

    def proof_counts(self) -> str:
        """Default-profile proofs: those that need their premises, apart from those that hold
        by construction (the goal simplifies to true, or holds with no premise at all)."""
        rows = [r for r in self.rows if r.check == "proof" and r.profile == DEFAULT_PROFILE]
        built = [r for r in rows if r.by_construction]
        simp = sum(r.basis == "simplify" for r in built)
        proved = sum(r.result == "proved" for r in rows) - len(built)
        return (
            f"{proved} obligations proved from their premises, {len(built)} hold by construction "
            f"({simp} simplify to true, {len(built) - simp} need no premises)"
        )

    def table(self, *, only_unexpected: bool = False) -> str:
        """The result table; with ``only_unexpected`` just the rows that failed (or "")."""
        rows = [r for r in self.rows if not r.passed] if only_unexpected else self.rows
        if not rows:
            return ""
        lines = [f"{'obligation':58} {'profile':18} {'check':22} {'result':9} {'s':>6}"]
        for r in rows:
            mark = "" if r.passed else f"  <-- expected {r.expected}"
            result = "construct" if r.by_construction else r.result
            lines.append(
                f"{r.name:58} {r.profile:18} {r.check:22} {result:9} {r.seconds:6.2f}{mark}"
            )
            if r.result == "refuted" and r.trace:
                lines.append("    trace: " + ", ".join(f"{k}={v}" for k, v in r.trace.items()))
        return "\n".join(lines)

    def envelope(self, ok: bool | None = None) -> dict[str, Any]:
        """The report's envelope; ``ok`` overrides the verdict (hazards, the replay)."""
        try:
            version = metadata.version("session-toolset")
        except metadata.PackageNotFoundError:
            version = "unknown"
        failed = sum(not r.passed for r in self.rows)
        return {
            "format": "session-toolset prove report",
            "format_version": FORMAT_VERSION,
            "tool": "session-toolset prove",
            "version": version,
            "verdict": "pass" if (self.ok if ok is None else ok) else "fail",
            "complete": True,
            "counts": {
                "checks": len(self.rows),
                "as_expected": len(self.rows) - failed,
                "unexpected": failed,
            },
        }

    def to_json(self) -> str:
        rows = [
            {
                "name": r.name,
                "profile": r.profile,
                "kind": r.kind,
                "check": r.check,
                "result": r.result,
                "expected": r.expected,
                "seconds": r.seconds,
                **({"basis": r.basis} if r.basis else {}),
                "trace": r.trace,
                "concrete": r.concrete,
                **({"vector": vector_id(r.name, row_variant(r))} if _has_cex(r) else {}),
            }
            for r in self.rows
        ]
        return json.dumps({**self.envelope(), "rows": rows}, indent=1)

    def to_junit(self) -> str:
        cases = []
        for r in self.rows:
            body = (
                ""
                if r.passed
                else (
                    f'<failure message="{escape(r.result)} (expected {escape(r.expected)})">'
                    f"{escape(json.dumps(r.trace))}</failure>"
                )
            )
            cases.append(
                f'<testcase classname="{escape(r.profile)}.{escape(r.check)}" '
                f'name="{escape(r.name)}" time="{r.seconds:.3f}">{body}</testcase>'
            )
        fails = sum(not r.passed for r in self.rows)
        return (
            f'<?xml version="1.0"?>\n<testsuite name="prove" tests="{len(self.rows)}" '
            f'failures="{fails}">' + "".join(cases) + "</testsuite>\n"
        )


_NAMES = {"unsat": "proved", "sat": "refuted", "unknown": "unknown"}


def _row(
    ob: Obligation, v: Variant, check_name: str, negate: bool, expected: str, base: Variant | None
) -> Row:
    """One check.  Proofs ask Z3 for unsat of the negated goal over arbitrary states; expected
    refutations and witnesses are searched concretely and confirmed in Z3 (`search.find`)."""
    if expected == "proved":
        out = check(lambda: ob.build(v), True)
        result = _NAMES[out.status]
        start = time.perf_counter()
        classify = result == "proved" and v.profile == DEFAULT_PROFILE  # the counted proofs
        basis = construction(lambda: ob.build(v)) if classify else ""
        seconds = out.seconds + time.perf_counter() - start
        row = Row(ob.name, v.profile, ob.kind, check_name, result, expected, seconds, {})
        row.basis = basis
        return row
    mode = "counterexample" if negate else "witness"
    found = find(ob, lambda: ob.build(v), v, mode, base)
    if found.status == "sat":
        result = "refuted" if negate else "sat"
    else:
        result = "unknown" if found.status == "unknown" else "not found"
    return Row(
        ob.name,
        v.profile,
        ob.kind,
        check_name,
        result,
        expected,
        found.seconds,
        found.trace,
        found.concrete,
        found,
    )


@dataclass(frozen=True)
class Job:
    """One unit of work: an obligation check (``ob`` set) or the reachability of one op."""

    group: str
    ob: Obligation | None = None
    variant: Variant = DEFAULT
    check_name: str = ""
    negate: bool = True
    expected: str = ""
    base: Variant | None = None
    reach_op: str | None = None
    reach_names: tuple[str, ...] = ()

    @property
    def weight(self) -> float:
        """A static cost estimate, only used to balance the partition across workers."""
        unit = 0.1 if self.check_name == "proof" else (1.0 if self.reach_op else 0.5)
        if self.check_name.startswith("mutant:"):
            unit = 1.0
        return unit * OP_COST.get(self.group, 1.0)

    def execute(self) -> list[Row]:
        if self.ob is not None:
            return [
                _row(self.ob, self.variant, self.check_name, self.negate, self.expected, self.base)
            ]
        assert self.reach_op is not None
        rows = []
        for e in reach_op(self.reach_op):
            name = f"reach.{e.op}.{e.outcome}"
            if name not in self.reach_names:
                continue
            rows.append(
                Row(
                    name,
                    DEFAULT_PROFILE,
                    "reachability",
                    "reach",
                    e.result,
                    reachability.expected(e.op, e.outcome),
                    e.seconds,
                    {},
                    e.concrete,
                )
            )
        return rows


OP_COST = {"activate_many": 4.0, "activate_model": 3.5, "rebuild": 2.0, "set_new": 1.5}
"""Relative cost of the checks about an op (the rest weigh 1): balancing only."""


def jobs(profile_names: list[str], pattern: str | None = None) -> list[Job]:
    """The checks of `run`, in report order."""
    out: list[Job] = []
    for ob in OBLIGATIONS:
        if not keyword.matches(pattern, ob.name):
            continue
        group = ob.op or "initiation"
        for profile in profile_names:
            refuted = ob.name in EXPECTED_PROFILE_REFUTATIONS.get(profile, ())
            v = Variant(profile)
            expected = "refuted" if refuted else "proved"
            out.append(Job(group, ob, v, "proof", True, expected, DEFAULT))
            if profile != DEFAULT_PROFILE:
                continue
            out.append(Job(group, ob, v, "witness", False, "sat", None))
            for m in ob.refuted_by:
                out.append(Job(group, ob, Variant(profile, m), f"mutant:{m}", True, "refuted", v))
    if DEFAULT_PROFILE in profile_names:
        for opname, op in OPS.items():
            names = tuple(
                f"reach.{opname}.{o}"
                for o in outcomes_for(op, DEFAULT)
                if keyword.matches(pattern, f"reach.{opname}.{o}")
            )
            if names:
                out.append(Job(opname, reach_op=opname, reach_names=names))
    return out


def partition(work: list[Job], n: int) -> list[list[int]]:
    """Job indices split into ``n`` parts, every op's jobs in one part (they share the concrete
    exploration's cached results); greedy by static weight, ties by first appearance.  The split
    depends only on the job list and ``n``, so each part runs the same checks in the same order
    on every run (determinism: a fresh solver per check, fixed seeds, rlimit budgets)."""
    groups: dict[str, list[int]] = {}
    for i, j in enumerate(work):
        groups.setdefault(j.group, []).append(i)
    load = [0.0] * n
    parts: list[list[int]] = [[] for _ in range(n)]
    order = sorted(groups, key=lambda g: -sum(work[i].weight for i in groups[g]))
    for g in order:
        k = min(range(n), key=lambda p: (load[p], p))
        load[k] += sum(work[i].weight for i in groups[g])
        parts[k].extend(groups[g])
    return [sorted(p) for p in parts]


def _execute(work: list[Job], indices: list[int]) -> list[tuple[int, list[Row]]]:
    return [(i, work[i].execute()) for i in indices]


_WORK: list[Job] = []


def _execute_part(indices: list[int]) -> list[tuple[int, list[Row]]]:
    return _execute(_WORK, indices)


def run(profile_names: list[str], pattern: str | None = None, workers: int = 1) -> Report:
    """Check every obligation selected by ``-k pattern`` (`keyword`) under the profiles.

    With ``workers`` > 1 the checks are split (`partition`) across forked processes; the rows
    come back in report order."""
    global _WORK
    work = jobs(profile_names, pattern)
    nodes()  # the shared exploration, computed before any fork
    parts = [p for p in partition(work, max(1, workers)) if p]
    results: dict[int, list[Row]] = {}
    if len(parts) <= 1:
        results.update(_execute(work, parts[0] if parts else []))
    else:
        _WORK = work
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(len(parts) - 1, mp_context=ctx) as pool:
            futures = [pool.submit(_execute_part, p) for p in parts[1:]]
            results.update(_execute(work, parts[0]))
            for f in futures:
                results.update(f.result())
        _WORK = []
    return Report([row for i in range(len(work)) for row in results[i]])


def _has_cex(r: Row) -> bool:
    return r.result == "refuted" and r.found is not None and r.found.node is not None


def _refutations(report: Report) -> list[Row]:
    """Rows holding a confirmed counterexample (profile refutations and mutant refutations)."""
    return [r for r in report.rows if _has_cex(r)]


def row_variant(r: Row) -> Variant:
    mutant = r.check.split(":", 1)[1] if r.check.startswith("mutant:") else None
    return Variant(r.profile, mutant)


def report_variants(report: Report) -> list[Variant]:
    """The variant of each of `counterexample_vectors`, in the same order."""
    return [row_variant(r) for r in _refutations(report)]


def counterexample_vectors(report: Report) -> list[dict[str, Any]]:
    """One PROTOCOL.md vector per counterexample of the report (see `vectors`)."""
    out = []
    for r in _refutations(report):
        assert r.found is not None and r.found.node is not None
        out.append(vector(r.name, row_variant(r), r.found.node.trace, r.found.final))
    return out
