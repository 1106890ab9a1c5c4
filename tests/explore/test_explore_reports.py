"""The reports a sharded CI run of ``explore`` needs: every ``--json`` report validates,
``--merge`` writes one ``--json``, ``--junit`` and ``--summary``, ``--junit`` fails the diverging
stream with the shrunk sequence, and ``--timeout`` bounds a hanging adapter."""

from __future__ import annotations

import json
import shlex
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from harness.test_reports import assert_valid, load

from session_toolset_harness.explore.cli import main as explore_main

from .conftest import miniature

SMALL = ["--seed", "3", "--examples", "12", "--steps", "8", "--quiet"]
FAULTY = Path(__file__).parent / "fakes" / "faulty_reference.py"


def test_explore_reports_validate_and_merge_into_one_junit_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parts = [tmp_path / f"s{k}.json" for k in (1, 2)]
    for k, part in enumerate(parts, 1):
        assert explore_main([*SMALL, "--shard", f"{k}/2", "--json", str(part)]) == 0
        assert_valid("explore", load(part))
    merged, xml, md = tmp_path / "m.json", tmp_path / "m.xml", tmp_path / "m.md"
    argv = ["--merge", *map(str, parts), "--json", str(merged), "--junit", str(xml)]
    assert explore_main([*argv, "--summary", str(md)]) == 0
    report = load(merged)
    assert_valid("explore", report)
    assert report["verdict"] == "pass" and report["merged_from"] == list(map(str, parts))
    assert report["steps"] == sum(load(p)["steps"] for p in parts)
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("2", "0")
    assert "## session-toolset explore: passed" in md.read_text(encoding="utf-8")
    # a shard missing: the merged run is incomplete in every report written from it
    assert explore_main(["--merge", str(parts[0]), "--json", str(merged)]) == 1
    report = load(merged)
    assert_valid("explore", report, complete=False)
    assert report["verdict"] == "incomplete" and report["counts"]["examples"] == 6
    assert report["stopped"] == "seed 3, --jobs 1: shard(s) 2/2 missing"


@pytest.mark.parametrize("twice", ["same file", "copied shard"])
def test_explore_merge_refuses_a_shard_given_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], twice: str
) -> None:
    part, copy, merged = tmp_path / "s1.json", tmp_path / "copy.json", tmp_path / "m.json"
    assert explore_main([*SMALL, "--shard", "1/2", "--json", str(part)]) == 0
    copy.write_bytes(part.read_bytes())
    second, error = {
        "same file": (part, f"{part} given twice"),
        "copied shard": (copy, f"shard 1/2 given twice ({part} and {copy})"),
    }[twice]
    capsys.readouterr()
    assert explore_main(["--merge", str(part), str(second), "--json", str(merged)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and not merged.exists()
    assert err == f"session-toolset explore: error: --merge: {error}\n"


def test_explore_junit_fails_the_diverging_stream_with_the_shrunk_sequence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, xml, report = tmp_path / "failure.json", tmp_path / "r.xml", tmp_path / "r.json"
    argv = ["--seed", "0", "--examples", "300", "--out", str(out), "--quiet"]
    with miniature("mini_revoke_core_allowed").patch():
        assert explore_main([*argv, "--junit", str(xml), "--json", str(report)]) == 1
    assert_valid("explore", load(report))
    cases = list(ET.parse(xml).getroot().iter("testcase"))
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == 1 and failed[0].get("file") == out.as_posix()
    failure = failed[0].find("failure")
    assert failure is not None and failure.get("type") == "divergence"
    assert "minimal failing sequence" in str(failure.text) and '"op":"revoke"' in str(failure.text)
    assert f"conform --vectors {out}" in str(failure.text)


def test_explore_timeout_bounds_a_hanging_adapter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    adapter = shlex.join([sys.executable, str(FAULTY), "--fault", "hang", "--on", "digest"])
    out = tmp_path / "found.json"  # not the default, which would land in the working directory
    started = time.monotonic()
    status = explore_main(["--adapter", adapter, "--timeout", "0.5", "--out", str(out), *SMALL])
    assert status == 1 and time.monotonic() - started < 8  # the default timeout alone is 10 s
    assert "Traceback" not in capsys.readouterr().err
    assert "no reply within 0.5 s" in json.loads(out.read_text())["description"]
