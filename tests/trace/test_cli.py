"""``session-toolset trace``: exit codes, bad input, partitions, reports, recording."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from harness.test_reports import assert_valid, load
from session_toolset_model.world import World

import session_toolset.adapter as reference
from session_toolset_harness.cli import main as cli_main
from session_toolset_harness.trace.jobs import check_logs_parallel

from .support import LineSource, by_stream, check, line, recorded_corpus, violations

HELLO, RESET = {"op": "hello"}, {"op": "reset"}
PARSE = {"op": "tool_id_parse", "raw": "a:b"}


def schema(name: str) -> dict[str, Any]:
    text = (resources.files("session_toolset_harness") / "schemas" / name).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def trace(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli_main(["trace", *args])
    out, err = capsys.readouterr()
    return status, out, err


def write(path: Path, *lines: str) -> str:
    path.write_text("".join(lines), encoding="utf-8")
    return str(path)


GOOD = (
    line(HELLO, {"ok": True, "protocol": 1, "implementation": "x"}),
    line(RESET, {"ok": True}),
    line(PARSE, {"ok": True, "id": "a:b"}),
)


def test_a_consistent_log_exits_0_with_one_summary_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = trace(capsys, write(tmp_path / "l.jsonl", *GOOD))
    assert (status, err) == (0, "")
    assert out.count("\n") == 1 and out.startswith("trace: consistent - 1 log, 3 lines")


@pytest.mark.parametrize(
    ("reply", "caught"),
    [
        ({"ok": True, "id": "a:c"}, "$.id"),  # a wrong value
        ({"ok": True}, "$.id"),  # a missing field
        ({"ok": True, "id": "a:b", "extra": 1, "message": "hi"}, None),  # extra fields: open
        ({"ok": 1, "id": "a:b"}, "$.ok"),  # the JSON type counts
        ({"ok": False, "error": "ToolIdError.Empty", "message": "x"}, "$.ok"),
    ],
)
def test_the_observed_reply_must_hold_the_whole_expected_reply(
    reply: dict[str, Any], caught: str | None
) -> None:
    result = check([*GOOD[:2], line(PARSE, reply)])
    assert [v.path for v in violations(result)] == ([] if caught is None else [caught])


def test_a_violation_is_reported_with_line_op_section_and_both_replies(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = line({"op": "tool_id_parse", "raw": ""}, {"ok": True, "id": ""})
    log = write(tmp_path / "l.jsonl", *GOOD, bad, bad)
    status, out, _ = trace(capsys, log)
    assert status == 1
    assert f"VIOLATION {log}:4: tool_id_parse - SPEC.md 1.1 ToolId" in out
    assert '"error":"ToolIdError.Empty"' in out and "stopped at the first violation" in out
    status, out, _ = trace(capsys, log, "--keep-going")
    assert status == 1 and out.count("\nVIOLATION ") == 2 and "2 violations" in out


def test_lines_before_the_first_reset_are_unchecked_unless_stateless() -> None:
    state = line({"op": "catalog_state"}, {"ok": True, "generation": 9, "records": []})
    result = check([state, GOOD[0], line(PARSE, {"ok": True, "id": "a:c"})])
    assert [v.line for v in result.violations] == [3]  # a stateless op is checked anyway
    assert (result.counts.before_reset, result.counts.checked) == (1, 2)
    result = check([state, *GOOD[1:], state])
    assert [v.line for v in result.violations] == [4]  # after reset: generation 0


def test_after_a_request_spec_md_leaves_open_nothing_is_checked_until_reset() -> None:
    deep: object = 0
    for _ in range(130):
        deep = [deep]
    # an op that may change the state (a digest cannot: only its own line is left unchecked)
    open_line = line({"op": "catalog_set_generation", "value": deep}, {"ok": True})
    wrong = line(PARSE, {"ok": True, "id": "a:c"})
    result = check([*GOOD[:2], open_line, wrong, line(RESET, {"ok": True}), wrong])
    assert [v.line for v in result.violations] == [6]
    assert result.counts.open == 2


@pytest.mark.parametrize(
    ("request_text", "value", "as_python"),
    [
        # -0 is the double -0.0: not a u64, so the generation seam refuses it
        ('{"op":"catalog_set_generation","value":-0}', -0.0, 0),
        # 2^64 + 1 is read as a double (2^64), which hashes differently from the integer
        ('{"op":"digest","schema":18446744073709551617}', 2.0**64, 2**64 + 1),
    ],
)
def test_numbers_are_read_as_a_request_line_reads_them(
    request_text: str, value: float, as_python: int
) -> None:
    op = json.loads(request_text)["op"]
    field = "value" if op == "catalog_set_generation" else "schema"
    expected = World().handle({"op": op, field: value})
    naive = World().answer({"op": op, field: as_python})  # the value as Python reads it
    assert expected != naive
    for reply, ok in ((expected, True), (naive, False)):
        text = '{"request":' + request_text + ',"reply":' + json.dumps(reply) + "}\n"
        assert check([*GOOD[:2], text]).ok is ok


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("not json\n", ":1: not JSON"),
        ("[1]\n", ":1: a line must be a JSON object"),
        ('{"reply": {}}\n', ":1: no 'request'"),
        ('{"request": {"op": "hello"}, "reply": 3}\n', ":1: a non-object 'reply'"),
        ('{"request": {}, "reply": {}, "stream": 1}\n', ":1: 'stream' must be a string"),
        ('{"request": {"x": NaN}, "reply": {}}\n', ":1: not JSON"),
    ],
)
def test_bad_input_is_one_line_naming_file_and_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, needle: str
) -> None:
    log = write(tmp_path / "l.jsonl", *GOOD, "\n", content)
    status, _, err = trace(capsys, log)
    assert status == 2 and "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("session-toolset trace: error: ")
    assert f"{log}{needle.replace(':1:', ':5:')}" in err


@pytest.mark.parametrize(
    "args",
    [[], ["missing.jsonl"], ["-", "-"], ["--jobs", "0", "x"], ["--json", "/nonexistent/r", "x"]],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    status, _, err = trace(capsys, *args)
    assert status == 2 and err.startswith("session-toolset trace: error: ")


def test_not_utf8_is_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    path.write_bytes(b'{"request":{"op":"\xff"},"reply":{}}\n')
    status, _, err = trace(capsys, str(path))
    assert status == 2 and "not UTF-8" in err


def test_stdin_is_read_with_dash(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(GOOD)))
    status, out, _ = trace(capsys, "-")
    assert status == 0 and "3 lines" in out


def _streams(bad_stream: str | None) -> list[str]:
    lines: list[str] = []
    for name in ("s1", "s2", "s3"):
        lines += [line(r["request"], r["reply"], stream=name) for r in map(json.loads, GOOD)]
    wrong = {"ok": True, "id": "a:c"}
    if bad_stream is not None:
        lines.insert(4, line(PARSE, wrong, stream=bad_stream))
    return lines


def test_partitions_have_their_own_worlds_and_reports_follow_the_schemas(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    catalog = {
        "op": "catalog_insert",
        "source": {"kind": "builtin", "name": "x"},
        "provenance": {"kind": "builtin_runtime"},
        "schema": None,
    }
    lines = [*_streams("s2")]
    # s1 inserts a tool: generation 1 there; s3's catalog must still be at 0
    lines.append(line(catalog, {"ok": True, "id": "builtin:x", "generation": 1}, stream="s1"))
    lines.append(
        line({"op": "catalog_state"}, {"ok": True, "generation": 0, "records": []}, stream="s3")
    )
    log = write(tmp_path / "l.jsonl", *lines)
    report, xml = tmp_path / "r.json", tmp_path / "r.xml"
    for jobs in ("1", "2"):
        status, out, _ = trace(
            capsys,
            log,
            "--keep-going",
            "--jobs",
            jobs,
            "--json",
            str(report),
            "--junit",
            str(xml),
        )
        assert status == 1, out
        data = load(report)
        assert_valid("trace", data)
        assert [(v["stream"], v["line"]) for v in data["violations"]] == [("s2", 5)]
        assert data["verdict"] == "violation" and data["mode"] == "complete"
        assert data["counts"]["partitions"] == len(data["partitions"]) == 3
        suite = ET.parse(xml).getroot().find("testsuite")
        assert suite is not None
        assert (suite.get("tests"), suite.get("failures")) == ("3", "1")
        cases = {c.get("name"): c for c in suite.iter("testcase")}
        assert cases["s2"].find("failure") is not None and cases["s1"].find("failure") is None


def test_recorded_lines_follow_the_line_schema() -> None:
    validator = jsonschema.Draft202012Validator(schema("trace-line.schema.json"))
    for text in recorded_corpus()[:400]:
        validator.validate(json.loads(text))
    assert not validator.is_valid({"request": {"op": "hello"}})


def test_adapter_record_and_conform_record_logs_pass(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vectors = Path(str(resources.files("session_toolset_harness") / "vectors" / "gate"))
    record = tmp_path / "conform.jsonl"
    assert cli_main(["conform", "--quiet", "--vectors", str(vectors), "--record", str(record)]) == 0
    assert "recorded" in capsys.readouterr().err
    status, out, _ = trace(capsys, str(record))
    assert status == 0 and f"{len(list(vectors.glob('*.json')))} partitions" in out
    adapter_log = tmp_path / "adapter.jsonl"
    text = "".join(
        json.loads(t)["request"].__repr__() and json.dumps(json.loads(t)["request"]) + "\n"
        for t in by_stream(recorded_corpus())["gate/untrusted-pins"]
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "session_toolset_harness.cli",
            "adapter",
            "--record",
            str(adapter_log),
        ],
        input=text + "not json\n",
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert len(done.stdout.splitlines()) == text.count("\n") + 1
    assert len(adapter_log.read_text().splitlines()) == text.count("\n")
    assert trace(capsys, str(adapter_log))[0] == 0


@pytest.mark.parametrize(("jobs", "signum"), [("2", signal.SIGTERM), ("1", signal.SIGINT)])
def test_a_signal_stops_cleanly_with_a_partial_report(
    tmp_path: Path, jobs: str, signum: signal.Signals
) -> None:
    lines = list(recorded_corpus())
    log = tmp_path / "big.jsonl"
    with log.open("w", encoding="utf-8") as big:
        for _ in range(20):
            big.writelines(lines)
    report = tmp_path / "r.json"
    command = [sys.executable, "-m", "session_toolset_harness.cli", "trace", str(log)]
    process = subprocess.Popen(
        [*command, "--jobs", jobs, "--json", str(report)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # signal once it is well into checking (past its imports and set-up), however loaded
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (
        _cpu_seconds(process.pid) + sum(map(_cpu_seconds, _children(process.pid))) < 0.6
    ):
        time.sleep(0.1)
    children = _children(process.pid)
    process.send_signal(signum)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, (out, err)
    assert f"INCOMPLETE ({signum.name})" in out and "Traceback" not in err
    data = json.loads(report.read_text(encoding="utf-8"))
    assert (data["verdict"], data["complete"]) == ("incomplete", False)
    assert_valid("trace", data, complete=False)
    lines_checked = data["counts"]["lines"]
    assert data["stopped"] == f"interrupted by {signum.name} after {lines_checked} lines"
    assert 0 < data["counts"]["checked"] < 20 * len(lines)
    assert len(children) == int(jobs) - (jobs == "1")
    assert not [pid for pid in children if _alive(pid)]


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def test_explore_record_writes_a_log_of_one_stream_per_example_that_passes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    record = tmp_path / "explore.jsonl"
    args = ["--examples", "6", "--steps", "12", "--seed", "7", "--quiet", "--no-shrink"]
    assert cli_main(["explore", *args, "--record", str(record)]) == 0
    capsys.readouterr()
    streams = {json.loads(t)["stream"] for t in record.read_text(encoding="utf-8").splitlines()}
    assert {f"seed 7/{n}" for n in range(1, 7)} <= streams
    status, out, _ = trace(capsys, str(record))
    assert status == 0 and "0 violations" in out and "unchecked" not in out
    assert cli_main(["explore", *args, "--jobs", "2", "--record", str(record)]) == 2


def test_a_recorded_raw_line_is_the_value_it_denotes_or_left_out() -> None:
    from session_toolset_harness.trace.record import request_object

    # a repeated key keeps its last value; one that discards an out-of-range number (or a lone
    # surrogate) makes the line malformed, so nothing is logged for it
    assert request_object(b'{"op":"digest","schema":1,"schema":2}') == {"op": "digest", "schema": 2}
    assert request_object(b'{"op":"digest","schema":1e400,"schema":2}') is None
    assert request_object(b'{"op":"digest","schema":"\\ud800","schema":2}') is None
    assert request_object(b'{"op":"digest","schema":-0}') == {"op": "digest", "schema": -0.0}
    assert request_object(b"[1]") is None and request_object(b"") is None


def test_bad_input_with_jobs_is_exit_2_and_leaves_no_worker(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import multiprocessing

    log = write(tmp_path / "l.jsonl", *_streams(None), "oops\n")
    status, _, err = trace(capsys, log, "--jobs", "2")
    assert status == 2 and f"{log}:10: not JSON" in err
    assert multiprocessing.active_children() == []


def test_every_op_and_error_family_has_a_section() -> None:
    from session_toolset_harness.trace.sections import BY_CODE, BY_OP

    ops = {name[4:] for name in dir(World) if name.startswith("_op_")}
    assert ops == set(BY_OP)
    families = {
        json.loads(t)["reply"].get("error", "").partition(".")[0] for t in recorded_corpus()
    }
    assert families - {""} <= set(BY_CODE)


def test_a_malformed_reset_is_checked_and_resets_nothing() -> None:
    insert = {
        "op": "catalog_insert",
        "source": {"kind": "builtin", "name": "x"},
        "provenance": {"kind": "builtin_runtime"},
        "schema": None,
    }
    inserted = line(insert, {"ok": True, "id": "builtin:x", "generation": 1})
    bad_reset = '{"request":{"op":"reset","x":"\\ud800"},"reply":{"ok":true}}\n'
    empty = line({"op": "catalog_state"}, {"ok": True, "generation": 0, "records": []})
    result = check([*GOOD[:2], inserted, bad_reset, empty], keep_going=True)
    # the lone surrogate makes the line malformed: Protocol expected, and the catalog stays
    assert [(v.line, v.path) for v in violations(result)] == [(4, "$.ok"), (5, "$.generation")]


def _recorded(requests: list[dict[str, Any]], stream: str | None = None) -> list[str]:
    """The requests answered by the reference implementation, as trace lines."""
    world = reference.World()
    extra = {} if stream is None else {"stream": stream}
    return [
        line(r, reference.handle_line(world, json.dumps(r).encode()), **extra) for r in requests
    ]


def _builtin(name: str) -> dict[str, Any]:
    return {
        "op": "catalog_insert",
        "source": {"kind": "builtin", "name": name},
        "provenance": {"kind": "builtin_runtime"},
        "schema": None,
    }


TWO_RECORDS = _recorded([HELLO, RESET, _builtin("x"), _builtin("y"), {"op": "catalog_state"}])


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda r: r[:1], "$.records"),  # a prefix of the list
        (lambda r: [*r, r[0]], "$.records"),  # the list as a prefix of the observed one
        (lambda r: r[::-1], "$.records[0].id"),  # the same elements in another order
        (lambda r: [{**r[0], "id": "builtin:z"}, r[1]], "$.records[0].id"),  # the first differs
        (lambda r: [r[0], {k: v for k, v in r[1].items() if k != "digest"}], "$.records[1].digest"),
        (lambda r: [{**r[0], "source": {}}, r[1]], "$.records[0].source.kind"),  # nested missing
        (lambda r: [{**r[0], "source": {"kind": "builtin", "name": "x"}}, r[1]], None),  # extra
    ],
)
def test_lists_in_replies_compare_whole_in_length_order_and_every_nested_field(
    change: Callable[[list[dict[str, Any]]], list[dict[str, Any]]], path: str | None
) -> None:
    assert check(TWO_RECORDS).ok
    state = json.loads(TWO_RECORDS[-1])
    state["reply"]["records"] = change(state["reply"]["records"])
    result = check([*TWO_RECORDS[:-1], json.dumps(state) + "\n"])
    assert [(v.line, v.path) for v in violations(result)] == ([] if path is None else [(5, path)])


def test_lines_after_a_rejected_reset_are_checked_against_the_state_before_it() -> None:
    bad_reset = '{"request":{"op":"reset","x":"\\ud800"},"reply":{"ok":false,"error":"Protocol"}}\n'
    state = TWO_RECORDS[-1]  # both records still there: consistent
    assert check([*TWO_RECORDS[:-1], bad_reset, state]).ok
    reset_state = _recorded([RESET, {"op": "catalog_state"}])[1]  # what a real reset leaves
    result = check([*TWO_RECORDS[:-1], bad_reset, reset_state])
    assert [(v.line, v.path) for v in violations(result)] == [(6, "$.generation")]
    # a rejected first reset starts nothing: what follows is still before the first reset
    result = check([bad_reset, reset_state, TWO_RECORDS[-1]])
    assert (result.counts.checked, result.counts.before_reset) == (1, 2)


@pytest.mark.parametrize("jobs", [2, 3])
def test_jobs_with_keep_going_list_every_violation_of_every_worker(jobs: int) -> None:
    forged = {"ok": True, "id": "a:c"}
    log: list[str] = []
    for n in range(8):  # eight partitions, three forged replies each, interleaved
        log += _recorded([HELLO, RESET], stream=f"s{n}")
    for _ in range(3):
        for n in range(8):
            log += [line(PARSE, forged, stream=f"s{n}"), *_recorded([PARSE], stream=f"s{n}")]
    alone = check(log, keep_going=True)
    assert len(alone.violations) == 24
    parallel = check_logs_parallel(["-"], LineSource(log), jobs=jobs, keep_going=True)
    assert [(v.line, v.stream) for v in violations(parallel)] == [
        (v.line, v.stream) for v in violations(alone)
    ]
    assert {p.stream: p.violations for p in parallel.partitions} == {f"s{n}": 3 for n in range(8)}
