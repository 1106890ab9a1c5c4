"""In-process replay of vectors against any ``handle(line: bytes) -> reply`` function.

Used by the corpus and miniature tests for speed (no subprocess per vector).  The comparison is
PROTOCOL.md's subset rule, written here independently of the runner: objects by subset,
recursively; lists of the same length and order; scalars equal and of the same JSON type.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from session_toolset_harness.corpus.dsl import Json, Obj

Handle = Callable[[bytes], Obj]


def _kind(value: Json) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def difference(expected: Json, actual: Json, path: str = "$") -> str | None:
    """The first place where ``actual`` does not satisfy the subset ``expected``, or None."""
    if _kind(expected) != _kind(actual):
        return f"{path}: expected {_kind(expected)}, got {_kind(actual)}"
    if isinstance(expected, dict):
        for key, want in expected.items():
            if key not in actual:
                return f"{path}.{key}: missing"
            found = difference(want, actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list):
        if len(expected) != len(actual):
            return f"{path}: expected {len(expected)} elements, got {len(actual)}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found = difference(want, got, f"{path}[{index}]")
            if found:
                return found
        return None
    if expected != actual:
        return f"{path}: expected {str(expected)[:200]!r}, got {str(actual)[:200]!r}"
    return None


@dataclass(frozen=True)
class Failure:
    vector_id: str
    step: int
    send: str
    detail: str


def run_vector(document: Obj, handle: Handle) -> Failure | None:
    """Run one vector document; the first failing step, or None when it passes."""
    for index, step in enumerate(document["steps"]):
        line = json.dumps(step["send"], ensure_ascii=False, separators=(",", ":"))
        try:
            reply = handle(line.encode("utf-8"))
            # round-trip through JSON text, as a real adapter's reply would be
            reply = json.loads(json.dumps(reply, ensure_ascii=False))
        except Exception as exc:  # a broken adapter under test
            return Failure(document["id"], index, line[:200], f"crashed: {exc!r}")
        found = difference(step["expect"], reply)
        if found is not None:
            return Failure(document["id"], index, line[:200], found)
    return None


def run_all(documents: Iterable[Obj], handle_factory: Callable[[], Handle]) -> list[Failure]:
    """Run every document with a fresh handle each; every failure (one per failing vector)."""
    failures: list[Failure] = []
    for document in documents:
        found = run_vector(document, handle_factory())
        if found is not None:
            failures.append(found)
    return failures
