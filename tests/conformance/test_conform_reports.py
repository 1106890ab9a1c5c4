"""The reports a sharded CI run of ``conform`` needs: ``--merge`` writes one ``--json``,
``--junit`` and ``--summary`` (also appended to ``$GITHUB_STEP_SUMMARY``), JUnit ``file=`` points
at files relative to the checkout, and the console shows at most ten failures in full."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from harness.test_reports import assert_valid, load

from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.summary import GITHUB_STEP_SUMMARY

from .conftest import WriteVector, mini, parse_ok, step

WRONG_ID = step({"op": "tool_id_parse", "raw": "a:b"}, {"ok": True, "id": "x:y"})


@pytest.fixture
def shards(write_vector: WriteVector, tmp_path: Path) -> list[Path]:
    """Three ``--shard K/3`` reports of six vectors, one of which fails."""
    for i in range(5):
        path = write_vector(f"t/v{i}", parse_ok(f"a:b{i}"))
    write_vector("u/bad", WRONG_ID)
    reports = [tmp_path / f"r{k}.json" for k in (1, 2, 3)]
    for k, report in enumerate(reports, 1):
        argv = ["--vectors", str(path.parent), "--adapter", mini(), "--quiet"]
        conform_main([*argv, "--shard", f"{k}/3", "--json", str(report)])
    return reports


def test_conform_merge_writes_one_json_junit_and_summary(
    shards: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for part in shards:
        assert_valid("conform", load(part))
    step_summary = tmp_path / "step-summary.md"
    step_summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv(GITHUB_STEP_SUMMARY, str(step_summary))
    merged, xml, md = tmp_path / "m.json", tmp_path / "m.xml", tmp_path / "m.md"
    argv = ["--merge", *map(str, shards), "--json", str(merged), "--junit", str(xml)]
    assert conform_main([*argv, "--summary", str(md)]) == 1
    assert "5 passed, 1 failed" in capsys.readouterr().out
    report = load(merged)
    assert_valid("conform", report)
    assert report["verdict"] == "fail" and report["shard"] == [1, 1]
    assert report["counts"] == {"passed": 5, "failed": 1, "skipped": 0, "errored": 0}
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("6", "1")
    failed = [c for c in suite.iter("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["u/bad"]
    text = md.read_text(encoding="utf-8")
    assert "| t | 5 | 0 | 0 | 0 |" in text and "| u | 0 | 1 | 0 | 0 |" in text
    assert "First failure: `u/bad`" in text and "mismatch at $.id" in text
    assert step_summary.read_text(encoding="utf-8") == "earlier step\n" + text + "\n"
    # merging the merged report again is a whole run: the same verdict
    assert conform_main(["--merge", str(merged)]) == 1


def test_a_merge_with_a_shard_missing_fails_in_every_report(
    shards: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    merged = tmp_path / "m.json"
    assert conform_main(["--merge", str(shards[0]), "--json", str(merged)]) == 1
    report = load(merged)
    assert (report["verdict"], report["complete"]) == ("incomplete", False)
    assert report["stopped"] == "shard(s) 2/3, 3/3 missing"
    assert_valid("conform", report, complete=False)


def test_junit_file_attributes_are_relative_to_the_checkout_or_the_corpus(
    write_vector: WriteVector,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    xml = tmp_path / "r.xml"
    monkeypatch.chdir(tmp_path)  # (an editable install's corpus lies inside the checkout)
    assert conform_main(["-k", "edges/long-literal-rounding", "--quiet", "--junit", str(xml)]) == 0
    files = {c.get("file") for c in ET.parse(xml).getroot().iter("testcase")}
    assert files == {"edges/long-literal-rounding.json"}  # relative to the packaged corpus
    path = write_vector("t/good", parse_ok("a:b"))
    monkeypatch.chdir(path.parents[1])
    absolute = str(path.parent.resolve())
    assert conform_main(["--vectors", absolute, "--adapter", mini(), "--junit", str(xml)]) == 0
    files = {c.get("file") for c in ET.parse(xml).getroot().iter("testcase")}
    assert files == {"vectors/t__good.json"}


@pytest.mark.parametrize(
    ("reports", "pointer"),
    [
        ([], "(--json FILE or --junit FILE writes every one)"),
        (["--json"], "(every one is in the --json report)"),
        (["--json", "--junit"], "(every one is in the --json and --junit reports)"),
    ],
)
def test_conform_prints_at_most_ten_failures_in_full(
    write_vector: WriteVector,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    reports: list[str],
    pointer: str,
) -> None:
    for i in range(14):
        path = write_vector(f"t/v{i:02}", WRONG_ID)
    argv = ["--vectors", str(path.parent), "--adapter", mini(), "--quiet"]
    for flag in reports:
        argv += [flag, str(tmp_path / f"r{flag}")]
    assert conform_main(argv) == 1
    out = capsys.readouterr().out
    assert out.count("________ FAIL ") == 10
    # the rest: in the reports that are being written, or how to get them
    assert f"... and 4 more failed or errored vectors, not shown {pointer}" in out
    assert out.splitlines()[-1].startswith("0 passed, 14 failed")
