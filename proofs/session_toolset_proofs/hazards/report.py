"""Rendering checked hazards: the text block of ``prove --hazards`` and its JSON form."""

from __future__ import annotations

from typing import Any

from session_toolset_model.concrete import Grant
from session_toolset_model.enumerate import KINDS, Action
from session_toolset_model.profiles import Variant

from .changes import sweep, table
from .check import Result, UnderProfile
from .search import Trace

METHOD = (
    "Hazards are found systematically: each section 6 obligation's premises are weakened and "
    "its goal strengthened, and every kind of catalog change is swept for what the gate still "
    "authorizes (the table below). Each candidate is checked from reset by breadth-first "
    "search over a small domain - every state reachable by a shorter trace is probed first, "
    "so each trace is of minimal length over that domain - and, where the model can state it, "
    "confirmed in Z3 by pinning its query to the trace (sat), or proved (unsat) with a "
    "witness and a refuting mutant."
)


def _value(x: Any) -> str:
    if isinstance(x, Grant):
        return f"grant({x.session},{x.tool},gen {x.gen},{x.digest})"
    if isinstance(x, tuple):
        return "[" + ",".join(_value(e) for e in x) + "]"
    return str(x)


def _kind(prov: Any, trust: Any) -> str:
    return next((k for k, (p, t) in KINDS.items() if p == prov and t == trust), f"{prov}")


def action_text(a: Action) -> str:
    """One action, compactly: records by (id, digest label, record kind)."""
    kw = a.kwargs
    if a.op in ("catalog_insert", "catalog_upsert"):
        args = [kw["tool"], kw["digest"], _kind(kw["prov"], kw["trust"])]
        if a.op == "catalog_upsert":
            args.insert(0, f"replacing {kw['replaced']}" if kw["has_replaced"] else "new")
        return f"{a.op}({', '.join(args)})"
    if a.op == "route":
        retained = kw["retained"] if kw["has_retained"] else "none"
        return f"route({retained} -> {kw['into']})"
    return f"{a.op}({', '.join(f'{k}={_value(v)}' for k, v in a.args)})"


def trace_lines(t: Trace) -> list[str]:
    lines = [f"{i + 1}. {action_text(a)}" for i, a in enumerate(t.prefix)]
    for j, r in enumerate(t.probe, start=len(t.prefix) + 1):
        lines.append(f"{j}. {action_text(r.action)} -> {r.result.code}")
    return lines


def text(results: list[Result], *, only_unexpected: bool = False) -> str:
    """The ``--hazards`` block: a summary line, then every hazard (or just failures)."""
    refuted = sum(r.result == "refuted" for r in results)
    proved = sum(r.result == "proved" for r in results)
    bad = [r for r in results if not r.passed]
    out = [
        f"hazards: {len(results)} checked, {len(results) - len(bad)} as expected "
        f"({refuted} refuted with a minimal trace, {proved} proved), {len(bad)} not"
    ]
    for r in bad if only_unexpected else results:
        h = r.hazard
        mark = "" if r.passed else f"  <-- expected {h.expect}"
        length = f", {r.trace.length} ops" if r.trace is not None else ""
        out.append(f"\n{h.name}: {r.result}{length}; {h.verdict}{mark}")
        out.append(f"  expected by a reader: {h.expectation}")
        out.append(f'  SPEC.md section {h.section}: "{h.spec}"')
        out.append(f"  derived from: {h.derived}")
        out.append(f"  verdict: {h.verdict} - {h.why}")
        out.append(f"  Z3: {r.z3}")
        if r.trace is not None:
            label = "witness" if h.expect == "proved" else "minimal trace"
            out.append(f"  {label} ({h.domain.describe()}):")
            out.extend("    " + line for line in trace_lines(r.trace))
    if not only_unexpected:
        out.append("\nwhat the gate still authorizes after each kind of catalog change:")
        out.append(table(sweep()))
    return "\n".join(out)


def _trace_json(t: Trace | None) -> list[dict[str, Any]]:
    if t is None:
        return []
    out: list[dict[str, Any]] = [{**a.to_json(), "outcome": "ok"} for a in t.prefix]
    out += [{**r.action.to_json(), "outcome": r.result.code, "final": True} for r in t.probe]
    return out


def to_json(results: list[Result]) -> dict[str, Any]:
    rows = []
    for r in results:
        h = r.hazard
        rows.append(
            {
                "name": h.name,
                "expectation": h.expectation,
                "section": h.section,
                "spec": h.spec,
                "derived": h.derived,
                "verdict": h.verdict,
                "why": h.why,
                "expected": h.expect,
                "result": r.result,
                "passed": r.passed,
                "z3": r.z3,
                "seconds": r.seconds,
                "domain": h.domain.describe(),
                "length": None if r.trace is None else r.trace.length,
                "explored_states": None if r.trace is None else r.trace.explored,
                "trace": _trace_json(r.trace),
                **(
                    {"mutant": h.mutant, "mutant_trace": _trace_json(r.mutant_trace)}
                    if h.mutant
                    else {}
                ),
                "vector": f"hazards/{h.name}",
            }
        )
    changes = [vars(row) for row in sweep()]
    return {
        "ok": all(r.passed for r in results),
        "method": METHOD,
        "rows": rows,
        "catalog_changes": changes,
    }


OUTSIDE_THE_MODEL = frozenset({"wire.alias_reassigned", "gate.source_swap_within_provenance"})
"""Hazards whose vectors hold steps or values the model's World does not replay."""


def changes_vector(r: Result, u: UnderProfile) -> bool | None:
    """Whether the hazard's vector (default expectations) is answered differently under the
    profile: an implementation following that rule would fail it.  None: not replayable by the
    model (the wire hazard)."""
    from ..vectors import replay
    from .vectors import hazard_vector

    if r.trace is None or r.hazard.name in OUTSIDE_THE_MODEL:
        return None
    return bool(replay(hazard_vector(r), Variant(u.profile)))


def profiles_text(results: list[Result], matrix: dict[str, list[UnderProfile]]) -> str:
    """Hazard x profile: the default's result, then each profile's (marked where it differs),
    and whether the hazard's vector would change."""
    if not matrix:
        return ""
    profiles = [u.profile for u in next(iter(matrix.values()))]
    lines = ["\nhazards under the other profiles (informational; * = differs from the default):"]
    head = f"{'hazard':60} {'default':9}"
    for p in profiles:
        head += f" {p:28}"
    lines.append(head.rstrip())
    for r in results:
        row = matrix.get(r.hazard.name)
        if row is None:
            continue
        line = f"{r.hazard.name:60} {r.result:9}"
        for u in row:
            mark = "*" if u.result != r.result else ""
            changed = changes_vector(r, u)
            vec = "" if changed is None else ("; vector changes" if changed else "")
            cell = f"{u.result}{mark}{vec}"
            line += f" {cell:28}"
        lines.append(line.rstrip())
    return "\n".join(lines)


def profiles_json(
    results: list[Result], matrix: dict[str, list[UnderProfile]]
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for r in results:
        for u in matrix.get(r.hazard.name, []):
            out.setdefault(r.hazard.name, {})[u.profile] = {
                "result": u.result,
                "z3": u.z3,
                "length": None if u.trace is None else u.trace.length,
                "trace": _trace_json(u.trace),
                "vector_changes": changes_vector(r, u),
            }
    return out
