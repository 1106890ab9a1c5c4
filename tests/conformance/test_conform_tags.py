"""``conform --tag`` (select) and ``--exclude-tag`` (set aside, reported as skipped)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .conftest import WriteVector, conform, document, mini, parse_ok


@pytest.fixture
def tagged(write_vector: WriteVector) -> Path:
    """Three vectors: t/plain (tag test), t/diff (declared-difference), t/both (slow too)."""
    write_vector("t/plain", raw=document("t/plain", parse_ok("a:b")))
    for vid, tags in [
        ("t/diff", ["declared-difference"]),
        ("t/both", ["declared-difference", "slow"]),
    ]:
        raw = {**document(vid, parse_ok("c:d")), "tags": tags}
        path = write_vector(vid, raw=raw)
    return path.parent


def test_exclude_tag_reports_the_vectors_as_skipped_with_the_tag(
    capsys: pytest.CaptureFixture[str], tagged: Path, tmp_path: Path
) -> None:
    record, report, xml = tmp_path / "rec.txt", tmp_path / "r.json", tmp_path / "r.xml"
    status, out, _ = conform(
        capsys,
        "--adapter",
        mini("--record", str(record)),
        "--vectors",
        str(tagged),
        "--exclude-tag",
        "declared-difference",
        "--json",
        str(report),
        "--junit",
        str(xml),
    )
    assert status == 0
    assert "PASS t/plain" in out
    assert "SKIP t/diff  (excluded by --exclude-tag declared-difference)" in out
    assert "1 passed, 0 failed, 2 skipped, 0 errored" in out
    # never run: the adapter saw only the start-up hello and t/plain (hello, reset, its step,
    # the sync probe)
    assert len(record.read_text(encoding="ascii").split()) == 5
    data = json.loads(report.read_text(encoding="utf-8"))
    reasons = {v["id"]: (v["status"], v["reason"]) for v in data["vectors"]}
    assert reasons["t/both"] == ("skipped", "excluded by --exclude-tag declared-difference")
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite is not None and suite.get("skipped") == "2"


def test_exclude_tag_wins_over_skip_must_fail_and_is_no_known_failure(
    capsys: pytest.CaptureFixture[str], tagged: Path, tmp_path: Path
) -> None:
    skip, known = tmp_path / "skip.txt", tmp_path / "known.txt"
    skip.write_text("t/diff  listed\n", encoding="utf-8")
    excluded = ["--exclude-tag", "slow", "--exclude-tag", "declared-difference"]
    skipped = ["--skip", str(skip), "--skip-must-fail", "--emit-known-failures", str(known)]
    status, out, _ = conform(
        capsys, "--adapter", mini(), "--vectors", str(tagged), *excluded, *skipped
    )
    # t/diff passes but is excluded, so it is not a stale skip entry; t/both names the first
    # given --exclude-tag it carries
    assert status == 0, out
    assert "SKIP t/both  (excluded by --exclude-tag slow)" in out
    assert "SKIP t/diff  (excluded by --exclude-tag declared-difference)" in out
    assert [
        line for line in known.read_text(encoding="utf-8").splitlines() if not line.startswith("#")
    ] == []


def test_tag_selects_and_leaves_the_rest_unreported(
    capsys: pytest.CaptureFixture[str], tagged: Path
) -> None:
    status, out, _ = conform(capsys, "--adapter", mini(), "--vectors", str(tagged), "--tag", "slow")
    assert status == 0
    assert "PASS t/both" in out and "t/plain" not in out and "t/diff" not in out
    assert "1 passed, 0 failed, 0 skipped, 0 errored" in out
    status, out, _ = conform(
        capsys, "--adapter", mini(), "--vectors", str(tagged), "--tag", "test", "--tag", "slow"
    )
    assert "2 passed, 0 failed, 0 skipped" in out and "t/diff" not in out
    status, out, _ = conform(
        capsys,
        "--adapter",
        mini(),
        "--vectors",
        str(tagged),
        "--tag",
        "declared-difference",
        "--exclude-tag",
        "slow",
    )
    assert "PASS t/diff" in out and "SKIP t/both" in out and "t/plain" not in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--tag", ""], "non-empty word"),
        (["--exclude-tag", "declared difference"], "non-empty word"),
        (["--tag", "nope"], "no vector carries tag 'nope'"),
        (["--tag", "slow", "--tag", "nope"], "no vector carries tag 'nope'"),
    ],
)
def test_bad_or_unknown_tags_are_usage_errors(
    capsys: pytest.CaptureFixture[str], tagged: Path, argv: list[str], needle: str
) -> None:
    status, _, err = conform(capsys, "--adapter", mini(), "--vectors", str(tagged), *argv)
    assert status == 2
    (line,) = err.strip().splitlines()
    assert needle in line


def test_an_exclude_tag_nobody_carries_is_only_a_warning(
    capsys: pytest.CaptureFixture[str], tagged: Path
) -> None:
    status, out, err = conform(
        capsys, "--adapter", mini(), "--vectors", str(tagged), "--exclude-tag", "declared-diference"
    )
    assert status == 0 and "3 passed" in out
    assert "warning: no vector carries tag 'declared-diference'" in err


def test_a_tag_only_vectors_outside_the_k_selection_carry_is_named_as_such(
    capsys: pytest.CaptureFixture[str], tagged: Path
) -> None:
    argv = ["--adapter", mini(), "--vectors", str(tagged)]
    status, _, err = conform(capsys, *argv, "-k", "plain", "--tag", "slow")
    assert status == 2
    (line,) = err.strip().splitlines()
    assert "no vector selected by -k 'plain' carries tag 'slow'" in line
    assert "1 vector(s) outside the selection" in line
    # a tag the whole corpus lacks is still called a typo, -k or not
    status, _, err = conform(capsys, *argv, "-k", "plain", "--tag", "nope")
    assert status == 2 and "no vector carries tag 'nope' (--tag)" in err
    status, out, _ = conform(capsys, *argv, "-k", "both", "--tag", "slow")
    assert status == 0 and "PASS t/both" in out and "1 passed" in out


def test_an_exclude_tag_the_corpus_has_is_no_warning_when_k_leaves_it_out(
    capsys: pytest.CaptureFixture[str], tagged: Path
) -> None:
    status, out, err = conform(
        capsys,
        "--adapter",
        mini(),
        "--vectors",
        str(tagged),
        "-k",
        "plain",
        "--exclude-tag",
        "slow",
    )
    assert status == 0 and "1 passed, 0 failed, 0 skipped" in out
    assert "warning" not in err
