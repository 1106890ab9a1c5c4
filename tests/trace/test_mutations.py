"""Every single-reply mutation of a gate or activation outcome in the recorded corpus
transcripts is caught in complete mode, at the mutated line.

The mutations: the outcome flipped (ok <-> rejection), the error code replaced by another, and
each payload field of the reply changed (a number moved by one, a string extended, a boolean
negated, the gate's basis switched).  ``message`` is left out: it is never compared.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from session_toolset_harness.trace.complete import Partition
from session_toolset_harness.trace.logline import RecordedLine

from .support import by_stream, check, recorded_corpus, violations

GATED = ("authorize", "authorize_wire", "activate", "activate_many", "activate_user")
OUTCOMES = (*GATED, "activate_model")
OTHER_CODE = {
    "authorize": "ToolAuthorizationError.NotActivated",
    "authorize_wire": "ToolAuthorizationError.NotActivated",
    "activate": "ActivationError.AlreadyActivated",
    "activate_many": "BulkActivationError.Grant.AlreadyActivated",
    "activate_user": "HostActivationError.Bulk.Grant.AlreadyActivated",
    "activate_model": "HostActivationError.ConfirmationRequired",
}
SECOND_CODE = "ToolAuthorizationError.UntrustedSource"


def _accepted(op: str, request: dict[str, Any]) -> dict[str, Any]:
    """A plausible success reply of ``op``."""
    if op in ("authorize", "authorize_wire"):
        return {"ok": True, "tool": str(request.get("tool", "x:y")), "basis": {"kind": "core"}}
    if op in ("activate_many", "activate_model"):
        listed = request.get("grants", request.get("tools"))
        return {"ok": True, "applied": len(listed) if isinstance(listed, list) else 1}
    return {"ok": True}


def _changed(value: object) -> object:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, dict) and value.get("kind") == "core":
        return {"kind": "exact", "catalog_generation": 0}
    if isinstance(value, dict):
        return {"kind": "core"}
    return ["changed"]


def mutations(
    op: str, request: dict[str, Any], reply: dict[str, Any]
) -> Iterator[tuple[str, dict[str, Any]]]:
    if reply.get("ok") is True:
        yield "rejected", {"ok": False, "error": OTHER_CODE[op], "message": "forged"}
    else:
        yield "accepted", _accepted(op, request)
        code = OTHER_CODE[op] if reply.get("error") != OTHER_CODE[op] else SECOND_CODE
        yield "code", {**reply, "error": code}
    for key, value in reply.items():
        if key not in ("ok", "error", "message"):
            yield f"field {key}", {**reply, key: _changed(value)}


def test_every_single_outcome_mutation_is_caught_at_its_line() -> None:
    tried: dict[str, int] = {}
    missed: list[str] = []
    for stream, lines in by_stream(recorded_corpus()).items():
        part = Partition("-", stream)
        for number, text in enumerate(lines, 1):
            entry = json.loads(text)
            op = entry["request"].get("op")
            world = part.world
            if op in OUTCOMES and world is not None:
                for kind, forged in mutations(op, entry["request"], entry["reply"]):
                    tried[kind.partition(" ")[0]] = tried.get(kind.partition(" ")[0], 0) + 1
                    saved = world.save()
                    found = part.check(RecordedLine(number, entry["request"], forged))
                    world.restore(saved)
                    if found is None or found.line != number:
                        missed.append(f"{stream} line {number} {op}: {kind}")
            assert part.check(RecordedLine(number, entry["request"], entry["reply"])) is None
    assert missed == []
    # the corpus exercises every kind of mutation, many times over
    assert tried["rejected"] > 150 and tried["accepted"] > 300 and tried["code"] > 300
    assert tried["field"] > 150


def test_mutating_a_line_in_the_log_is_caught_end_to_end() -> None:
    # the same through the log reader and the run loop, for one line of each outcome op
    streams = by_stream(recorded_corpus())
    seen: set[str] = set()
    for lines in streams.values():
        for index, text in enumerate(lines):
            entry = json.loads(text)
            op = entry["request"].get("op")
            if op not in OUTCOMES or op in seen or index < 2:
                continue
            seen.add(op)
            for _kind, forged in mutations(op, entry["request"], entry["reply"]):
                result = check([*lines[:index], json.dumps({**entry, "reply": forged}), *lines])
                assert [v.line for v in result.violations] == [index + 1]
    assert seen == set(OUTCOMES)


def test_a_caught_mutation_names_the_op_the_section_and_both_replies() -> None:
    lines = by_stream(recorded_corpus())["gate/untrusted-pins"]
    index = next(i for i, t in enumerate(lines) if '"op":"authorize"' in t)
    entry = json.loads(lines[index])
    forged = _accepted("authorize", entry["request"])
    result = check([*lines[:index], json.dumps({**entry, "reply": forged})])
    (violation,) = violations(result)
    assert violation.op == "authorize" and violation.section == "SPEC.md 4 Execution gate"
    assert violation.path == "$.ok" and violation.observed == forged
    assert violation.expected["ok"] is False and "message" not in violation.expected
