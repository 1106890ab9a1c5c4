"""The Node.js adapter skeleton in docs/examples/ passes everything its five ops can pass.

Which vectors those are is computed from the corpus, not listed: a vector is in the skeleton's
scope when every step is a request the skeleton must answer itself — one of its ops, or a request
that is Protocol whatever the implementation (a malformed line, a non-object, an unknown op). Raw
request lines (``send_line``/``send_hex``, PROTOCOL.md "Vectors") are read with SPEC.md 1.4's
rules first: a line that is not strict JSON is in scope (a strict reader answers Protocol), one
that parses is judged by its op like a ``send`` object.

Run as a script (``python tests/corpus/test_implementers_node_example.py``) to rewrite the skip
file shipped beside the skeleton after the corpus changed.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

import pytest

from session_toolset.adapter import World, handle_line
from session_toolset.json_value import JsonInputError, parse_json
from session_toolset_harness.conform import skips
from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.corpus.build import DEFAULT_OUT
from session_toolset_harness.corpus.codes import OPS

ROOT: Final = Path(__file__).resolve().parents[2]
SKELETON: Final = ROOT / "docs" / "examples" / "adapter-skeleton.mjs"
SKIP_FILE: Final = ROOT / "docs" / "examples" / "adapter-skeleton.skip"
DIGEST_JSON: Final = DEFAULT_OUT.parent / "reference" / "digest.json"
SKELETON_OPS: Final = frozenset({"hello", "reset", "tool_id_parse", "session_id_parse", "digest"})
NODE: Final = shutil.which("node")

needs_node = pytest.mark.skipif(
    NODE is None,
    reason="node is not on PATH: the Node.js adapter skeleton cannot run here "
    "(install Node.js 18 or newer to run these tests)",
)

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
    if isinstance(op, str) and op in OPS and op not in SKELETON_OPS:
        return op
    return None  # a skeleton op, or an unknown op (Protocol everywhere)


def vector_documents() -> Iterator[Obj]:
    """Every vector file the runner would run from the packaged corpus."""
    for path in sorted(DEFAULT_OUT.rglob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(document, dict) and "steps" in document:
            yield document


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
        "# Vectors that need PROTOCOL.md ops the Node.js adapter skeleton does not implement.",
        "# Use: session-toolset conform --adapter 'node adapter-skeleton.mjs' --skip THIS_FILE",
        "# Delete a line once your adapter implements what it needs; --skip-must-fail then makes",
        "# a listed vector that passes an error, so the list can only shrink.",
        "# Written by tests/corpus/test_implementers_node_example.py (run it as a script).",
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


def skeleton_argv() -> list[str]:
    assert NODE is not None
    return [NODE, str(SKELETON)]


def run_skeleton(lines: list[bytes]) -> tuple[list[Obj], subprocess.CompletedProcess[bytes]]:
    """Feed raw lines to one skeleton process; its replies, one parsed object per line."""
    done = subprocess.run(
        skeleton_argv(),
        input=b"".join(line + b"\n" for line in lines),
        capture_output=True,
        timeout=120,
        check=False,
    )
    replies = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    return replies, done


# ------------------------------------------------------------------ the filter itself


@pytest.mark.parametrize(
    ("step", "beyond"),
    [
        ({"send": {"op": "digest", "schema": 1}}, None),
        ({"send": {"op": "catalog_state"}}, "catalog_state"),
        ({"send": {"op": "no-such-op"}}, None),
        ({"send": ["hello"]}, None),
        ({"send": {"op": 7}}, None),
        ({"send_line": ""}, None),
        ({"send_line": '{"op":"digest","schema":1e400}'}, None),
        ({"send_line": '{"op":"snapshot","set":"A","set":"B"}'}, "snapshot"),
        ({"send_line": '{"op":"digest","schema":{"a":1,"a":2}}'}, None),
        ({"send_hex": "7b226f70223a2268656c6c6f227dff"}, None),
        ({"send_hex": b'{"op":"issue_grant"}'.hex()}, "issue_grant"),
    ],
)
def test_a_step_needs_an_op_beyond_the_skeleton_only_when_it_parses_to_one(
    step: Obj, beyond: str | None
) -> None:
    assert needed_op({**step, "expect": {}}) == beyond


def test_the_scope_holds_the_pure_identity_and_digest_vectors_and_nothing_else() -> None:
    scope = {d["id"] for d in vector_documents() if in_scope(d)}
    assert {"digest/key-order", "identity/session-id-rules", "edges/deepest-nesting"} <= scope
    assert not {"digest/record-digest", "identity/tool-id-constructors"} & scope
    for vector_id in scope:
        assert vector_id.split("/")[0] in {"digest", "edges", "identity", "protocol", "hostile"}


def test_the_shipped_skip_file_lists_exactly_the_vectors_beyond_the_skeleton() -> None:
    rules = skips.read(SKIP_FILE)
    wrong = [
        d["id"] for d in vector_documents() if (skips.find(rules, d["id"]) is None) != in_scope(d)
    ]
    assert not wrong, (
        f"{SKIP_FILE.name} is out of date for {wrong[:5]}...: rewrite it with "
        "`python tests/corpus/test_implementers_node_example.py`"
    )


def test_the_skeletons_op_lists_match_protocol_md() -> None:
    source = SKELETON.read_text(encoding="utf-8")
    block = re.search(r"const NOT_IMPLEMENTED = new Set\(\[(.*?)\]\);", source, re.S)
    assert block is not None
    not_implemented = set(re.findall(r'"([a-z_]+)"', block.group(1)))
    cases = set(re.findall(r'case "([a-z_]+)":', source))
    assert cases == SKELETON_OPS
    assert not_implemented == set(OPS) - SKELETON_OPS


# ------------------------------------------------------------------ the skeleton through conform


@needs_node
def test_skeleton_passes_every_vector_that_uses_only_its_ops() -> None:
    paths = [str(DEFAULT_OUT / f"{d['id']}.json") for d in vector_documents() if in_scope(d)]
    assert len(paths) >= 18  # 18 when this test was written; the corpus only grows
    argv = ["--quiet", "--adapter", shlex.join(skeleton_argv()), "--vectors", *paths]
    assert conform_main(argv) == 0


@needs_node
def test_conform_k_digest_is_green_with_the_shipped_skip_file() -> None:
    # --skip-must-fail runs the skipped vectors too: each must really fail with the skeleton.
    argv = [
        "--quiet",
        "--adapter",
        shlex.join(skeleton_argv()),
        "-k",
        "digest",
        "--skip",
        str(SKIP_FILE),
        "--skip-must-fail",
    ]
    assert conform_main(argv) == 0


# ------------------------------------------------------------------ the skeleton on digest.json


def _digest_line(schema_json: str) -> bytes:
    return b'{"op":"digest","schema":' + schema_json.encode("utf-8") + b"}"


@needs_node
def test_skeleton_matches_every_recorded_digest_row() -> None:
    reference = json.loads(DIGEST_JSON.read_text(encoding="utf-8"))
    rows: list[Obj] = reference["rows"]
    replies, done = run_skeleton([_digest_line(row["schema_json"]) for row in rows])
    assert done.returncode == 0
    assert len(replies) == len(rows) > 100
    for row, reply in zip(rows, replies, strict=True):
        assert reply == {"ok": True, "digest": row["digest"]}, row["label"]


@needs_node
def test_skeleton_refuses_every_recorded_rejected_text_with_protocol() -> None:
    rejected: list[Obj] = json.loads(DIGEST_JSON.read_text(encoding="utf-8"))["rejected"]
    replies, done = run_skeleton([_digest_line(row["schema_json"]) for row in rejected])
    assert done.returncode == 0
    assert [r["error"] for r in replies] == ["Protocol"] * len(rejected)


@needs_node
def test_skeleton_keeps_the_last_repeated_key_and_rounds_correctly_as_the_notes_record() -> None:
    notes: list[Obj] = json.loads(DIGEST_JSON.read_text(encoding="utf-8"))["notes"]
    replies, _ = run_skeleton([_digest_line(note["schema_json"]) for note in notes])
    for note, reply in zip(notes, replies, strict=True):
        if "correctly_rounded_number_texts" in note:
            # A declared difference: the original rounds this literal wrongly, SPEC.md 1.4 wants
            # correct rounding, so the skeleton agrees with the reference, not the recorded digest.
            assert reply["digest"] != note["digest"], note["note"]
            expected = handle_line(World(), _digest_line(note["schema_json"]))
            assert reply == expected, note["note"]
        else:
            assert reply == {"ok": True, "digest": note["digest"]}, note["note"]


# Lines SPEC.md 1.4 and PROTOCOL.md's transport decide, compared with the reference adapter.
PROBES: Final = [
    b"",
    b"   ",
    b'\xef\xbb\xbf{"op":"hello"}',  # a BOM is not JSON whitespace
    b'\xc2\xa0{"op":"hello"}',  # nor is U+00A0
    b'{"op":"hello"}\r',
    b'\t{"op":"reset"} ',
    b'{"op":"hello"} x',
    b'{"op":"digest","schema":"\xff"}',  # invalid UTF-8
    b'{"op":"digest","schema":"\xed\xa0\x80"}',  # a surrogate encoded in UTF-8
    b'{"op":"digest","schema":"\\ud83d\\u0041"}',
    b'{"op":"digest","schema":"\\uDE00"}',
    b'{"op":"digest","schema":{"a":1,"a":NaN}}',  # invalid text in a discarded value
    b'{"op":"digest","schema":{"a":1e400,"a":2}}',
    b'{"op":"digest","schema":1,"schema":2}',
    b'{"op":"digest","op":"hello"}',
    b'{"op":"digest","schema":' + b"[" * 126 + b"]" * 126 + b"}",
    b'{"op":"digest","schema":' + b"[" * 127 + b"]" * 127 + b"}",
    b'{"op":"digest","schema":' + b"[" * 100_000,
    b'{"op":"digest","schema":-0}',
    b'{"op":"digest","schema":-0.0e-0}',
    b'{"op":"digest","schema":-9223372036854775808}',
    b'{"op":"digest","schema":-9223372036854775809}',
    b'{"op":"digest","schema":18446744073709551615}',
    b'{"op":"digest","schema":18446744073709551616}',
    b'{"op":"digest","schema":' + b"9" * 400 + b"}",
    b'{"op":"digest","schema":' + b"1" * 400 + b"e-400}",
    b'{"op":"digest","schema":179769313486231570814527423731704356798070567525844996598917476803'
    b"157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986"
    b"049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274"
    b"797826204144723168738177180919299881250404026184124858368.0000000001}",
    b'{"op":"digest","schema":-1.7976931348623157e308}',
    b'{"op":"digest","schema":1.79769313486231580793728971405301e308}',
    b'{"op":"digest","schema":123456789012345678901234567890e-330}',
    b'{"op":"digest","schema":[01]}',
    b'{"op":"digest","schema":{"__proto__":1,"constructor":[]}}',
    b'{"op":"digest"}',
    b'{"op":"tool_id_parse","raw":1}',
    b'{"op":"tool_id_parse","raw":"' + "é".encode() * 100 + b'"}',
    b'{"op":"tool_id_parse","raw":"A:b"}',
    b'{"op":"session_id_parse","raw":"a\\u009fb"}',
    b'{"op":"session_id_parse","raw":null}',
    b'{"op":"Hello"}',
    b"{}",
    b'[{"op":"hello"}]',
    b'"hello"',
]


def _comparable(reply: Obj) -> Obj:
    return {k: v for k, v in reply.items() if k not in ("message", "implementation")}


@needs_node
def test_skeleton_answers_every_probe_line_as_the_reference_adapter_does() -> None:
    replies, done = run_skeleton(PROBES)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(replies) == len(PROBES)
    world = World()
    for line, reply in zip(PROBES, replies, strict=True):
        expected = handle_line(world, line)
        assert _comparable(reply) == _comparable(dict(expected)), line[:80]
        assert isinstance(reply.get("message", ""), str)


@needs_node
def test_skeleton_answers_protocol_not_implemented_for_every_other_op() -> None:
    others = [op for op in OPS if op not in SKELETON_OPS]
    replies, done = run_skeleton([json.dumps({"op": op}).encode() for op in others])
    assert done.returncode == 0
    for op, reply in zip(others, replies, strict=True):
        assert reply["error"] == "Protocol", op
        assert "not implemented in the skeleton" in reply["message"], op


@needs_node
def test_skeleton_answers_a_last_line_without_newline_and_exits_0_on_eof() -> None:
    done = subprocess.run(
        skeleton_argv(),
        input=b'{"op":"hello"}\n{"op":"reset"}',
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert [json.loads(line)["ok"] for line in done.stdout.splitlines()] == [True, True]
    empty = subprocess.run(skeleton_argv(), input=b"", capture_output=True, timeout=60, check=False)
    assert (empty.returncode, empty.stdout) == (0, b"")


if __name__ == "__main__":
    SKIP_FILE.write_text(skip_file_text(), encoding="utf-8")
    print(f"wrote {SKIP_FILE}", file=sys.stderr)
