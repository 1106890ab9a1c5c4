"""The conform CLI: exit codes, usage errors, output modes, skips, known failures, reports."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from session_toolset_harness.conform import cli, skips
from session_toolset_harness.conform.report import ConsoleReporter
from session_toolset_harness.conform.results import RunResult, Status, VectorResult

from .conftest import WriteVector, conform, mini, parse_error, parse_ok, step

SUMMARY = re.compile(r"^\d+ passed, \d+ failed, \d+ skipped, \d+ errored in \d+\.\d+ s$", re.M)
WRONG = step({"op": "tool_id_parse", "raw": "a:b"}, {"ok": True, "id": "a:WRONG"})


@pytest.fixture
def mixed(write_vector: WriteVector) -> Path:
    """A folder with one passing and one failing vector."""
    write_vector("t/good", parse_ok("a:b"))
    return write_vector("t/bad", WRONG).parent


def test_clean_run_exits_0_with_plain_lines_and_summary(
    capsys: pytest.CaptureFixture[str], write_vector: WriteVector
) -> None:
    path = write_vector("t/good", parse_ok("a:b"))
    status, out, _ = conform(capsys, "--adapter", mini(), "--vectors", str(path))
    assert status == 0
    assert "PASS t/good" in out.splitlines()
    assert SUMMARY.search(out) and "1 passed, 0 failed, 0 skipped, 0 errored" in out


def test_failure_exits_1_and_shows_request_expected_reply(
    capsys: pytest.CaptureFixture[str], mixed: Path
) -> None:
    status, out, _ = conform(capsys, "--adapter", mini(), "--vectors", str(mixed))
    assert status == 1
    assert "FAIL t/bad" in out and "PASS t/good" in out
    assert "step 2: mismatch at $.id" in out
    assert 'request:  {"op":"tool_id_parse","raw":"a:b"}' in out
    assert 'expected: {"ok":true,"id":"a:WRONG"}' in out
    assert 'reply:    {"ok":true,"id":"a:b"}' in out
    assert "1 passed, 1 failed, 0 skipped, 0 errored" in out


def test_quiet_prints_only_failures_and_summary(
    capsys: pytest.CaptureFixture[str], mixed: Path
) -> None:
    status, out, _ = conform(capsys, "--quiet", "--adapter", mini(), "--vectors", str(mixed))
    assert status == 1
    assert "PASS" not in out
    assert "FAIL t/bad" in out
    assert SUMMARY.search(out)


def test_k_filters_by_substring(capsys: pytest.CaptureFixture[str], mixed: Path) -> None:
    status, out, _ = conform(capsys, "-k", "goo", "--adapter", mini(), "--vectors", str(mixed))
    assert status == 0
    assert "t/bad" not in out and "1 passed" in out


def test_terminal_progress_is_one_line_with_a_count() -> None:
    stream = io.StringIO()
    reporter = ConsoleReporter(stream, terminal=True, quiet=False)
    reporter.start(4)
    for status in (Status.PASSED, Status.FAILED, Status.SKIPPED, Status.ERRORED):
        reporter.on_result(VectorResult(f"t/{status.value}", "p", status, reason="r"))
    drawn = stream.getvalue()
    assert drawn.startswith("\rconform: 1/4 vectors (") and "\n" not in drawn
    reporter.finish(RunResult(("x",), (), 0.0))
    assert SUMMARY.search(stream.getvalue())
    assert "PASS" not in stream.getvalue()  # no per-vector lines on a terminal


@pytest.mark.parametrize(
    "argv",
    [
        ["--no-such-flag"],
        ["--timeout", "-1"],
        ["--timeout", "soon"],
        ["--vectors", "/nonexistent/vectors"],
        ["--adapter", "", "--vectors", "."],
        ["--adapter", "'unterminated", "--vectors", "."],
    ],
)
def test_usage_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    status, _out, err = conform(capsys, *argv)
    assert status == 2
    assert len(err.strip().splitlines()) == 1 and "error" in err


def test_unreadable_skip_file_and_missing_adapter_exit_2(
    capsys: pytest.CaptureFixture[str], write_vector: WriteVector, tmp_path: Path
) -> None:
    path = str(write_vector("t/good", parse_ok("a:b")))
    status, _, err = conform(capsys, "--skip", str(tmp_path / "nope.txt"), "--vectors", path)
    assert status == 2 and "skip file" in err
    status, _, err = conform(capsys, "--adapter", str(tmp_path / "no-adapter"), "--vectors", path)
    assert status == 2 and "cannot start adapter" in err
    status, _, err = conform(capsys, "-k", "zzz", "--adapter", mini(), "--vectors", path)
    assert status == 2 and "zzz" in err


def test_missing_or_empty_packaged_corpus_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(cli.UsageError, match="missing"):
        cli.packaged_vectors(tmp_path / "absent")
    with pytest.raises(cli.UsageError, match="empty"):
        cli.packaged_vectors(tmp_path)


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = conform(capsys, "--help")
    assert status == 0 and "--skip-must-fail" in out


def test_module_entry_never_prints_a_traceback(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "session_toolset_harness.conform.cli",
            "--vectors",
            str(tmp_path / "x"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "no such file" in proc.stderr


def test_skip_file_parsing() -> None:
    rules = skips.parse("# comment\n\n t/a  flaky on CI  \nt/b*\n  # indented comment\n")
    assert [(r.pattern, r.reason, r.line) for r in rules] == [
        ("t/a", "flaky on CI", 3),
        ("t/b*", skips.DEFAULT_REASON, 4),
    ]
    assert skips.find(rules, "t/bzz") is rules[1]
    assert skips.find(rules, "t/c") is None


def test_a_packaged_skip_file_is_named_without_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    packaged = skips.read("skeleton")
    assert packaged == skips.read(skips.PACKAGED["skeleton"]) and len(packaged) > 10
    (tmp_path / "skeleton").write_text("only/this\n")  # a file of that name comes first
    assert [r.pattern for r in skips.read("skeleton")] == ["only/this"]
    with pytest.raises(skips.SkipFileError, match=r"\(packaged skip files: skeleton\)"):
        skips.read("skeletn")


def test_known_failures_round_trip(
    capsys: pytest.CaptureFixture[str], mixed: Path, tmp_path: Path
) -> None:
    known = tmp_path / "known.txt"
    adapter = mini()
    status, _, _ = conform(
        capsys, "--adapter", adapter, "--vectors", str(mixed), "--emit-known-failures", str(known)
    )
    assert status == 1
    assert [r.pattern for r in skips.read(known)] == ["t/bad"]
    status, out, _ = conform(
        capsys, "--adapter", adapter, "--vectors", str(mixed), "--skip", str(known)
    )
    assert status == 0 and "SKIP t/bad" in out and "1 passed, 0 failed, 1 skipped" in out
    again = tmp_path / "again.txt"
    status, out, _ = conform(
        capsys,
        "--adapter",
        adapter,
        "--vectors",
        str(mixed),
        "--skip",
        str(known),
        "--skip-must-fail",
        "--emit-known-failures",
        str(again),
    )
    assert status == 0 and "still failed" in out
    assert [r.pattern for r in skips.read(again)] == ["t/bad"]


def test_skip_must_fail_turns_a_passing_skipped_vector_into_an_error(
    capsys: pytest.CaptureFixture[str], mixed: Path, tmp_path: Path
) -> None:
    stale = tmp_path / "stale.txt"
    stale.write_text("t/go*  was broken once\n", encoding="utf-8")
    base = ["--adapter", mini(), "--vectors", str(mixed), "-k", "good", "--skip", str(stale)]
    status, out, _ = conform(capsys, *base)
    assert status == 0 and "SKIP t/good" in out
    status, out, _ = conform(capsys, *base, "--skip-must-fail")
    assert status == 1 and "stale skip entry" in out and "0 skipped, 1 errored" in out


def test_json_and_junit_reports_parse(
    capsys: pytest.CaptureFixture[str], write_vector: WriteVector, tmp_path: Path
) -> None:
    control = step({"op": "tool_id_parse", "raw": 'a\u0007<b>&"c"'}, {"ok": True, "id": "x:y"})
    write_vector("t/good", parse_ok("a:b"))
    folder = write_vector("t/control", control).parent
    (folder / "not-vector.json").write_text("[]", encoding="utf-8")
    report, xml = tmp_path / "r.json", tmp_path / "r.xml"
    status, _, _ = conform(
        capsys,
        "--adapter",
        mini(),
        "--vectors",
        str(folder),
        "--json",
        str(report),
        "--junit",
        str(xml),
    )
    assert status == 1
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["protocol"] == 1 and data["tool"] == "session-toolset conform"
    assert data["counts"] == {"passed": 1, "failed": 1, "skipped": 1, "errored": 0}
    assert data["verdict"] == "fail" and data["format"] == "session-toolset conform report"
    failed = next(v for v in data["vectors"] if v["status"] == "failed")
    assert failed["id"] == "t/control"
    assert failed["failure"]["step"] == 2 and failed["failure"]["path"] == "$.ok"
    assert failed["failure"]["request"]["raw"] == 'a\u0007<b>&"c"'
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    failure = cases["t/control"].find("failure")
    assert failure is not None and failure.text is not None and "\\u0007<b>&" in failure.text


def test_coverage_reports_pairs_and_full_coverage_is_enforced_on_request(
    capsys: pytest.CaptureFixture[str], write_vector: WriteVector
) -> None:
    path = str(write_vector("t/good", parse_ok("a:b"), parse_error("", "ToolIdError.Empty")))
    status, out, _ = conform(capsys, "--adapter", mini(), "--vectors", path, "--coverage")
    assert status == 0
    assert re.search(r"tool_id_parse\s+ToolIdError\.Empty\s+1", out)
    assert "ActivationError.StaleSnapshot" in out
    status, _, _ = conform(
        capsys, "--adapter", mini(), "--vectors", path, "--require-full-coverage"
    )
    assert status == 1


@pytest.mark.parametrize("flag", ["--json", "--junit", "--emit-known-failures"])
@pytest.mark.parametrize("where", ["missing-directory", "a-directory", "under-a-file"])
def test_an_unwritable_report_is_a_usage_error_before_anything_runs(
    capsys: pytest.CaptureFixture[str], mixed: Path, tmp_path: Path, flag: str, where: str
) -> None:
    blocker = tmp_path / "plain-file"
    blocker.write_text("x", encoding="utf-8")
    target = {
        "missing-directory": tmp_path / "no-such-dir" / "r.out",
        "a-directory": tmp_path,
        "under-a-file": blocker / "r.out",
    }[where]
    record = tmp_path / "adapter-saw.txt"
    good = tmp_path / "good.json"
    argv = ["--adapter", mini("--record", str(record)), "--vectors", str(mixed)]
    other = "--junit" if flag == "--json" else "--json"  # a writable report beside it
    status, out, err = conform(capsys, *argv, other, str(good), flag, str(target))
    assert status == 2
    (line,) = err.strip().splitlines()
    assert f"cannot write {flag} {target}" in line
    assert out == ""  # no vector ran, none was reported
    assert not record.exists()  # the adapter was never started
    assert not good.exists()  # probing the writable report left nothing behind


def test_a_writable_report_is_probed_without_losing_its_old_content(
    capsys: pytest.CaptureFixture[str], mixed: Path, tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    report.write_text("old", encoding="utf-8")
    argv = ["--adapter", mini(), "--vectors", str(mixed), "-k", "zzz", "--json", str(report)]
    status, _, err = conform(capsys, *argv)
    assert status == 2 and "zzz" in err  # a later usage error: the old report stays as it was
    assert report.read_text(encoding="utf-8") == "old"
