"""Every broken miniature adapter fails the corpus, at a named vector; the reference passes.

Most checks run in-process (the miniature's ``patch()`` applied around the reference adapter's
``handle_line``) for speed; a few run miniatures as real subprocesses through the runner CLI to
prove the plumbing end to end, including the known-failures workflow.
"""

from __future__ import annotations

import importlib
import json
import shlex
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from corpus.replay import Handle, run_all

from session_toolset.adapter import World, handle_line
from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.conform.vectors import documents
from session_toolset_harness.corpus.build import DEFAULT_OUT

HERE = Path(__file__).resolve().parent
MINIATURES = sorted(p.stem for p in HERE.glob("mini_*.py"))

Obj = dict[str, Any]


DOCUMENTS = documents(DEFAULT_OUT)


def _handle() -> Handle:
    world = World()

    def handle(line: bytes) -> Obj:
        return handle_line(world, line)

    return handle


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"miniatures.{name}")


def test_there_are_enough_miniatures() -> None:
    assert len(MINIATURES) >= 10


def test_reference_passes_the_whole_corpus() -> None:
    assert run_all(DOCUMENTS, _handle) == []


@pytest.mark.parametrize("name", MINIATURES)
def test_miniature_fails_the_corpus(name: str) -> None:
    module = _module(name)
    with module.patch():
        failures = run_all(DOCUMENTS, _handle)
    failing = {f.vector_id for f in failures}
    assert failing, f"{name} passed the whole corpus"
    assert module.CAUGHT_BY in failing, f"{name}: caught only by {sorted(failing)}"
    # the patch is undone on exit
    assert run_all([d for d in DOCUMENTS if d["id"] == module.CAUGHT_BY], _handle) == []


def _conform(argv: list[str]) -> int:
    return conform_main(argv)


def _adapter(name: str) -> str:
    return shlex.join([sys.executable, str(HERE / f"{name}.py")])


@pytest.mark.parametrize(
    "name", ["mini_gate_ignores_provenance", "mini_wire_name_unbounded", "mini_partial_batch"]
)
def test_miniature_through_the_runner_subprocess(name: str, tmp_path: Path) -> None:
    module = _module(name)
    report = tmp_path / "report.json"
    status = _conform(
        [
            "--quiet",
            "--adapter",
            _adapter(name),
            "--vectors",
            str(DEFAULT_OUT),
            "--json",
            str(report),
        ]
    )
    assert status == 1
    results = json.loads(report.read_text(encoding="utf-8"))["vectors"]
    failed = {r["id"] for r in results if r["status"] == "failed"}
    assert module.CAUGHT_BY in failed
    assert not {r["id"] for r in results if r["status"] == "errored"}


def test_known_failures_workflow(tmp_path: Path) -> None:
    """Emit the known failures of a broken adapter, then skip them: CI goes green, and a skip
    entry that starts passing is reported under --skip-must-fail."""
    adapter = _adapter("mini_gate_ignores_digest")
    known = tmp_path / "known-failures.txt"
    base = ["--quiet", "--adapter", adapter, "--vectors", str(DEFAULT_OUT)]
    assert _conform([*base, "--emit-known-failures", str(known)]) == 1
    listed = [line.split()[0] for line in known.read_text().splitlines() if line and line[0] != "#"]
    assert "gate/digest-drift" in listed
    assert _conform([*base, "--skip", str(known), "--skip-must-fail"]) == 0
    stale = tmp_path / "stale.txt"
    stale.write_text(known.read_text() + "gate/coherent-imposter  fixed long ago\n")
    assert _conform([*base, "--skip", str(stale), "--skip-must-fail"]) == 1


def test_reference_through_the_runner_subprocess() -> None:
    assert _conform(["--quiet", "--vectors", str(DEFAULT_OUT)]) == 0
