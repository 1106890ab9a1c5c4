"""Mutation suite "corpus": every PROTOCOL.md vector under the harness's ``vectors/``, replayed
in-process against the (mutated) reference adapter, one pytest item per vector so mutmut runs only
the vectors that reach the mutated function.  A mutant is killed when any vector fails (a reply
outside the expected subset, or the adapter raising).

Copied into the mutation work directory by ``tools/mutation/run.py``; never collected by the
project's own ``pytest`` run (it lives outside ``tests/``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import session_toolset_harness
from session_toolset.adapter import World, handle_line
from session_toolset_harness.corpus.replay import run_vector

VECTORS = Path(session_toolset_harness.__file__).resolve().parent / "vectors"


def _documents() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for path in sorted(VECTORS.rglob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(document, dict) and "steps" in document:
            found.append(document)
    return found


DOCUMENTS = _documents()


@pytest.mark.parametrize("document", DOCUMENTS, ids=[str(d["id"]) for d in DOCUMENTS])
def test_vector(document: dict[str, Any]) -> None:
    world = World()
    failure = run_vector(document, lambda line: handle_line(world, line))
    assert failure is None, failure
