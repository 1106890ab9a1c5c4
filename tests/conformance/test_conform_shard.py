"""``conform --shard K/N`` splits deterministically and ``--merge`` gives one verdict; the
client's pipelined exchange reports crashes and timeouts at the request that got no reply."""

from __future__ import annotations

import json
import random
import shlex
from pathlib import Path

import pytest

from session_toolset_harness.conform import shard
from session_toolset_harness.conform.cli import main
from session_toolset_harness.conform.client import AdapterProcess, ExchangeError, Reply

from .conftest import WriteVector, mini, parse_ok


@pytest.mark.parametrize("text", ["3/2", "0/2", "1/0", "x", "1/", "/2", "-1/2", "1/2/3"])
def test_bad_shards_are_refused(text: str) -> None:
    with pytest.raises(shard.ShardError):
        shard.parse(text)


def test_shards_partition_whatever_the_input_order() -> None:
    ids = [f"v{i:03}" for i in range(23)]
    parts = []
    for k in range(1, 5):
        shuffled = random.Random(k).sample(ids, len(ids))
        parts.append(shard.select(shuffled, (k, 4), lambda x: (x,)))
    assert sorted(x for part in parts for x in part) == ids  # disjoint and complete
    assert {len(part) for part in parts} == {5, 6}  # sizes differ by at most one
    assert parts[0] == shard.select(ids, (1, 4), lambda x: (x,))  # order-independent


def _ids(report: Path) -> list[str]:
    return [v["id"] for v in json.loads(report.read_text(encoding="utf-8"))["vectors"]]


def test_shard_runs_merge_into_one_verdict(
    write_vector: WriteVector, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i in range(5):
        path = write_vector(f"t/v{i}", parse_ok(f"a:b{i}"))
    folder = str(path.parent)
    reports = [tmp_path / f"r{k}.json" for k in (1, 2, 3)]
    for k, report in enumerate(reports, 1):
        code = main(
            [
                "--vectors",
                folder,
                "--adapter",
                mini(),
                "--shard",
                f"{k}/3",
                "--json",
                str(report),
                "--quiet",
            ]
        )
        assert code == 0
    runs = [_ids(r) for r in reports]
    assert sorted(x for run in runs for x in run) == [f"t/v{i}" for i in range(5)]
    capsys.readouterr()
    assert main(["--merge", *map(str, reports)]) == 0
    assert "5 passed, 0 failed" in capsys.readouterr().out
    merged, summary = tmp_path / "merged.json", tmp_path / "merged.md"
    argv = ["--merge", str(reports[0]), str(reports[2]), "--json", str(merged)]
    assert main([*argv, "--summary", str(summary)]) == 1
    last = capsys.readouterr().out.splitlines()[-1]  # the summary line says why it exits 1
    assert last.endswith("(2 reports merged): INCOMPLETE (shard(s) 2/3 missing)"), last
    # a shard missing: every report written from the merge says the run is incomplete
    written = json.loads(merged.read_text(encoding="utf-8"))
    assert (written["complete"], written["verdict"]) == (False, "incomplete")
    assert written["stopped"] == "shard(s) 2/3 missing"
    title = summary.read_text(encoding="utf-8").splitlines()[0]
    assert title == "## session-toolset conform: **INCOMPLETE**"


@pytest.mark.parametrize(
    ("twice", "error"),
    [
        ("same file", "--merge: {r1} given twice"),
        ("same file, other spelling", "--merge: {r1} given twice"),
        ("copied shard", "--merge: shard 1/3 given twice ({r1} and {copy})"),
        ("other split", "--merge: vector t/v0 is in {whole} and in {r1} (4 more vectors"),
    ],
)
def test_a_merge_that_would_count_vectors_twice_is_a_usage_error(
    write_vector: WriteVector,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    twice: str,
    error: str,
) -> None:
    for i in range(5):
        path = write_vector(f"t/v{i}", parse_ok(f"a:b{i}"))
    runs = {"r1": "1/3", "r2": "2/3", "r3": "3/3", "whole": "1/1"}
    reports = {name: tmp_path / f"{name}.json" for name in runs}
    for name, split in runs.items():
        argv = ["--vectors", str(path.parent), "--adapter", mini(), "--shard", split]
        assert main([*argv, "--json", str(reports[name]), "--quiet"]) == 0
    copy = tmp_path / "copy.json"
    copy.write_bytes(reports["r1"].read_bytes())
    r1, rest = str(reports["r1"]), [str(reports["r2"]), str(reports["r3"])]
    extra = {
        "same file": r1,
        "same file, other spelling": str(tmp_path / "." / "r1.json"),
        "copied shard": str(copy),
        "other split": None,
    }[twice]
    first = [str(reports["whole"]), r1] if extra is None else [r1, extra]
    capsys.readouterr()
    assert main(["--merge", *first, *rest]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    wanted = error.format(r1=r1, copy=copy, whole=reports["whole"])
    assert err.startswith(f"session-toolset conform: error: {wanted}") and err.count("\n") == 1


def test_a_failing_shard_fails_the_merge(
    write_vector: WriteVector, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i in range(4):
        path = write_vector(f"t/v{i}", parse_ok(f"a:b{i}"))
    broken = mini("--fault", "invalid-json", "--on", "tool_id_parse")
    reports = []
    for k in (1, 2):
        reports.append(tmp_path / f"r{k}.json")
        adapter = broken if k == 2 else mini()
        main(
            [
                "--vectors",
                str(path.parent),
                "--adapter",
                adapter,
                "--shard",
                f"{k}/2",
                "--json",
                str(reports[-1]),
                "--quiet",
            ]
        )
    capsys.readouterr()
    assert main(["--merge", *map(str, reports)]) == 1
    assert "ERRORED t/v1" in capsys.readouterr().out


@pytest.mark.parametrize("content", [None, "not json", '{"tool": "something else"}'])
def test_unreadable_merge_inputs_exit_2(
    tmp_path: Path, content: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "report.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert main(["--merge", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_bad_shard_flag_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--shard", "3/2"]) == 2
    assert "--shard" in capsys.readouterr().err


# -- the pipelined client ------------------------------------------------------------------


def _adapter(*flags: str) -> AdapterProcess:
    return AdapterProcess(shlex.split(mini(*flags)))


def test_pipelined_replies_come_back_in_order() -> None:
    adapter = _adapter()
    try:
        requests = [{"op": "tool_id_parse", "raw": f"a:b{i}"} for i in range(200)]
        answers = list(adapter.exchange_pipelined(requests, 10.0))
    finally:
        adapter.close()
    assert [a.value["id"] for a in answers if isinstance(a, Reply)] == [
        f"a:b{i}" for i in range(200)
    ]


@pytest.mark.parametrize(("fault", "kind"), [("crash", "crash"), ("hang", "timeout")])
def test_a_failure_mid_pipeline_ends_at_its_request(fault: str, kind: str) -> None:
    adapter = _adapter("--fault", fault, "--on", "authorize")
    requests: list[object] = [
        {"op": "tool_id_parse", "raw": "a:b"},
        {"op": "tool_id_parse", "raw": "a:c"},
        {"op": "authorize", "set": "A", "tool": "a:b"},
        {"op": "tool_id_parse", "raw": "a:d"},
    ]
    try:
        answers = list(adapter.exchange_pipelined(requests, 1.0))
    finally:
        adapter.kill()
    assert len(answers) == 3  # two replies, then the error; nothing after it
    assert all(isinstance(a, Reply) for a in answers[:2])
    last = answers[2]
    assert isinstance(last, ExchangeError) and last.kind == kind
