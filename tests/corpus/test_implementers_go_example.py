"""The Go adapter skeleton in docs/examples/ passes everything its five ops can pass.

It is built with the ``go`` on PATH into a temporary directory and run through ``conform`` on
the whole corpus with the packaged skip file (``--skip skeleton --skip-must-fail``: every vector
outside the skip file passes, every one inside it really fails), on the in-scope steps of the
mixed vectors, and on every recorded digest row.  Where ``go`` is missing these tests skip,
saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Final

import pytest

from corpus.example_scope import ROOT, assert_op_lists, step_vectors
from session_toolset.adapter import World, handle_line
from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.corpus.build import DEFAULT_OUT

SKELETON: Final = ROOT / "docs" / "examples" / "adapter-skeleton.go"
DIGEST_JSON: Final = DEFAULT_OUT.parent / "reference" / "digest.json"
GO: Final = shutil.which("go")

needs_go = pytest.mark.skipif(
    GO is None,
    reason="go is not on PATH: the Go adapter skeleton cannot be built here "
    "(install Go 1.19 or newer, e.g. apt-get install golang-go, to run these tests)",
)


@pytest.fixture(scope="module")
def skeleton(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The skeleton, built once for this module; the path of the binary."""
    assert GO is not None
    work = tmp_path_factory.mktemp("go-skeleton")
    binary = work / "adapter-skeleton"
    env = dict(os.environ)
    if not any(env.get(k) for k in ("GOCACHE", "XDG_CACHE_HOME", "HOME")):
        env["GOCACHE"] = str(work / "cache")  # go build needs a cache directory somewhere
    built = subprocess.run(
        [GO, "build", "-o", str(binary), str(SKELETON)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    return str(binary)


def test_the_skeletons_op_lists_match_protocol_md() -> None:
    source = SKELETON.read_text(encoding="utf-8")
    listing = r"var notImplemented = map\[string\]bool\{(.*?)\n\}"
    assert_op_lists(source, listing, r'"([a-z_]+)": true')


@needs_go
def test_skeleton_passes_the_corpus_with_the_packaged_skip_file(skeleton: str) -> None:
    # --skip-must-fail: a skipped vector that passes is an error, so the skip file is exact too.
    argv = ["--quiet", "--adapter", skeleton, "--skip", "skeleton", "--skip-must-fail"]
    assert conform_main(argv) == 0


@needs_go
def test_skeleton_passes_every_step_that_uses_only_its_ops(skeleton: str, tmp_path: Path) -> None:
    paths = step_vectors(tmp_path)
    assert conform_main(["--quiet", "--adapter", skeleton, "--vectors", *paths]) == 0


@needs_go
def test_skeleton_matches_every_recorded_digest_row(skeleton: str) -> None:
    rows = json.loads(DIGEST_JSON.read_text(encoding="utf-8"))["rows"]
    lines = [b'{"op":"digest","schema":' + r["schema_json"].encode("utf-8") + b"}" for r in rows]
    done = subprocess.run(
        [skeleton], input=b"\n".join(lines), capture_output=True, timeout=120, check=False
    )  # the last line without "\n": answered too
    replies = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert done.returncode == 0
    assert len(replies) == len(rows) > 100
    for row, reply in zip(rows, replies, strict=True):
        assert reply == {"ok": True, "digest": row["digest"]}, row["label"]


@needs_go
@pytest.mark.parametrize(
    ("number", "ok"),
    [
        ("18446744073709551616", True),  # 2^64: beyond 64 bits, a double
        ("-9223372036854775809", True),  # -2^63 - 1: a double too
        ("1.7976931348623157e308", True),  # the largest double
        ("1.7976931348623158e308", False),  # rounds to it, but exceeds it
        ("-1.7976931348623158e308", False),  # the same on the negative side
        ("1e309", False),
    ],
)
def test_skeleton_reads_numbers_at_the_edges_of_the_ranges(
    skeleton: str, number: str, ok: bool
) -> None:
    line = b'{"op":"digest","schema":' + number.encode() + b"}"
    done = subprocess.run([skeleton], input=line, capture_output=True, timeout=60, check=True)
    reply = json.loads(done.stdout)
    assert reply["ok"] is ok, reply
    expected = handle_line(World(), line)  # the reference: the same digest, or Protocol
    if ok:
        assert reply == expected
    else:
        assert reply["error"] == expected["error"] == "Protocol"


@needs_go
def test_skeleton_answers_a_line_longer_than_bufio_scanners_limit(skeleton: str) -> None:
    text = "x" * (700 * 1024)  # bufio.Scanner stops at 64 KiB
    lines = [
        json.dumps({"op": "digest", "schema": text}).encode(),
        b'{"op":"hello"}',
        b'{"op":"digest","schema":[1,',  # cut off mid-value: Protocol, not end of input
    ]
    done = subprocess.run(
        [skeleton], input=b"\n".join(lines) + b"\n", capture_output=True, timeout=60, check=True
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["ok"] for r in replies] == [True, True, False]
    assert replies[2]["error"] == "Protocol"
