"""Shared helpers: fake adapter commands and small vector files written per test."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

FAKES = Path(__file__).parent / "fakes"
REPO = Path(__file__).resolve().parents[2]


def reference_dir(tmp_path: Path) -> Path:
    """A folder laid out like the shared ``vectors/`` directory, from the packaged copies of the
    recorded reference data (two walkthroughs and ``digest.json``, which is not a vector file).

    The packaged copies are byte-identical to the shared originals
    (``tests/test_reference_data.py``), so this works on a machine that has only the repository.
    """
    package = resources.files("session_toolset_harness")
    folder = tmp_path / "vectors"
    folder.mkdir()
    for name in ("original-walkthrough-1.json", "original-walkthrough-2.json"):
        (folder / name).write_bytes((package / "vectors" / "original" / name).read_bytes())
    (folder / "digest.json").write_bytes((package / "reference" / "digest.json").read_bytes())
    return folder


def mini(*flags: str) -> str:
    """The --adapter string for the fault-injecting fake adapter."""
    return shlex.join([sys.executable, str(FAKES / "mini.py"), *flags])


def playback(vector: Path) -> str:
    return shlex.join([sys.executable, str(FAKES / "playback.py"), str(vector)])


HELLO: dict[str, object] = {"send": {"op": "hello"}, "expect": {"ok": True, "protocol": 1}}
RESET: dict[str, object] = {"send": {"op": "reset"}, "expect": {"ok": True}}


def step(send: object, expect: dict[str, object]) -> dict[str, object]:
    return {"send": send, "expect": expect}


def parse_ok(raw: str) -> dict[str, object]:
    return step({"op": "tool_id_parse", "raw": raw}, {"ok": True, "id": raw})


def parse_error(raw: str, code: str) -> dict[str, object]:
    return step({"op": "tool_id_parse", "raw": raw}, {"ok": False, "error": code})


def document(vector_id: str, *steps: dict[str, object]) -> dict[str, object]:
    return {
        "protocol": 1,
        "id": vector_id,
        "description": f"test vector {vector_id}",
        "tags": ["test"],
        "steps": [HELLO, RESET, *steps],
    }


WriteVector = Callable[..., Path]


@pytest.fixture
def write_vector(tmp_path: Path) -> WriteVector:
    """Write a vector file under tmp_path/vectors and return its path."""

    def write(vector_id: str, *steps: dict[str, object], raw: object = None) -> Path:
        folder = tmp_path / "vectors"
        folder.mkdir(exist_ok=True)
        path = folder / (vector_id.replace("/", "__") + ".json")
        content = document(vector_id, *steps) if raw is None else raw
        path.write_text(json.dumps(content), encoding="utf-8")
        return path

    return write


def conform(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``session-toolset conform ARGV`` in-process: (exit status, stdout, stderr), no traceback."""
    from session_toolset_harness.conform.cli import main

    status = main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out, captured.err
