"""Which corpus vectors an adapter that implements only some PROTOCOL.md ops can pass.

The implementers' examples (docs/examples/adapter-minimal.py, docs/examples/
adapter-skeleton.mjs) implement hello, reset, tool_id_parse, session_id_parse and digest. Their
tests run them on exactly the vectors those ops reach, computed here from the corpus rather than
listed: a vector is in scope when every step is a request the example must answer itself -- one
of its ops, or a request that is Protocol whatever the implementation (a malformed line, a
non-object, an unknown op). Raw request lines (``send_line``/``send_hex``, PROTOCOL.md "Vectors")
are read with SPEC.md 1.4's rules first: a line that is not strict JSON is in scope (a strict
reader answers Protocol), one that parses is judged by its op like a ``send`` object.

Run as a script (``python tests/corpus/example_scope.py``) to rewrite the skip file shipped beside
the Node.js skeleton after the corpus changed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from session_toolset.json_value import JsonInputError, parse_json
from session_toolset_harness.conform import skips
from session_toolset_harness.conform.schemas import request_ops
from session_toolset_harness.conform.vectors import documents as vector_files
from session_toolset_harness.corpus.build import DEFAULT_OUT

ROOT: Final = Path(__file__).resolve().parents[2]
SKIP_FILE: Final = skips.PACKAGED["skeleton"]
EXAMPLE_OPS: Final = frozenset({"hello", "reset", "tool_id_parse", "session_id_parse", "digest"})

Obj = dict[str, Any]


class _Malformed:
    """A raw request line that is not one strict JSON value."""


MALFORMED: Final = _Malformed()


def step_request(step: Mapping[str, object]) -> object:
    """What the step sends, parsed as an adapter must parse it (``MALFORMED`` if it cannot)."""
    if "send" in step:
        return step["send"]
    if "send_line" in step:
        raw = step["send_line"]
        if not isinstance(raw, str):
            raise ValueError(f"send_line must be a string: {raw!r}")
        line = raw.encode("utf-8", "surrogatepass")
    elif "send_hex" in step:
        raw = step["send_hex"]
        if not isinstance(raw, str):
            raise ValueError(f"send_hex must be a string: {raw!r}")
        line = bytes.fromhex(raw)
    else:
        raise ValueError(f"a step without send, send_line or send_hex: {sorted(step)}")
    try:
        return parse_json(line)
    except JsonInputError:
        return MALFORMED


def needed_op(step: Mapping[str, object]) -> str | None:
    """The PROTOCOL.md op beyond the skeleton this step needs, or None if the skeleton suffices."""
    request = step_request(step)
    if not isinstance(request, dict):
        return None  # malformed or not an object: Protocol for every implementation
    op = request.get("op")
    if isinstance(op, str) and op in request_ops() and op not in EXAMPLE_OPS:
        return op
    return None  # a skeleton op, or an unknown op (Protocol everywhere)


def vector_documents() -> Iterator[Obj]:
    """Every vector file the runner would run from the packaged corpus."""
    yield from vector_files(DEFAULT_OUT)


def ops_beyond_skeleton(document: Obj) -> list[str]:
    return sorted({op for step in document["steps"] if (op := needed_op(step)) is not None})


def in_scope(document: Obj) -> bool:
    return not ops_beyond_skeleton(document)


def skip_file_text() -> str:
    """The skip file for the skeleton: a glob for a group wholly beyond it, else exact ids."""
    groups: dict[str, list[Obj]] = {}
    for document in vector_documents():
        groups.setdefault(document["id"].split("/", 1)[0], []).append(document)
    lines = [
        "# Vectors that need PROTOCOL.md ops beyond the five the adapter skeletons implement",
        "# (hello, reset, tool_id_parse, session_id_parse, digest), in any language.",
        "# Use: session-toolset conform --adapter 'node adapter-skeleton.mjs' --skip skeleton",
        "# Growing past the skeleton: copy this file (session-toolset conform --skip skeleton",
        "# --emit-known-failures FILE writes yours), delete a line once your adapter implements",
        "# what it needs; --skip-must-fail makes a listed vector that passes an error.",
        "# Written by tests/corpus/example_scope.py (run it as a script).",
    ]
    for group, documents in groups.items():
        beyond = [d for d in documents if not in_scope(d)]
        if beyond and len(beyond) == len(documents):
            ops = sorted({op for d in beyond for op in ops_beyond_skeleton(d)})
            lines.append(f"{group}/* {_needs(ops)}")
        else:
            lines.extend(f"{d['id']} {_needs(ops_beyond_skeleton(d))}" for d in beyond)
    return "\n".join(lines) + "\n"


def _needs(ops: list[str]) -> str:
    shown = ", ".join(ops[:4])
    return f"needs {shown}" + (f" and {len(ops) - 4} more ops" if len(ops) > 4 else "")


def _is_preamble(step: Mapping[str, object]) -> bool:
    request = step_request(step)
    return isinstance(request, dict) and request.get("op") in ("hello", "reset")


def step_vectors(directory: Path) -> list[str]:
    """Every in-scope step of the corpus, as vectors written to ``directory``.

    Beyond the vectors wholly in scope, many vectors mix steps the examples can answer (a
    malformed raw line, a digest) with steps they cannot (the ``catalog_state`` that shows the
    world unchanged). The in-scope steps never depend on the world — the examples' ops are
    stateless and a malformed line is Protocol in every state — so each vector's in-scope steps,
    in order, form a valid vector of their own: ``steps/<id>``.
    """
    paths: list[str] = []
    for document in vector_documents():
        steps = [step for step in document["steps"] if needed_op(step) is None]
        if all(_is_preamble(step) for step in steps):
            continue  # nothing but hello and reset
        vector = {
            "protocol": 1,
            "id": f"steps/{document['id']}",
            "description": f"The steps of {document['id']} an adapter of only "
            f"{', '.join(sorted(EXAMPLE_OPS))} must answer, in order.",
            "tags": document.get("tags", []),
            "steps": steps,
        }
        path = directory / f"{document['id'].replace('/', '--')}.json"
        path.write_text(json.dumps(vector), encoding="utf-8")  # ASCII: lone surrogates too
        paths.append(str(path))
    return paths


def in_scope_paths() -> list[str]:
    """The vector files of the packaged corpus that the examples' ops can pass."""
    return [str(DEFAULT_OUT / f"{d['id']}.json") for d in vector_documents() if in_scope(d)]


def assert_op_lists(source: str, listing: str, entry: str) -> None:
    """A skeleton's ``source`` handles exactly `EXAMPLE_OPS` (``case "op":``) and lists every
    other op of PROTOCOL.md as not implemented (``listing``: the list, ``entry``: one op in it)."""
    block = re.search(listing, source, re.S)
    assert block is not None
    assert set(re.findall(r'case "([a-z_]+)":', source)) == EXAMPLE_OPS
    assert set(re.findall(entry, block.group(1))) == set(request_ops()) - EXAMPLE_OPS


if __name__ == "__main__":
    SKIP_FILE.write_text(skip_file_text(), encoding="utf-8")
    print(f"wrote {SKIP_FILE}")
