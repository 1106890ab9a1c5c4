"""Running obligations under profiles and mutants, and the report (table, JSON, JUnit).

Rows: for each selected profile, every obligation (``proof``: expected ``proved`` unless the
profile is expected to refute it); for the default profile also its ``witness`` (expected
``sat``) and one ``mutant`` row per mutant that must refute it (expected ``refuted``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from session_toolset_model.profiles import DEFAULT, DEFAULT_PROFILE, Variant

from .obligations import EXPECTED_PROFILE_REFUTATIONS, OBLIGATIONS, Obligation
from .reach import reachability
from .search import Found, find
from .solve import check


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

    @property
    def passed(self) -> bool:
        return self.result == self.expected


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
            f"{secs:.1f} s solver time"
        )

    def table(self) -> str:
        lines = [f"{'obligation':58} {'profile':18} {'check':22} {'result':9} {'s':>6}"]
        for r in self.rows:
            mark = "" if r.passed else f"  <-- expected {r.expected}"
            lines.append(
                f"{r.name:58} {r.profile:18} {r.check:22} {r.result:9} {r.seconds:6.2f}{mark}"
            )
            if r.result == "refuted" and r.trace:
                lines.append("    trace: " + ", ".join(f"{k}={v}" for k, v in r.trace.items()))
        return "\n".join(lines)

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
                "trace": r.trace,
                "concrete": r.concrete,
            }
            for r in self.rows
        ]
        return json.dumps({"ok": self.ok, "rows": rows}, indent=1)

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
        return Row(ob.name, v.profile, ob.kind, check_name, result, expected, out.seconds, {})
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


def run(profile_names: list[str], pattern: str | None = None) -> Report:
    """Check every obligation matching ``pattern`` (regex, searched) under the profiles."""
    rx = re.compile(pattern) if pattern else None
    rows: list[Row] = []
    for ob in OBLIGATIONS:
        if rx is not None and not rx.search(ob.name):
            continue
        for profile in profile_names:
            refuted = ob.name in EXPECTED_PROFILE_REFUTATIONS.get(profile, ())
            v = Variant(profile)
            expected = "refuted" if refuted else "proved"
            rows.append(_row(ob, v, "proof", True, expected, DEFAULT))
            if profile != DEFAULT_PROFILE:
                continue
            rows.append(_row(ob, v, "witness", False, "sat", None))
            for m in ob.refuted_by:
                rows.append(_row(ob, Variant(profile, m), f"mutant:{m}", True, "refuted", v))
    if DEFAULT_PROFILE in profile_names:
        for e in reachability():
            name = f"reach.{e.op}.{e.outcome}"
            if rx is not None and not rx.search(name):
                continue
            settled = e.result in ("reachable", "unreachable")
            rows.append(
                Row(
                    name,
                    DEFAULT_PROFILE,
                    "reachability",
                    "reach",
                    e.result,
                    e.result if settled else "reachable or unreachable",
                    e.seconds,
                    {},
                    e.concrete,
                )
            )
    return Report(rows)
