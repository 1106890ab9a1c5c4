"""Partial mode at its defaults: any number of hidden catalog operations per gap, summarised.

A recorded log whose setup catalogs many tools between two recorded lines is explained once its
catalog lines are removed; a forged authorization that no hidden catalog history explains still
fails, one that a hidden change explains passes; ``--strict-replies`` applies conform's reply
checks in every mode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from session_toolset_harness.cli import main as cli_main
from session_toolset_harness.trace.logline import RecordedLine
from session_toolset_harness.trace.partial import CATALOG_GROUP

from .partial_support import Request, insert, record, without

CATALOG = frozenset(CATALOG_GROUP)


def _source(kind: str, n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    if kind == "builtin":
        return {"kind": "builtin", "name": f"b{n}"}, {"kind": "builtin_runtime"}
    if kind == "extension":
        return (
            {"kind": "extension", "extension_id": "ext", "tool_name": f"e{n}"},
            {"kind": "extension_manifest", "extension_id": "ext"},
        )
    return {"kind": "unknown", "runtime_name": f"u{n}"}, {"kind": "unverified"}


SETUP: list[Request] = [{"op": "reset"}]
for n, kind in enumerate(["builtin", "builtin", "extension", "extension", "unknown"] * 2):
    source, provenance = _source(kind, n)
    SETUP.append(
        {"op": "catalog_insert", "source": source, "provenance": provenance, "schema": {"n": n}}
    )
RECORDED = record(
    [
        *SETUP,  # ten tools cataloged between the reset and the next recorded line
        {"op": "set_default_core", "name": "A", "session": "s-1"},
        {"op": "snapshot", "set": "A"},
        {"op": "authorize", "set": "A", "tool": "builtin:b0"},
        {"op": "authorize", "set": "A", "tool": "unknown:u4"},  # Unverified: not in the core
        {"op": "resolve", "wire_name": "builtin_b1"},
        {"op": "catalog_state"},
        {"op": "issue_grant", "name": "g", "session": "s-1", "tool": "ext.ext:e2"},
        {"op": "factory_calls", "tool": "builtin:b0"},
    ]
)


def _write(path: Path, lines: list[RecordedLine]) -> str:
    path.write_text(
        "".join(json.dumps({"request": x.request, "reply": x.reply}) + "\n" for x in lines)
    )
    return str(path)


def _trace(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = cli_main(["trace", *argv])
    out, err = capsys.readouterr()
    assert err == "" or status == 2, err
    return status, out


def test_a_recorded_setup_without_its_catalog_lines_passes_at_the_defaults(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert all(x.reply.get("ok") is True for x in RECORDED if x.request["op"] != "authorize")
    log = _write(tmp_path / "l.jsonl", without(RECORDED, CATALOG))
    report = tmp_path / "r.json"
    status, out = _trace(capsys, "--partial", "catalog", "--explain", log, "--json", str(report))
    assert status == 0, out
    assert "any number of unrecorded" in out.splitlines()[-1]
    assert json.loads(report.read_text())["partial"]["max_hidden"] is None
    # the explanation catalogs the ten tools in the one gap after the reset
    assert ": 10 hidden steps\n" in out and out.count("  after line 1: ") == 10
    for tool in ("builtin:b0", "builtin:b1", "unknown:u4", "ext.ext:e2", "unknown:u9"):
        assert f'"id":"{tool}"' in out, tool


SNAPSHOT_CHANGED: list[Request] = [
    {"op": "reset"},
    insert("x", {"v": 1}),
    {"op": "set_default_core", "name": "A", "session": "s-1"},
    {"op": "snapshot", "set": "A"},  # x pinned at {"v": 1}
    insert("x", {"v": 2}, "catalog_upsert"),
    {"op": "catalog_state"},  # generation 2, x at {"v": 2}
]


def test_a_forged_authorization_no_hidden_catalog_history_explains_fails(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = record([*SNAPSHOT_CHANGED, {"op": "authorize", "set": "A", "tool": "mcp.srv:x"}])
    lines.append(RecordedLine(8, {"op": "catalog_state"}, lines[5].reply))
    assert lines[6].reply["error"] == "ToolAuthorizationError.SchemaDigestMismatch"
    # forged: allowed, while both catalog_state lines around it show x drifted at the same
    # generation, so no catalog change (each advances the generation) can sit between them
    forged = lines[5].__class__(
        7, lines[6].request, {"ok": True, "tool": "mcp.srv:x", "basis": {"kind": "core"}}
    )
    log = _write(tmp_path / "l.jsonl", [*without(lines[:6], CATALOG), forged, lines[7]])
    status, out = _trace(capsys, "--partial", "catalog", log)
    assert status == 1, out
    # the forged reply needs x changed back, which the generation the next line shows forbids
    assert f"VIOLATION {log}:6: catalog_state - no hidden history (of any length)" in out
    assert "shortest unexplained window: lines 3-6" in out  # from the pin the snapshot shows


def test_an_authorization_a_hidden_catalog_change_explains_passes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = record(
        [
            *SNAPSHOT_CHANGED,
            insert("x", {"v": 1}, "catalog_upsert"),  # the drift undone: allowed again
            {"op": "authorize", "set": "A", "tool": "mcp.srv:x"},
            {"op": "catalog_state"},
        ]
    )
    assert lines[7].reply["ok"] is True and lines[8].reply["generation"] == 3
    log = _write(tmp_path / "l.jsonl", without(lines, CATALOG))
    status, out = _trace(capsys, "--partial", "catalog", log)
    assert status == 0, out


def test_strict_replies_reuses_conform_reply_checks_in_every_mode(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a rejection without its message: complete mode never compares messages
    lines = [
        RecordedLine(1, {"op": "reset"}, {"ok": True}),
        RecordedLine(2, {"op": "snapshot", "set": "B"}, {"ok": False, "error": "Protocol"}),
    ]
    log = _write(tmp_path / "l.jsonl", lines)
    assert _trace(capsys, log)[0] == 0
    for mode in ([], ["--jobs", "2"], ["--partial", "catalog"]):
        status, out = _trace(capsys, "--strict-replies", *mode, log)
        assert status == 1, (mode, out)
        assert f"VIOLATION {log}:2: snapshot" in out and "at $.message" in out, (mode, out)
