"""``explore --jobs N`` / ``--shard K/N`` / ``--merge``: seed streams, reproducibility, the
partition of the budget, merged verdicts, and the early stop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.explore.cli import main
from session_toolset_harness.explore.parallel import Plan

from .conftest import miniature_command

SMALL = ["--budget", "dev", "--examples", "12", "--steps", "8", "--quiet"]


def test_streams_partition_the_budget_and_shards_are_streams_of_jobs() -> None:
    whole = Plan(examples=101, steps=5, seed=40, jobs=6)
    assert sum(whole.stream_examples(g) for g in whole.streams()) == 101
    seeds = {whole.stream_seed(g) for g in whole.streams()}
    assert len(seeds) == 6  # no stream repeats another's seed
    shards = [Plan(examples=101, steps=5, seed=40, jobs=2, shard=(k, 3)) for k in (1, 2, 3)]
    assert [g for p in shards for g in p.streams()] == whole.streams()
    for p in shards:
        for g in p.streams():
            assert p.stream_seed(g) == whole.stream_seed(g)
            assert p.stream_examples(g) == whole.stream_examples(g)
    single = Plan(examples=50, steps=5, seed=7)
    assert single.streams() == [0] and single.stream_seed(0) == 7


def _report(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return value


def test_jobs_are_reproducible_and_equal_the_merged_shards(tmp_path: Path) -> None:
    a, b, s1, s2 = (tmp_path / f"{n}.json" for n in ("a", "b", "s1", "s2"))
    assert main([*SMALL, "--seed", "11", "--jobs", "2", "--json", str(a)]) == 0
    assert main([*SMALL, "--seed", "11", "--jobs", "2", "--json", str(b)]) == 0
    ra, rb = _report(a), _report(b)
    assert ra["coverage"] == rb["coverage"] and ra["steps"] == rb["steps"] > 0
    assert [s["seed"] for s in ra["streams"]] == [11, 12]
    for k, out in ((1, s1), (2, s2)):
        assert main([*SMALL, "--seed", "11", "--shard", f"{k}/2", "--json", str(out)]) == 0
    merged: dict[tuple[str, str], int] = {}
    for path in (s1, s2):
        for op, code, hits in _report(path)["coverage"]:
            merged[(op, code)] = merged.get((op, code), 0) + hits
    assert merged == {(op, code): hits for op, code, hits in ra["coverage"]}
    assert main(["--merge", str(s1), str(s2)]) == 0
    assert main(["--merge", str(s1)]) == 1  # shard 2/2 missing


def test_a_divergence_in_one_worker_fails_the_run_and_the_merge(tmp_path: Path) -> None:
    out, report = tmp_path / "failure.json", tmp_path / "r.json"
    command = miniature_command("mini_stale_grant_accepted")
    code = main(
        [
            "--adapter",
            command,
            "--seed",
            "0",
            "--examples",
            "200",
            "--jobs",
            "2",
            "--no-shrink",
            "--quiet",
            "--out",
            str(out),
            "--json",
            str(report),
        ]
    )
    assert code == 1
    written = _report(report)
    found = written["divergence"]
    assert found is not None and found["seed"] in (0, 1) and found["vector"] == str(out)
    assert written["error"] is None  # the stopped worker is no error
    (other,) = [s for s in written["streams"] if s["stream"] != found["stream"]]
    assert other["stopped_early"] or other["steps"] > 0
    assert conform_main(["--vectors", str(out), "--adapter", command]) == 1
    assert conform_main(["--vectors", str(out)]) == 0
    assert main(["--merge", str(report)]) == 1


@pytest.mark.parametrize("content", [None, "[]", '{"format": "other"}', "{"])
def test_unreadable_merge_reports_exit_2(
    tmp_path: Path, content: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert main(["--merge", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
