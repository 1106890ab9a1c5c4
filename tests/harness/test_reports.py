"""Every ``--json`` report opens with one envelope (`envelope`) and validates against its
published schema (``session_toolset_harness/schemas/CMD-report.schema.json``): `assert_valid` is
used by the report tests of every command; here the schemas themselves, ``prove`` and ``check``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from session_toolset_harness import check
from session_toolset_harness.conform import schemas
from session_toolset_harness.envelope import envelope

ENVELOPE = list(envelope("x", 1, "pass", {}))


def load(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return value


def assert_valid(name: str, report: dict[str, Any], *, complete: bool = True) -> None:
    """``report`` opens with the envelope, in order, and its schema accepts it (``complete``:
    False for the partial report of an interrupted or stopped run, verdict ``incomplete``)."""
    assert list(report)[: len(ENVELOPE)] == ENVELOPE
    assert report["tool"] == f"session-toolset {name}" and report["complete"] is complete
    problems = schemas.validate_report(f"{name}-report", report)
    assert problems == [], problems[:5]


def test_the_report_schemas_share_one_envelope() -> None:
    shapes = []
    for name in schemas.REPORT_SCHEMA_NAMES:
        schema = schemas.load_schema(name)
        assert schema["required"][: len(ENVELOPE)] == ENVELOPE
        props = schema["properties"]
        shapes.append({key: props[key] for key in ("version", "complete")})
        assert set(props["counts"]["required"]) == set(props["counts"]["properties"])
    assert all(shape == shapes[0] for shape in shapes)


def test_every_report_ends_early_the_same_way() -> None:
    """An interrupted run of any command: verdict ``incomplete``, and ``stopped`` says why."""
    for name in schemas.REPORT_SCHEMA_NAMES:
        schema = schemas.load_schema(name)
        assert "incomplete" in schema["properties"]["verdict"]["enum"], name
        assert "stopped" in schema["required"] and "interrupted" not in schema["properties"], name


def test_a_report_missing_its_verdict_is_refused() -> None:
    report = {**envelope("conform", 2, "pass", {}), "vectors": []}
    del report["verdict"]
    assert any("verdict" in str(p) for p in schemas.validate_report("conform-report", report))


def test_prove_and_check_reports_validate(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from session_toolset_proofs.cli import main as prove_main

    proved = tmp_path / "p.json"
    assert prove_main(["-k", "invariant.init", "--jobs", "1", "--json", str(proved)]) == 0
    assert_valid("prove", load(proved))
    assert load(proved)["counts"]["unexpected"] == 0

    from .test_output import _fake_report

    monkeypatch.setattr("session_toolset_proofs.report.run", lambda *_: _fake_report(failing=True))
    checked, md = tmp_path / "c.json", tmp_path / "c.md"
    assert check.main(["--json", str(checked), "--summary", str(md)]) == 1
    report = load(checked)
    assert_valid("check", report)
    assert report["verdict"] == "fail" and report["counts"]["failed"] == 1
    text = md.read_text(encoding="utf-8")
    assert "| prove | fail |" in text and "| conform | pass |" in text
    assert "### First failure (prove)" in text and "batch.atomic" in text
