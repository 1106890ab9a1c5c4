"""Each hazard's trace as a PROTOCOL.md vector that pins today's behaviour (``vectors/hazards``).

The vector is built by `..vectors.vector` (the counterexample vector builder: ``hello``,
``reset``, the trace as requests, observations, every expectation from the default-profile
oracle) and then re-labelled: id ``hazards/<name>``, the hazard's tags and description.  A
refuted hazard's vector shows the surprising behaviour (SPEC.md allows it; a change to the rule
shows up as a failing vector); a proved hazard's vector is its witness, which the mutant that
refutes it answers differently.

The wire-name hazard's model trace gets its PROTOCOL.md wire-level steps here: every record's
``runtime_name`` (`wire.RUNTIME`), a ``resolve`` of the reassigned alias before and after the
change, and its two calls as ``authorize_wire`` through that alias.
"""

from __future__ import annotations

import copy
from typing import Any

from session_toolset_model.profiles import DEFAULT

from ..vectors import vector
from . import source, wire
from .check import Result

GROUP = "hazards"


def _relabel(doc: dict[str, Any], r: Result) -> dict[str, Any]:
    h = r.hazard
    assert r.trace is not None
    doc["id"] = f"{GROUP}/{h.name}"
    what = (
        f"the witness of a proved expectation (the mutant {h.mutant} answers differently)"
        if h.expect == "proved"
        else "a minimal trace refuting the expectation"
    )
    doc["description"] = (
        f"Hazard {h.name} (SPEC.md section {h.section}, {h.verdict}): a reader might expect "
        f"that {h.expectation}. This vector is {what}, {r.trace.length} operations from reset "
        f"(breadth-first over {h.domain.describe()}); it pins what SPEC.md allows today. "
        f'Responsible sentence: "{h.spec}"'
    )
    final = r.trace.actions[-1].op
    doc["tags"] = [
        "hazard",
        f"hazard:{h.name}",
        f"spec:{h.section}",
        f"verdict:{h.verdict.replace(' ', '-')}",
        f"expect:{h.expect}",
        f"op:{final}",
    ]
    return doc


def _wire_steps(doc: dict[str, Any], r: Result) -> dict[str, Any]:
    """Runtime names on inserts; the probe's two calls as wire calls through the alias."""
    assert r.trace is not None
    first, change, last = r.trace.probe
    t1, t2 = first.action.kwargs["tool"], last.action.kwargs["tool"]
    alias = wire.reassigned_wire(change.pre, change.result.state, t1, t2)
    assert alias is not None
    steps: list[dict[str, Any]] = []
    calls = 0
    for s in doc["steps"]:
        send = s["send"]
        if send["op"] in ("catalog_insert", "catalog_upsert"):
            send["runtime_name"] = wire.RUNTIME[send["id"]]
        if send["op"] == "authorize":
            tool = (t1, t2)[calls]
            calls += 1
            steps.append(
                {
                    "send": {"op": "resolve", "wire_name": alias},
                    "expect": {
                        "ok": True,
                        "wire_name": alias,
                        "runtime_name": wire.RUNTIME[tool],
                        "tool": tool,
                    },
                }
            )
            s = {
                "send": {"op": "authorize_wire", "set": send["set"], "wire_name": alias},
                "expect": s["expect"],
            }
        steps.append(s)
    doc["steps"] = steps
    return doc


def hazard_vector(r: Result) -> dict[str, Any]:
    """The vector of one checked hazard (its counterexample, or its witness if proved)."""
    assert r.trace is not None
    actions = r.trace.actions
    doc = vector(r.hazard.name, DEFAULT, actions[:-1], actions[-1])
    doc = _relabel(copy.deepcopy(doc), r)
    if r.hazard.name == wire.HAZARD.name:
        doc = _wire_steps(doc, r)
    if r.hazard.name == source.HAZARD.name:
        doc = _swap_source(doc, r)
    return doc


def _swap_source(doc: dict[str, Any], r: Result) -> dict[str, Any]:
    """The probe's upsert gets another tool name of the same server (same provenance and
    schema), and ``catalog_state`` expects that source."""
    assert r.trace is not None
    tool = r.trace.probe[0].action.kwargs["tool"]
    upserts = [s for s in doc["steps"] if s["send"]["op"] == "catalog_upsert"]
    send = upserts[-1]["send"]
    assert send["id"] == tool and send["source"]["kind"] == "mcp"
    send["source"]["server_tool_name"] += source.SWAPPED_SUFFIX
    for s in doc["steps"]:
        if s["send"]["op"] == "catalog_state":
            for rec in s["expect"]["records"]:
                if rec["id"] == tool:
                    rec["source"] = dict(send["source"])
    return doc


def hazard_vectors(results: list[Result]) -> list[dict[str, Any]]:
    return [hazard_vector(r) for r in results if r.trace is not None]
