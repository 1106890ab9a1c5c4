"""In-process replay of vectors against any ``handle(line: bytes) -> reply`` function, for the
corpus, miniature and raw-line tests (no subprocess per vector).  The comparison is the runner's
own matcher (`session_toolset_harness.conform.matcher`), so it judges a reply as
``session-toolset conform`` does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from session_toolset_harness.conform.jsonio import encode_line
from session_toolset_harness.conform.matcher import first_difference
from session_toolset_harness.conform.vectors import read_send

Json = Any
Obj = dict[str, Any]

Handle = Callable[[bytes], Obj]


def difference(expected: Json, actual: Json) -> str | None:
    """The first place where ``actual`` does not satisfy the subset ``expected``, or None."""
    mismatch = first_difference(expected, actual)
    return None if mismatch is None else f"{mismatch.path}: {mismatch.message}"


@dataclass(frozen=True)
class Failure:
    vector_id: str
    step: int
    send: str
    detail: str


def run_vector(document: Obj, handle: Handle) -> Failure | None:
    """Run one vector document; the first failing step, or None when it passes."""
    for index, step in enumerate(document["steps"]):
        # encoded exactly as the runner sends it (ASCII escapes for a line with a lone surrogate;
        # a send_line / send_hex step byte for byte)
        data = encode_line(read_send(step))[:-1]
        line = data.decode("utf-8", errors="replace")
        try:
            reply = handle(data)
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
