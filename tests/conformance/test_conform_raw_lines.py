"""``send_line`` / ``send_hex`` steps (PROTOCOL.md, Vectors): what reaches the adapter, how the
loader, ``--validate`` and the reports treat them, and the in-process replays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corpus.replay import run_vector

from session_toolset_harness.conform import cli
from session_toolset_harness.conform.jsonio import RawLine, encode_line, render
from session_toolset_harness.conform.validate import validate_all
from session_toolset_harness.conform.vectors import StepShapeError, discover, read_send

from .conftest import HELLO, RESET, WriteVector, document, mini, parse_ok

PROTOCOL = {"ok": False, "error": "Protocol"}


def conform(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out, captured.err


def raw_step(key: str, value: object, expect: dict[str, object]) -> dict[str, object]:
    return {key: value, "expect": expect}


def test_raw_lines_reach_the_adapter_byte_for_byte(
    capsys: pytest.CaptureFixture[str], write_vector: WriteVector, tmp_path: Path
) -> None:
    record = tmp_path / "received.txt"
    line = '  {"op":"tool_id_parse","raw":"x:y","raw":"a:\\u0062"}\t'
    path = write_vector(
        "t/raw",
        raw_step("send_line", line, {"ok": True, "id": "a:b"}),
        raw_step("send_hex", "ff fe".replace(" ", ""), PROTOCOL),
        raw_step("send_line", "", PROTOCOL),
        raw_step("send_hex", "", PROTOCOL),
        raw_step("send_line", "caf\u00e9", PROTOCOL),
    )
    status, out, _ = conform(
        capsys, "--adapter", mini("--record", str(record)), "--vectors", str(path)
    )
    assert status == 0, out
    received = [bytes.fromhex(h) for h in record.read_text(encoding="ascii").split()]
    assert received[:2] == [b'{"op":"hello"}\n'] * 2  # the start-up check, the vector's own
    sent = received[3:-1]  # after both hellos and reset, before the sync probe
    assert sent == [
        line.encode("utf-8") + b"\n",
        b"\xff\xfe\n",
        b"\n",
        b"\n",
        "caf\u00e9".encode() + b"\n",
    ]
    assert received[-1] == b'{"op":"hello"}\n'


def test_a_failing_raw_step_is_reported_the_way_the_vector_writes_it(
    capsys: pytest.CaptureFixture[str], write_vector: WriteVector, tmp_path: Path
) -> None:
    path = write_vector("t/raw-fail", raw_step("send_hex", "7b7d", {"ok": True}))
    report = tmp_path / "r.json"
    status, out, _ = conform(
        capsys, "--adapter", mini(), "--vectors", str(path), "--json", str(report)
    )
    assert status == 1
    assert 'request:  {"send_hex":"7b7d"}' in out
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["vectors"][0]["failure"]["request"] == {"send_hex": "7b7d"}


@pytest.mark.parametrize(
    ("step", "needle"),
    [
        ({"send": {"op": "hello"}, "send_line": "{}", "expect": {"ok": True}}, "send, send_line"),
        ({"send_line": "{}", "send_hex": "7b7d", "expect": {"ok": True}}, "send_line, send_hex"),
        ({"expect": {"ok": True}}, "found none"),
        ({"send_line": "{}\n", "expect": {"ok": True}}, "newline"),
        ({"send_line": 7, "expect": {"ok": True}}, "must be a string"),
        ({"send_line": "\ud800", "expect": {"ok": True}}, "send_hex"),
        ({"send_hex": "7b7", "expect": {"ok": True}}, "pairs of hex digits"),
        ({"send_hex": "7b 7d", "expect": {"ok": True}}, "pairs of hex digits"),
        ({"send_hex": "7b0a7d", "expect": {"ok": True}}, "newline byte (0a) at byte 1"),
    ],
)
def test_bad_send_keys_are_a_clear_exit_2(
    capsys: pytest.CaptureFixture[str],
    write_vector: WriteVector,
    step: dict[str, object],
    needle: str,
) -> None:
    good = write_vector("t/good", parse_ok("a:b"))
    bad = write_vector("t/bad", step)
    status, out, err = conform(capsys, "--adapter", mini(), "--vectors", str(good), str(bad))
    assert status == 2
    assert "PASS t/good" in out  # the other vectors still ran
    assert "ERROR " in out and "steps[2]" in out and needle in out
    (line,) = err.strip().splitlines()
    assert "unusable vector file" in line and needle in line
    with pytest.raises(StepShapeError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        read_send(step)
    verdict = validate_all(discover([bad]))[0]
    assert any(needle in problem for problem in verdict.problems), verdict.problems


def test_validate_accepts_raw_steps_without_checking_them_as_requests(
    write_vector: WriteVector,
) -> None:
    steps = [
        # an unlisted key: request.schema.json refuses it in a send, a raw line may carry it
        raw_step("send_line", '{"op":"hello","extra":1}', {"ok": True, "protocol": 1}),
        raw_step("send_hex", "c0", PROTOCOL),
        raw_step("send_line", '{"op":"tool_id_parse","raw":"a:b"}', {"ok": True, "id": "a:b"}),
    ]
    verdict = validate_all(discover([write_vector("t/raw", *steps)]))[0]
    assert verdict.problems == ()
    assert [(h.op, h.outcome) for h in verdict.hits][2:] == [
        ("hello", "ok"),
        ("<not JSON>", "Protocol"),
        ("tool_id_parse", "ok"),
    ]


def test_hello_and_reset_must_be_sent_as_objects(write_vector: WriteVector) -> None:
    raw = {
        **document("t/x"),
        "steps": [raw_step("send_line", '{"op":"hello"}', {"ok": True}), RESET],
    }
    verdict = validate_all(discover([write_vector("t/x", raw=raw)]))[0]
    assert any("'send' is a required property" in p for p in verdict.problems), verdict.problems


def test_encode_line_and_render_of_raw_lines() -> None:
    assert encode_line(RawLine(b"\xff")) == b"\xff\n"
    assert render(RawLine(b'{"a":1}')) == '{"send_line":"{\\"a\\":1}"}'
    assert render(RawLine(b"\xff", hex=True)) == '{"send_hex":"ff"}'
    assert RawLine(b'{"op":"x","op":"y"}').request() == {"op": "y"}
    assert RawLine(b"\xff").request() is None


def test_replay_sends_raw_lines_exactly() -> None:
    seen: list[bytes] = []

    def handle(line: bytes) -> dict[str, object]:
        seen.append(line)
        if line == b'{"op":"hello"}':
            return {"ok": True, "protocol": 1}
        return {"ok": True} if line == b'{"op":"reset"}' else {"ok": False, "error": "Protocol"}

    doc = {
        "id": "t/replay",
        "steps": [
            HELLO,
            RESET,
            raw_step("send_hex", "80ff", PROTOCOL),
            raw_step("send_line", " {} ", PROTOCOL),
        ],
    }
    assert run_vector(doc, handle) is None
    assert seen[2:] == [b"\x80\xff", b" {} "]
