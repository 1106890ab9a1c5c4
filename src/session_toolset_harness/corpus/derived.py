"""The corpus's derived vectors: what the model and the generators' finite lists determine, not a
person.  `files` is the builder's one call for them.

* ``model/``: the model's bounded enumerator (`session_toolset_model.enumerate`) gives, for
  every (operation, outcome) pair the reviewed table does not list unreachable, the shortest
  trace from the initial state that ends producing it (`enumerate.shortest`), and for every
  condition outcome (MC/DC) those traces miss, the first trace of the enumeration that covers it
  (`enumerate.covering`: traces of up to four actions before the final one). A greedy set cover
  keeps the fewest of those traces that together reach every such pair and every condition
  outcome any one of them reaches alone. Each becomes one vector: ``hello``, ``reset``, the
  trace as PROTOCOL.md requests (`enumerate.trace_requests`), then the observations
  (``snapshot`` of every set name, ``catalog_state``, ``factory_calls`` of every tool).
  Expectations are the model's expected world (`session_toolset_model.world.World`); digest
  fields are omitted (the digest vectors own digest values).
* ``edge-families/``: every case of the finite edge families (`edge_families`), in fixed
  chunks, each vector ending with ``catalog_state`` (a refused line changes nothing);
  expectations from the same world, exactly.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from session_toolset_model.conditions import ConditionTable, RecordingAlgebra, outcome_key
from session_toolset_model.enumerate import Action, Node, covering, shortest, trace_requests
from session_toolset_model.ops import OPS
from session_toolset_model.world import World

from ..conform.jsonio import RawLine, encode_line
from ..declared_difference import DECLARED_DIFFERENCE, mishandled
from .coverage import LISTED, model_pairs
from .edge_families import chunks

Reply = dict[str, Any]
Trace = tuple[Action, ...]
GROUPS = ("model", "edge-families")
"""The corpus directories this module writes."""

_HEAD: list[Reply] = [
    {"send": {"op": "hello"}, "expect": {"ok": True, "protocol": 1}},
    {"send": {"op": "reset"}, "expect": {"ok": True}},
]


def _outcome(reply: Reply) -> str:
    return "ok" if reply["ok"] else str(reply["error"])


def witnesses() -> dict[tuple[str, str], Trace]:
    """(op, outcome) -> the enumerator's shortest trace ending in it, for every model pair."""
    wanted = model_pairs()
    out: dict[tuple[str, str], Trace] = {}
    for opname in OPS:
        outcomes = [code for op, code in sorted(wanted) if op == opname]
        found: dict[str, tuple[Node, Action]] = shortest(opname, outcomes)
        for code, (node, act) in found.items():
            out[(opname, code)] = (*node.trace, act)
    return out


def condition_witnesses(traces: list[Trace]) -> dict[str, Trace]:
    """Condition outcome -> the enumerator's first trace covering it (`enumerate.covering`),
    for every outcome ``traces`` together miss and `coverage.LISTED` does not list."""
    table = ConditionTable()
    for trace in traces:
        world = World(alg=RecordingAlgebra(table))
        for request in trace_requests(trace):
            world.handle(request)
    found = covering(table, LISTED)
    return {key: (*node.trace, act) for key, (node, act) in found.items()}


def reached(trace: Trace) -> tuple[list[str], set[str]]:
    """The (op, outcome) labels of the model requests of ``trace`` in order, and the condition
    outcomes its replay covers."""
    table = ConditionTable()
    world = World(alg=RecordingAlgebra(table))
    labels = []
    for request in trace_requests(trace):
        reply = world.handle(request)
        if request["op"] in OPS:
            labels.append(f"{request['op']}:{_outcome(reply)}")
    covered = {outcome_key(d, i, o) for d, i, o, c in table.outcomes() if c}
    return labels, covered


def choose(traces: list[Trace]) -> list[Trace]:
    """Greedy set cover: repeatedly the trace reaching most uncovered targets ((op, outcome)
    labels and condition outcomes; shorter, then earlier, traces first on ties) until every
    target any trace reaches is covered."""
    covers = {t: set(labels) | conds for t in traces for labels, conds in [reached(t)]}
    uncovered = set().union(*covers.values())
    chosen: list[Trace] = []
    while uncovered:
        best = max(traces, key=lambda t: (len(covers[t] & uncovered), -len(t)))
        chosen.append(best)
        uncovered -= covers[best]
    return chosen


def _strip_digests(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_digests(v) for k, v in value.items() if k != "digest"}
    if isinstance(value, list):
        return [_strip_digests(v) for v in value]
    return value


def model_vector(number: int, trace: Trace) -> dict[str, Any]:
    world = World()
    steps = list(_HEAD)
    for request in trace_requests(trace, observe=True):
        steps.append({"send": request, "expect": _strip_digests(world.handle(request))})
    return {
        "protocol": 1,
        "id": f"model/model-{number:03d}",
        "description": "Generated by `python -m session_toolset_harness.corpus build` from the "
        "model's bounded enumerator (shortest traces per (operation, outcome), greedy cover of "
        "those pairs and of condition outcomes; digest fields omitted). Reaches: "
        + ", ".join(reached(trace)[0]),
        "tags": ["model", "generated"],
        "steps": steps,
    }


def _send(case: Any) -> Reply:
    if not isinstance(case, RawLine):
        return {"send": case}
    try:
        return {"send_line": case.data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"send_hex": case.data.hex()}


def _mishandled(line: bytes) -> bool:
    """The line holds a number literal the original implementation reads otherwise than SPEC.md
    1.4 (its vector is tagged a declared difference)."""
    found: list[str] = []

    def keep(text: str) -> int:
        found.append(text)
        return 0

    try:
        json.loads(line.decode("utf-8"), parse_int=keep, parse_float=keep, parse_constant=str)
    except ValueError:  # not UTF-8 or not JSON: no literal reaches a number reader
        return False
    return any(mishandled(literal) for literal in found)


def edge_vector(family: str, start: int, cases: Any) -> dict[str, Any]:
    world = World()
    steps = list(_HEAD)
    for case in cases:
        step = _send(case)
        data = case.data if isinstance(case, RawLine) else None
        reply = world.handle(case) if data is None else world.handle_line(data)
        steps.append({**step, "expect": reply})
    observe = {"op": "catalog_state"}
    steps.append({"send": observe, "expect": world.handle(observe)})
    slug = family.replace(" ", "-")
    lines = [c.data if isinstance(c, RawLine) else encode_line(c) for c in cases]
    declared = [DECLARED_DIFFERENCE] if any(_mishandled(line) for line in lines) else []
    return {
        "protocol": 1,
        "id": f"edge-families/{slug}-{start + 1:04d}",
        "description": f"Generated by `python -m session_toolset_harness.corpus build`: cases "
        f"{start + 1}-{start + len(cases)} of the finite edge family '{family}', each sent once; "
        "expectations from the model's expected world.",
        "tags": ["edge-family", "generated", *declared],
        "steps": steps,
    }


def _text(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=1, ensure_ascii=True) + "\n"


def files() -> dict[Path, str]:
    """Relative path -> file text of every derived vector (computed once per process: they
    are a function of the model and the edge lists alone)."""
    return dict(_files())


@functools.cache
def _files() -> dict[Path, str]:
    traces = sorted(set(witnesses().values()), key=lambda t: (len(t), repr(t)))
    more = condition_witnesses(traces).values()
    traces = sorted({*traces, *more}, key=lambda t: (len(t), repr(t)))
    out: dict[Path, str] = {}
    for number, trace in enumerate(sorted(choose(traces), key=lambda t: (len(t), repr(t))), 1):
        doc = model_vector(number, trace)
        out[Path(doc["id"] + ".json")] = _text(doc)
    for family, start, cases in chunks():
        doc = edge_vector(family, start, cases)
        out[Path(doc["id"] + ".json")] = _text(doc)
    return out
