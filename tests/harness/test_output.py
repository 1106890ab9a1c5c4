"""What `check` and `prove` print: like good Unix tools.

On a terminal: progress, every failure, and ONE summary line at the end.  On anything else (a
CI log): the failures and the summary line only.  `--verbose` adds the full tables; `--json`
always holds the full reports.  The terminal cases run the real command under a pseudo-terminal,
the rest in-process (pytest's captured stdout is not a terminal).
"""

from __future__ import annotations

import json
import os
import pty
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from session_toolset_proofs import cli as prove_cli
from session_toolset_proofs.mutants import variant as mutant_variant
from session_toolset_proofs.report import Report, Row

from session_toolset_harness import check

MINIATURES = Path(__file__).resolve().parents[1] / "miniatures"
CHECK_SUMMARY = re.compile(
    r"check: proofs (passed|FAILED) \((\d+) of (\d+) checks as expected, [\d.]+ s\), "
    r"conformance (passed|FAILED|could not run) \((\d+) of (\d+) vectors passed, [\d.]+ s\), "
    r"model vs recorded (passed|FAILED) \([\d.]+ s\), "
    r"model vs implementation (passed|FAILED) \([\d.]+ s\)"
)
PROVE_SUMMARY = re.compile(
    r"(\d+) checks, (\d+) as expected, (\d+) not; .*[\d.]+ s summed over checks"
    # `session-toolset prove` (not `prove_cli.main` alone) adds the independent replay
    r"(; model vs recorded behaviour: agrees - \d+ vectors, \d+ steps replayed, 0 differ.*)?"
)


def _in_terminal(*args: str, stderr: bool = False) -> tuple[int, str]:
    """Run ``session-toolset ARGS`` with stdout (and ``stderr`` too, if asked) on a
    pseudo-terminal; (exit status, what the terminal got)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "session_toolset_harness.cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower if stderr else subprocess.DEVNULL,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.wait(timeout=300), b"".join(chunks).decode().replace("\r\n", "\n")


def _fake_report(*, failing: bool) -> Report:
    rows = [
        Row("gate.soundness", "per-tool-pinned", "safety", "proof", "proved", "proved", 0.1),
        Row("gate.soundness", "per-tool-pinned", "safety", "witness", "sat", "sat", 0.1),
    ]
    if failing:
        rows.append(
            Row("batch.atomic", "per-tool-pinned", "safety", "proof", "refuted", "proved", 0.2)
        )
    return Report(rows)


def _miniature(name: str) -> str:
    return shlex.join([sys.executable, str(MINIATURES / f"{name}.py")])


# --- check ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def check_on_a_terminal(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Any]:
    """One real ``session-toolset check --json FILE`` on a pseudo-terminal (the proofs are the
    costly part: the other check tests replay its proof rows): status, terminal, report."""
    report = tmp_path_factory.mktemp("check") / "check.json"
    status, out = _in_terminal("check", "--json", str(report))
    return status, out, json.loads(report.read_text(encoding="utf-8"))


def test_check_off_a_terminal_prints_the_summary_line_only(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    check_on_a_terminal: tuple[int, str, Any],
) -> None:
    # the proof rows of the terminal run (every stage but the proofs runs again here)
    fields = ("name", "profile", "kind", "check", "result", "expected", "seconds")
    proved = check_on_a_terminal[2]["prove"]["report"]["rows"]
    rows = [Row(**{f: r[f] for f in fields}, basis=r.get("basis", "")) for r in proved]
    monkeypatch.setattr("session_toolset_proofs.report.run", lambda *_: Report(rows))
    assert check.main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1, lines
    found = CHECK_SUMMARY.fullmatch(lines[0])
    assert found is not None, lines[0]
    assert found[1] == "passed" and found[4] == "passed"
    assert found[2] == found[3] and int(found[3]) > 100  # every proof row as expected
    assert found[5] == found[6] and int(found[6]) > 200  # every vector passed


def test_check_on_a_terminal_shows_progress_and_ends_with_the_summary(
    check_on_a_terminal: tuple[int, str, Any],
) -> None:
    status, out, report = check_on_a_terminal
    # what the terminal shows at the end: each line as its last carriage return left it
    lines = [shown for line in out.split("\n") if (shown := line.rsplit("\r", 1)[-1].rstrip())]
    assert status == 0, out
    assert lines[0] == "check: proving the model (profile per-tool-pinned) ..."
    assert lines[1] == "check: conformance of the reference adapter on the packaged corpus ..."
    # the vectors' progress line was drawn (count of the total, rate) and erased again
    drawn = re.findall(r"\rconform: (\d+)/(\d+) vectors \([\d.,]+ vectors/s", out)
    assert drawn and int(drawn[0][1]) > 200, out
    assert len(lines) == 3 and CHECK_SUMMARY.fullmatch(lines[-1]), lines
    assert report["verdict"] == "pass" and len(report["prove"]["report"]["rows"]) > 100


def test_check_verbose_prints_the_full_tables(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("session_toolset_proofs.report.run", lambda *_: _fake_report(failing=False))
    assert check.main(["--verbose"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("obligation ")
    assert lines[1].split()[:5] == ["gate.soundness", "per-tool-pinned", "proof", "proved", "0.10"]
    assert PROVE_SUMMARY.fullmatch(lines[3]), lines[3]
    assert "PASS sets/unknown-core-tool" in lines
    assert any(re.fullmatch(r"\d+ passed, 0 failed, 0 skipped, 0 errored in .*", x) for x in lines)
    found = CHECK_SUMMARY.fullmatch(lines[-1])
    assert found is not None and found.group(2, 3) == ("2", "2")


def test_check_prints_a_conformance_failure_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("session_toolset_proofs.report.run", lambda *_: _fake_report(failing=False))
    assert check.main(["--adapter", _miniature("mini_gate_ignores_digest")]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "________ FAIL model-cex/gate.soundness--gate_ignores_digest ________" in lines
    assert "expected: " in out and "reply:    " in out  # the failure's detail
    assert not any(line.startswith("PASS ") for line in lines)  # not the passing vectors
    found = CHECK_SUMMARY.fullmatch(lines[-1])
    assert found is not None and found[1] == "passed" and found[4] == "FAILED"
    assert int(found[5]) < int(found[6])


def test_check_prints_a_proof_failure_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("session_toolset_proofs.report.run", lambda *_: _fake_report(failing=True))
    assert check.main([]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3, lines  # header + the unexpected row, then the summary line
    assert lines[1].split()[:4] == ["batch.atomic", "per-tool-pinned", "proof", "refuted"]
    assert lines[1].endswith("<-- expected proved")
    found = CHECK_SUMMARY.fullmatch(lines[2])
    assert found is not None and found[1] == "FAILED" and found.group(2, 3) == ("2", "3")


def test_check_adapter_that_cannot_start_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Found before the proofs run: one line, exit 2, nothing on stdout."""

    def never(*_args: object) -> object:
        raise AssertionError("the proofs ran")

    monkeypatch.setattr("session_toolset_proofs.report.run", never)
    assert check.main(["--adapter", str(tmp_path / "no-such-adapter")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("session-toolset check: error: cannot start adapter ")


def test_check_json_holds_both_full_reports(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr("session_toolset_proofs.report.run", lambda *_: _fake_report(failing=True))
    out = tmp_path / "check.json"
    assert check.main(["--json", str(out)]) == 1
    assert len(capsys.readouterr().out.splitlines()) == 3
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["verdict"] == "fail" and data["counts"]["failed"] == 1
    assert data["prove"]["exit_status"] == 1
    assert [r["name"] for r in data["prove"]["report"]["rows"]] == [
        "gate.soundness",
        "gate.soundness",
        "batch.atomic",
    ]
    assert data["conform"]["exit_status"] == 0
    vectors = data["conform"]["report"]["vectors"]
    assert len(vectors) > 200 and {v["status"] for v in vectors} == {"passed"}


@pytest.mark.parametrize(
    ("json_report", "pointer"),
    [(False, "(--json FILE writes every one)"), (True, "(every one is in the --json report)")],
)
def test_check_points_at_the_json_report_for_the_failures_it_leaves_out(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    json_report: bool,
    pointer: str,
) -> None:
    """check has no --junit: the failures past the tenth are in --json only, if it was given."""
    from session_toolset_harness.conform import cli as conform_cli
    from session_toolset_harness.conform.results import RunResult, Status, VectorResult

    bad = tuple(VectorResult(f"t/v{i:02}", "p", Status.FAILED, reason="r") for i in range(12))
    monkeypatch.setattr(conform_cli, "execute", lambda *_: (1, RunResult(("a",), bad, 0.1)))
    assert check._conform(check._Console(False, False), None, json_report).status == 1
    out = capsys.readouterr().out
    assert f"... and 2 more failed or errored vectors, not shown {pointer}" in out


def test_check_quiet_and_verbose_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    assert check.main(["--quiet", "--verbose"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


# --- prove ------------------------------------------------------------------------------------


def test_prove_off_a_terminal_prints_the_summary_line_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert prove_cli.main(["-k", "invariant.init", "--jobs", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1, lines
    found = PROVE_SUMMARY.fullmatch(lines[0])
    assert found is not None and found[1] == found[2] and found[3] == "0"
    assert int(found[1]) >= 3  # the proof, its witness, at least one mutant


@pytest.mark.parametrize("quiet", [False, True])
def test_prove_on_a_terminal_shows_progress_and_ends_with_the_summary(quiet: bool) -> None:
    flags = ["--quiet"] if quiet else []
    status, out = _in_terminal("prove", "-k", "invariant.init", "--jobs", "1", *flags, stderr=True)
    # what the terminal shows at the end: each line as its last carriage return left it
    lines = [shown for line in out.split("\n") if (shown := line.rsplit("\r", 1)[-1].rstrip())]
    assert status == 0, out
    assert len(lines) == 1 and PROVE_SUMMARY.fullmatch(lines[0]), lines
    # the progress line (count of the total, rate) was drawn and erased again; not with --quiet
    assert ("\rprove: 0/3 checks (0.0 checks/s)" in out) is not quiet, out


def test_prove_verbose_prints_every_row(capsys: pytest.CaptureFixture[str]) -> None:
    assert prove_cli.main(["-k", "invariant.init", "--jobs", "1", "--verbose"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("obligation ")
    checks = [line.split()[2] for line in lines[1:-1] if not line.startswith("    ")]
    assert checks[:2] == ["proof", "witness"] and checks[2].startswith("mutant:")
    found = PROVE_SUMMARY.fullmatch(lines[-1])
    assert found is not None and int(found[1]) == len(checks)


def test_prove_failure_prints_the_row_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(prove_cli, "run", lambda *_: _fake_report(failing=True))
    assert prove_cli.main([]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3, lines
    assert lines[1].startswith("batch.atomic") and lines[1].endswith("<-- expected proved")
    assert PROVE_SUMMARY.fullmatch(lines[2]) and lines[2].startswith("3 checks, 2 as expected, 1")


# --- prove's report includes the independent replay ----------------------------------------
def test_session_toolset_prove_reports_the_independent_replay(tmp_path: Path) -> None:
    from session_toolset_harness.cli import main as harness_main

    out = tmp_path / "prove.json"
    assert harness_main(["prove", "-k", "invariant.init", "--jobs", "1", "--json", str(out)]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["independent"]["ok"] is True
    assert doc["independent"]["vectors"] >= 80 and doc["independent"]["disagreements"] == []


def test_prove_fails_when_the_model_contradicts_recorded_behaviour(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from session_toolset_model.world import World

    from session_toolset_harness.independent import replay

    def broken() -> object:  # a model mutant the recorded corpus contradicts
        return replay(world_factory=lambda: World(mutant_variant("revoke_keeps_schemagen")))

    out = tmp_path / "prove.json"
    status = prove_cli.main(
        ["-k", "invariant.init", "--jobs", "1", "--json", str(out)],
        independent=broken,  # type: ignore[arg-type]
    )
    assert status == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("model disagrees with recorded behaviour: ")
    assert "model vs recorded behaviour: DISAGREES" in lines[-1]
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["verdict"] == "fail" and doc["independent"]["ok"] is False
