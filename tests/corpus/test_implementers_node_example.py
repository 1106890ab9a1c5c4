"""The Node.js adapter skeleton in docs/examples/ passes everything its five ops can pass.

Which vectors those are is computed from the corpus (``example_scope``), not listed. Tests that
run the skeleton need ``node``; they skip, saying so, where it is missing.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

from corpus.example_probes import PROBES, assert_like_reference
from corpus.example_scope import (
    EXAMPLE_OPS,
    ROOT,
    SKIP_FILE,
    Obj,
    assert_op_lists,
    in_scope,
    in_scope_paths,
    needed_op,
    step_vectors,
    vector_documents,
)
from session_toolset.adapter import World, handle_line
from session_toolset_harness.conform import skips
from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.conform.schemas import request_ops
from session_toolset_harness.corpus.build import DEFAULT_OUT

SKELETON: Final = ROOT / "docs" / "examples" / "adapter-skeleton.mjs"
DIGEST_JSON: Final = DEFAULT_OUT.parent / "reference" / "digest.json"
NODE: Final = shutil.which("node")

needs_node = pytest.mark.skipif(
    NODE is None,
    reason="node is not on PATH: the Node.js adapter skeleton cannot run here "
    "(install Node.js 18 or newer to run these tests)",
)


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
        assert vector_id.split("/")[0] in {
            "digest",
            "edges",
            "identity",
            "protocol",
            "hostile",
            "lines",
        }


def test_every_raw_line_case_reaches_the_skeleton_through_a_stateless_twin() -> None:
    """Each ``lines/X`` sends its lines in a world it then shows unchanged (ops the skeleton
    lacks), so ``lines/X-stateless`` holds exactly the steps of ``lines/X`` the skeleton's ops
    answer, in order: a newcomer's first run reaches every raw-line case that needs no world."""
    documents = {d["id"]: d for d in vector_documents()}
    worlds = [i for i in documents if i.startswith("lines/") and not i.endswith("-stateless")]
    assert len(worlds) >= 8
    for vector_id in worlds:
        twin = documents.get(f"{vector_id}-stateless")
        assert twin is not None, f"{vector_id} has no stateless twin"
        assert not in_scope(documents[vector_id])  # the world part needs catalog/set ops
        assert in_scope(twin)
        kept = [s for s in documents[vector_id]["steps"] if needed_op(s) is None]
        assert twin["steps"] == kept
        assert len(kept) > 3  # more than hello, reset and the closing hello line


def test_the_shipped_skip_file_lists_exactly_the_vectors_beyond_the_skeleton() -> None:
    rules = skips.read(SKIP_FILE)
    wrong = [
        d["id"] for d in vector_documents() if (skips.find(rules, d["id"]) is None) != in_scope(d)
    ]
    assert not wrong, (
        f"{SKIP_FILE.name} is out of date for {wrong[:5]}...: rewrite it with "
        "`python tests/corpus/example_scope.py`"
    )


def test_the_skeletons_op_lists_match_protocol_md() -> None:
    source = SKELETON.read_text(encoding="utf-8")
    listing = r"const NOT_IMPLEMENTED = new Set\(\[(.*?)\]\);"
    assert_op_lists(source, listing, r'"([a-z_]+)"')


# ------------------------------------------------------------------ the skeleton through conform


@needs_node
def test_skeleton_passes_every_vector_that_uses_only_its_ops() -> None:
    paths = in_scope_paths()
    assert len(paths) >= 18  # 18 when this test was written; the corpus only grows
    argv = ["--quiet", "--adapter", shlex.join(skeleton_argv()), "--vectors", *paths]
    assert conform_main(argv) == 0


@needs_node
def test_skeleton_passes_every_step_that_uses_only_its_ops(tmp_path: Path) -> None:
    paths = step_vectors(tmp_path)
    assert len(paths) > len(in_scope_paths())  # mixed vectors contribute their in-scope steps
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
        "skeleton",  # the packaged SKIP_FILE, by name
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


@needs_node
def test_skeleton_answers_every_probe_line_as_the_reference_adapter_does() -> None:
    replies, done = run_skeleton(PROBES)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(replies) == len(PROBES)
    assert_like_reference(PROBES, replies)


@needs_node
def test_skeleton_answers_protocol_not_implemented_for_every_other_op() -> None:
    others = [op for op in request_ops() if op not in EXAMPLE_OPS]
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


PROBE_TOOLS: Final = ROOT / "tools" / "json_probes"


def _probe(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *command], capture_output=True, text=True, timeout=300, check=False
    )


@needs_node
def test_skeleton_reader_deviates_from_spec_on_none_of_the_json_probes() -> None:
    assert NODE is not None
    done = _probe(str(PROBE_TOOLS / "probes.py"), "--", NODE, str(PROBE_TOOLS / "js_skeleton.mjs"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]
    assert "0 deviations" in done.stdout


@needs_node
def test_skeleton_number_text_matches_the_reference_on_20000_doubles() -> None:
    assert NODE is not None
    script = PROBE_TOOLS / "js_number_text.mjs"
    done = _probe(str(PROBE_TOOLS / "number_text.py"), "--", NODE, str(script))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]
    assert done.stdout.startswith("0 of ")
