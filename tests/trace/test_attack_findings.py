"""Findings of an adversarial review of trace validation: each test states what docs/trace.md
promises where a first version broke it."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from session_toolset_harness.cli import main as cli_main
from session_toolset_harness.trace.logline import CUT, KEPT_LEVELS, shallow
from session_toolset_harness.trace.partial import CATALOG_GROUP, check_partial

from .partial_support import record, session, without
from .support import check, line, recorded_corpus
from .test_cli import GOOD, PARSE, _children, _cpu_seconds, schema

CATALOG = frozenset(CATALOG_GROUP)


def trace(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli_main(["trace", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_sigterm_to_the_process_group_with_jobs_stops_cleanly(tmp_path: Path) -> None:
    log = tmp_path / "big.jsonl"
    with log.open("w", encoding="utf-8") as big:
        for _ in range(20):
            big.writelines(recorded_corpus())
    report = tmp_path / "r.json"
    command = [sys.executable, "-m", "session_toolset_harness.cli", "trace", str(log)]
    process = subprocess.Popen(
        [*command, "--jobs", "2", "--keep-going", "--json", str(report)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (
        _cpu_seconds(process.pid) + sum(map(_cpu_seconds, _children(process.pid))) < 0.6
    ):
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGTERM)
    try:
        out, err = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("still running 20 s after SIGTERM to its process group")
    assert process.returncode == 128 + signal.SIGTERM, (out, err)
    assert "INCOMPLETE (SIGTERM)" in out and "Traceback" not in err
    assert json.loads(report.read_text(encoding="utf-8"))["complete"] is False


def test_partial_mode_allows_reply_fields_the_model_does_not_produce() -> None:
    faithful = record(session("a", ["x", "y"]))
    tagged = [dataclasses.replace(x, reply={**x.reply, "trace_id": "t-1"}) for x in faithful]
    assert check([line(x.request, x.reply) for x in tagged]).ok  # complete mode: open replies
    assert check_partial(faithful, frozenset(), 0).consistent
    assert check_partial(tagged, frozenset(), 0).consistent
    assert check_partial(without(tagged, CATALOG), CATALOG, 2).consistent


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_unusable_last_line_does_not_hide_the_violations_found_before_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, jobs: str
) -> None:
    forged = line(PARSE, {"ok": True, "id": "a:c"})
    log = tmp_path / "l.jsonl"
    log.write_text("".join([*GOOD, forged]) + '{"request": {"op": "hello"}, "reply": {"ok": tr')
    report = tmp_path / "r.json"
    status, out, err = trace(
        capsys, str(log), "--keep-going", "--jobs", jobs, "--json", str(report)
    )
    assert status == 2 and ":5: not JSON" in err  # still unusable input
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"VIOLATION {log}:4" in out
    assert "trace: INCOMPLETE (unusable line)" in out
    written = json.loads(report.read_text(encoding="utf-8"))
    assert (written["verdict"], written["complete"]) == ("unreadable", False)
    assert [v["line"] for v in written["violations"]] == [4]
    assert f"{log}:5: not JSON" in written["unreadable"]
    jsonschema.Draft202012Validator(schema("trace-report.schema.json")).validate(written)


def test_memory_stays_flat_when_a_log_of_many_short_sessions_grows_tenfold() -> None:
    def peak(sessions: int) -> int:
        def lines() -> Iterator[str]:
            for n in range(sessions):
                yield line({"op": "reset"}, {"ok": True}, stream=f"s{n}")
                yield line(PARSE, {"ok": True, "id": "a:b"}, stream=f"s{n}")

        tracemalloc.start()
        try:
            assert check(lines()).ok
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(300), peak(3000)
    assert large < 2 * small, (small, large)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_not_utf8_names_the_line_it_is_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, jobs: str
) -> None:
    path = tmp_path / "l.jsonl"
    path.write_bytes(("".join(GOOD) * 100).encode() + b'{"request":{"op":"\xff"},"reply":{}}\n')
    status, _, err = trace(capsys, str(path), "--jobs", jobs)
    assert status == 2 and "not UTF-8" in err
    assert f"{path}:301:" in err


@pytest.mark.parametrize("where", ["ignored key", "request"])
def test_deep_nesting_is_not_unusable_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str
) -> None:
    deep = "[" * 3000 + "]" * 3000
    if where == "request":
        text = '{"request": {"op": "digest", "schema": ' + deep + '}, "reply": {"ok": true}}\n'
    else:
        text = '{"request": {"op": "reset"}, "reply": {"ok": true}, "t": ' + deep + "}\n"
    log = tmp_path / "l.jsonl"
    log.write_text("".join(GOOD) + text, encoding="utf-8")
    status, out, err = trace(capsys, str(log))
    assert (status, err) == (0, ""), err
    assert "consistent" in out


DEEP = 3000


def _deep(inner: str = "") -> str:
    return "[" * DEEP + inner + "]" * DEEP


def _digest_line(schema: str, reply: str) -> str:
    return '{"request": {"op": "digest", "schema": ' + schema + '}, "reply": ' + reply + "}\n"


@pytest.mark.parametrize("mode", [[], ["--partial", "catalog_rebase_past"]])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_too_deep_request_is_open_unless_a_value_in_it_makes_its_line_malformed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, jobs: str, mode: list[str]
) -> None:
    """Deeper than SPEC.md 1.4's 127 levels the answer is open, except that a lone surrogate
    or a number beyond the double range anywhere in the line makes it malformed: Protocol.
    Both modes leave the open line unchecked (a ``digest`` neither reads nor changes state)."""
    protocol = '{"ok": false, "error": "Protocol"}'
    granted = '{"ok": true, "digest": "' + "0" * 64 + '"}'
    for inner, reply, status in (
        ("", granted, 0),  # open: not checked
        ('"\\ud800"', protocol, 0),
        ('"\\ud800"', granted, 1),
        ("1e400", granted, 1),
        ('"\\ud83d\\ude00", 1e300', granted, 0),  # a surrogate pair and a finite number: open
    ):
        log = tmp_path / "l.jsonl"
        log.write_text("".join(GOOD) + _digest_line(_deep(inner), reply), encoding="utf-8")
        got, out, err = trace(capsys, str(log), "--jobs", jobs, *mode)
        assert (got, err) == (status, ""), (inner, reply, out, err)
        assert ("1 after a request SPEC.md leaves open" in out) is (
            status == 0 and reply == granted
        )


@pytest.mark.parametrize("text", [_deep("1,"), _deep("1") + "]", "[" + _deep(), _deep("{1: 2}")])
def test_a_deep_line_that_is_not_json_is_unusable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str
) -> None:
    log = tmp_path / "l.jsonl"
    log.write_text("".join(GOOD) + _digest_line(text, '{"ok": true}'), encoding="utf-8")
    status, _, err = trace(capsys, str(log))
    assert status == 2 and f"{log}:4: not JSON" in err and err.count("\n") == 1, err


def test_a_deep_observed_reply_is_compared_and_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    hello = '{"request": {"op": "hello"}, "reply": {"ok": true, "protocol": 1, "x": '
    extra = hello + _deep() + "}}\n"  # an extra field: allowed, however deep
    wrong = hello.replace('"protocol": 1, "x"', '"protocol"') + _deep() + "}}\n"
    log = tmp_path / "l.jsonl"
    log.write_text(extra + wrong, encoding="utf-8")
    report = tmp_path / "r.json"
    status, out, _ = trace(capsys, str(log), "--keep-going", "--json", str(report))
    assert status == 1 and f"VIOLATION {log}:2" in out and f"{log}:1" not in out
    written = json.loads(report.read_text(encoding="utf-8"))
    observed = written["violations"][0]["observed"]["protocol"]
    for _ in range(KEPT_LEVELS - 2):  # the line, the reply, then the kept levels of the list
        observed = observed[0]
    assert observed == CUT


def test_lines_that_nest_up_to_the_kept_levels_are_read_unchanged() -> None:
    for text in recorded_corpus():
        assert shallow(text) == text

    def nest(n: int, inner: str) -> str:
        return "[" * n + inner + "]" * n

    def request(schema: str) -> str:
        return '{"request": {"op": "digest", "schema": ' + schema + '}, "reply": {}}'

    def reply(value: str) -> str:
        return '{"request": {"op": "hello"}, "reply": {"x": ' + value + "}}"

    # the line is level 1, request and reply level 2: a schema of 126 lists ends at level 128
    assert shallow(request(nest(126, "0"))) == request(nest(126, "0"))
    assert shallow(request(nest(127, "0"))) == request(nest(126, "[]"))
    assert shallow(request(nest(130, '"\\ud800", 1'))) == request(nest(126, '"\\ud800"'))
    assert shallow(request(nest(130, "1, 1e999"))) == request(nest(126, "1e999"))
    assert shallow(reply(nest(127, "0"))) == reply(nest(126, json.dumps(CUT)))


def test_the_json_report_is_json_when_a_reply_holds_a_huge_number(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "l.jsonl"
    log.write_text("".join(GOOD[:2]) + line(PARSE, {"ok": True, "id": 0}).replace("0}", "1e400}"))
    report = tmp_path / "r.json"
    status, _, _ = trace(capsys, str(log), "--json", str(report))
    assert status == 1

    def refuse(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    written = json.loads(report.read_text(encoding="utf-8"), parse_constant=refuse)
    assert written["violations"][0]["observed"]["id"] == "Infinity"


def test_an_open_answer_of_a_stateless_op_does_not_blind_the_rest_of_the_partition() -> None:
    deep: object = 0
    for _ in range(130):
        deep = [deep]
    open_line = line({"op": "digest", "schema": deep}, {"ok": True, "digest": "0" * 64})
    forged = line(PARSE, {"ok": True, "id": "a:c"})
    state = line({"op": "catalog_state"}, {"ok": True, "generation": 7, "records": []})
    result = check([*GOOD, open_line, forged, state], keep_going=True)
    assert [v.line for v in result.violations] == [5, 6]
