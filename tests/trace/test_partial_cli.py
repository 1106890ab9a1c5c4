"""``session-toolset trace --partial``: faithful logs without their catalog lines pass, a forged
authorization fails with its window, an undecided check is never consistent, bad flags exit 2."""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from harness.test_reports import assert_valid, load

from session_toolset_harness.cli import main as cli_main
from session_toolset_harness.trace import window
from session_toolset_harness.trace.logline import RecordedLine
from session_toolset_harness.trace.partial import CATALOG_GROUP, HiddenStep

from .partial_support import record, session, without
from .test_cli import _alive, _children, _cpu_seconds
from .test_partial import beyond_reach, replay

CATALOG = frozenset(CATALOG_GROUP)
FAITHFUL = record(session("a", ["x", "y"]))
"""1 reset, 2-3 inserts x y, 4 set_new (empty core), 5 issue_grant x, 6 activate, 7 authorize x,
8 authorize y (NotActivated), 9 upsert x, 10 authorize x (drift denied), 11 is_stale, 12 rebuild,
13 authorize x."""
FORGED_REPLY = {
    "ok": True,
    "tool": "mcp.srv:y",
    "basis": {"kind": "exact", "catalog_generation": 2},
}


def forged(lines: list[RecordedLine]) -> list[RecordedLine]:
    """Line 8 flipped: y, never activated in a set with an empty core, is authorized."""
    return [dataclasses.replace(x, reply=FORGED_REPLY) if x.line == 8 else x for x in lines]


def text(lines: list[RecordedLine], stream: str | None = None) -> str:
    """The log as trace lines, a removed line left blank so line numbers stay the recorded ones."""
    by_number = {x.line: x for x in lines}
    out = []
    for n in range(1, max(by_number) + 1):
        x = by_number.get(n)
        if x is None:
            out.append("\n")
            continue
        entry: dict[str, Any] = {"request": x.request, "reply": x.reply}
        if stream is not None:
            entry["stream"] = stream
        out.append(json.dumps(entry) + "\n")
    return "".join(out)


def write(path: Path, *parts: str) -> str:
    path.write_text("".join(parts), encoding="utf-8")
    return str(path)


def trace(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli_main(["trace", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_faithful_log_without_catalog_lines_passes_and_its_explanation_replays(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log_lines = without(FAITHFUL, CATALOG)
    log = write(tmp_path / "l.jsonl", text(log_lines))
    report = tmp_path / "r.json"
    # complete mode cannot read it: the grant at line 5 names a tool the log never inserted
    assert trace(capsys, log)[0] == 1
    status, out, err = trace(
        capsys, "--partial", "catalog", "--max-hidden", "2", "--explain", log, "--json", str(report)
    )
    assert (status, err) == (0, ""), out
    assert out.splitlines()[-1].startswith("trace: consistent - 1 log, 10 lines")
    assert "EXPLANATION" in out and "after line " in out
    assert "A partial check cannot conclude:" in out and "at most 2 unrecorded" in out
    data = load(report)
    assert_valid("trace", data)
    assert (data["verdict"], data["mode"], data["partial"]["max_hidden"]) == ("pass", "partial", 2)
    assert data["partial"]["unrecorded"] == sorted(CATALOG) and data["partial"]["limits"]
    assert data["partial"]["window"] == 1000  # the default reach
    steps = data["partitions"][0]["explanation"]
    explanation = tuple(HiddenStep(s["after_line"], s["request"], s.get("digest")) for s in steps)
    assert explanation and replay(log_lines, explanation) == []  # replayed here, independently


def test_a_forged_authorization_fails_with_its_window(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = write(tmp_path / "l.jsonl", text(forged(without(FAITHFUL, CATALOG))))
    xml = tmp_path / "r.xml"
    status, out, _ = trace(capsys, "--partial", "catalog", log, "--junit", str(xml))
    assert status == 1, out
    # from the set's creation (empty core, nothing activated for y) to the forged reply
    bound = "no hidden history (of any length) between recorded lines explains it"
    assert f"VIOLATION {log}:8: authorize - {bound}\n" in out and "window: lines 4-8" in out
    assert "hint:" not in out  # no bound to raise: any number of catalog changes was considered
    assert "A partial check cannot conclude:" in out
    assert out.splitlines()[-1].startswith("trace: VIOLATION - 1 log, 10 lines")
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    failure = suite.find("testcase/failure")
    assert failure is not None and "(of any length)" in str(failure.get("message"))
    # a bound the user chose is named, without the hint
    status, out, _ = trace(capsys, "--partial", "catalog", "--max-hidden", "1", log)
    assert status == 1 and "no hidden history of at most 1 operation between" in out
    assert "hint:" not in out


def test_partitions_are_checked_apart_with_jobs_and_keep_going(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    faithful, bad = without(FAITHFUL, CATALOG), forged(without(FAITHFUL, CATALOG))
    log = write(tmp_path / "l.jsonl", text(bad, "bad"), text(faithful, "good"))
    report = tmp_path / "r.json"
    for jobs in ("1", "2"):
        status, out, _ = trace(
            capsys,
            "--partial",
            "catalog",
            "--jobs",
            jobs,
            "--keep-going",
            log,
            "--json",
            str(report),
        )
        assert status == 1, out
        data = load(report)
        assert_valid("trace", data)
        assert [(v["stream"], v["first_line"], v["line"]) for v in data["violations"]] == [
            ("bad", 4, 8)
        ]
        parts = {p["stream"]: p for p in data["partitions"]}
        assert (parts["bad"]["violations"], parts["good"]["violations"]) == (1, 0)
        assert parts["good"]["checked"] == 10 and not data["stopped_at_first_violation"]
    # without --keep-going the run stops at the first partition nothing explains
    status, out, _ = trace(capsys, "--partial", "catalog", log, "--json", str(report))
    data = load(report)
    assert status == 1 and "stopped at the first violation" in out
    assert [p["stream"] for p in data["partitions"]] == ["bad"]


def test_an_undecided_check_is_never_consistent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(window, "RLIMIT", 1)  # the solver gives up on every query
    log = write(tmp_path / "l.jsonl", text(without(FAITHFUL, CATALOG)))
    report, xml = tmp_path / "r.json", tmp_path / "r.xml"
    status, out, _ = trace(
        capsys, "--partial", "catalog", log, "--json", str(report), "--junit", str(xml)
    )
    assert status == 3, out
    assert f"UNDECIDED {log}: " in out and "the solver gave up" in out
    assert out.splitlines()[-1].startswith("trace: UNDECIDED - 1 log, 10 lines")
    data = load(report)
    assert_valid("trace", data)
    assert data["verdict"] == "undecided" and data["counts"]["undecided"] == 1
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite is not None and suite.get("errors") == "1"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--max-hidden", "1"], "--max-hidden needs --partial"),
        (["--explain"], "--explain needs --partial"),
        (["--partial", "catalog_frobnicate"], "unknown op 'catalog_frobnicate'"),
        (["--partial", "authorize"], "cannot be unrecorded"),
        (["--partial", "catalog", "--max-hidden", "-1"], "must be 0 or more"),
        (["--partial", "catalog", "--max-hidden", "two"], "not an integer"),
        (["--window", "5"], "--window needs --partial"),
        (["--partial", "catalog", "--window", "0"], "must be at least 1"),
    ],
)
def test_bad_partial_flags_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], needle: str
) -> None:
    log = write(tmp_path / "l.jsonl", text(without(FAITHFUL, CATALOG)))
    status, out, err = trace(capsys, *args, log)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("session-toolset trace: error: ")
    assert needle in err


def test_a_recorded_line_of_an_unrecorded_kind_is_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = write(tmp_path / "l.jsonl", text(FAITHFUL))
    status, _, err = trace(capsys, "--partial", "catalog", log)
    assert status == 2 and f"{log}:2: op 'catalog_insert' is recorded" in err
    # the same log is complete: with only the test seam unrecorded, it passes
    assert trace(capsys, "--partial", "catalog_set_generation", log)[0] == 0


def test_a_line_needing_more_than_the_window_is_undecided_with_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = without(record(beyond_reach(12)), CATALOG)
    log = write(tmp_path / "l.jsonl", text(lines))
    status, out, _ = trace(capsys, "--partial", "catalog", "--max-hidden", "1", log)
    assert status == 0, out
    status, out, _ = trace(
        capsys, "--partial", "catalog", "--max-hidden", "1", "--window", "8", log
    )
    assert status == 3, out
    assert "undecided at line 16: no hidden history explains it within the last 8" in out
    assert "raise --window" in out


PROGRAM = (sys.executable, "-m", "session_toolset_harness.cli", "trace")


@pytest.mark.parametrize(("jobs", "signum"), [("1", signal.SIGINT), ("2", signal.SIGTERM)])
def test_a_signal_stops_a_partial_run_cleanly(
    tmp_path: Path, jobs: str, signum: signal.Signals
) -> None:
    log_lines = without(FAITHFUL, CATALOG)
    log = write(tmp_path / "l.jsonl", *(text(log_lines, f"s{n}") for n in range(200)))
    report = tmp_path / "r.json"
    process = subprocess.Popen(
        [*PROGRAM, "--partial", "catalog", "--jobs", jobs, "--json", str(report), log],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60  # signal once the workers are solving, however loaded
    while time.monotonic() < deadline and sum(map(_cpu_seconds, _children(process.pid))) < 0.5:
        time.sleep(0.1)
    children = _children(process.pid)
    process.send_signal(signum)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, (out, err)
    assert f"INCOMPLETE ({signum.name})" in out and err == ""
    data = load(report)
    assert (data["verdict"], data["complete"]) == ("incomplete", False)
    assert data["stopped"] == f"interrupted by {signum.name} after {data['counts']['lines']} lines"
    assert_valid("trace", data, complete=False)
    # the lines counted are those of the partitions listed (read but unchecked ones are not)
    assert data["counts"]["lines"] == sum(p["lines"] for p in data["partitions"])
    assert 0 < data["counts"]["partitions"] < 200
    assert len(children) == int(jobs)
    assert not [pid for pid in children if _alive(pid)]


def test_an_op_of_any_json_value_is_checked_not_a_crash(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    protocol = {"ok": False, "error": "Protocol"}
    odd: list[dict[str, Any]] = [
        {"request": {"op": ["x"]}, "reply": protocol},
        {"request": {"op": {"a": 1}}, "reply": {"ok": True}},  # never ok: malformed
    ]
    log = write(
        tmp_path / "l.jsonl",
        text(without(FAITHFUL, CATALOG)),
        *(json.dumps(entry) + "\n" for entry in odd),
    )
    status, out, err = trace(capsys, "--partial", "catalog", log)
    assert (status, err) == (1, "")
    assert f"VIOLATION {log}:15: ? - no hidden history (of any length)" in out
    assert "shortest unexplained window: line 15\n" in out
