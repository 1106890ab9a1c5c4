"""PROTOCOL.md transport and reply shape, checked where the vector corpus cannot look.

Vectors compare replies by subset and never mention ``message`` (its wording is open), so they
cannot see a reply that lost its ``message`` field or carries a non-string one, nor anything
about the stdin/stdout loop itself.  These tests were written to kill the mutants of
``src/session_toolset`` that the corpus and the stateful suite let survive (docs/mutation.md).
"""

from __future__ import annotations

import io
import json
import sys
from typing import Any

import pytest

from session_toolset.adapter import World, handle_line, main, serve
from session_toolset.adapter import server as server_module

Obj = dict[str, Any]


def _serve(lines: list[bytes]) -> tuple[int, list[str], str]:
    stdin = io.BytesIO(b"".join(lines))
    stdout, stderr = io.StringIO(), io.StringIO()
    status = serve(stdin, stdout, stderr)
    return status, stdout.getvalue().split("\n"), stderr.getvalue()


def _send(world: World, request: Obj | bytes) -> Obj:
    line = request if isinstance(request, bytes) else json.dumps(request).encode()
    return handle_line(world, line)


def test_one_compact_json_object_reply_per_line_and_exit_status_zero() -> None:
    lines = [
        b'{"op":"hello"}\n',
        b"\n",  # blank line: still exactly one reply
        b"\xff\xfe not utf-8\n",
        b"[1, 2]\n",
        b'{"op":"reset"}\r\n',  # CRLF framing
        b'{"op":"catalog_rebase_past","prior":41}\n',
        b'{"op":"hello"}X\n',  # trailing garbage: not a JSON object, whatever precedes it
        b'{"op":"hello"}\rX\r\n',
        b'{"op":"catalog_state"}',  # the last line may lack its newline
    ]
    status, out, _ = _serve(lines)
    assert status == 0  # EOF on stdin: the adapter exits 0
    assert out[-1] == ""  # every reply is terminated by exactly one newline
    replies = [json.loads(text) for text in out[:-1]]
    assert len(replies) == len(lines)
    assert all(isinstance(reply, dict) for reply in replies)
    assert replies[0]["ok"] is True and replies[0]["protocol"] == 1
    assert [r["ok"] for r in replies[1:4]] == [False, False, False]
    assert all(r["error"] == "Protocol" for r in replies[1:4])
    assert replies[4] == {"ok": True}
    # one world for the whole process: the rebase is visible to the next request
    assert replies[5]["generation"] == 42
    assert [r["ok"] for r in replies[6:8]] == [False, False]
    assert all(r["error"] == "Protocol" for r in replies[6:8])
    assert replies[8]["generation"] == 42 and replies[8]["records"] == []


def test_a_crashing_request_gets_a_reply_and_the_loop_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = server_module.handle_line

    def flaky(world: World, line: bytes) -> Obj:
        if b"boom" in line:
            raise RuntimeError("adapter bug")
        return real(world, line)

    monkeypatch.setattr(server_module, "handle_line", flaky)
    status, out, err = _serve([b'{"op":"boom"}\n', b'{"op":"hello"}\n'])
    assert status == 0
    crashed, hello = (json.loads(text) for text in out[:2])
    assert crashed["ok"] is False
    assert isinstance(crashed["error"], str) and crashed["error"]
    assert isinstance(crashed["message"], str)
    assert "RuntimeError" in err  # the adapter's own failure goes to its stderr (the log)
    assert hello["ok"] is True


def test_main_serves_the_process_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b'{"op":"hello"}\n{"op":"nope"}\n'), encoding="utf-8")
    stdout, stderr = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    assert main() == 0
    replies = [json.loads(text) for text in stdout.getvalue().splitlines()]
    assert [r["ok"] for r in replies] == [True, False]


def test_hello_names_the_implementation() -> None:
    reply = _send(World(), {"op": "hello"})
    assert reply["protocol"] == 1
    assert isinstance(reply["implementation"], str) and reply["implementation"]


SET_UP: list[Obj] = [
    {
        "op": "catalog_insert",
        "source": {"kind": "builtin", "name": "read"},
        "provenance": {"kind": "builtin_runtime"},
        "schema": {},
    },
    {"op": "set_new", "name": "a", "session": "s1", "core": []},
]

# Every one of these is refused; PROTOCOL.md: {"ok": false, "error": CODE, "message": TEXT, ...}.
REFUSED: list[tuple[Obj | bytes, str]] = [
    (b"{not json", "Protocol"),
    (b"\xc3\x28", "Protocol"),
    (b"[]", "Protocol"),
    (b"{}", "Protocol"),
    ({"op": 7}, "Protocol"),
    ({"op": "no_such_op"}, "Protocol"),
    ({"op": "tool_id_parse"}, "Protocol"),
    ({"op": "tool_id_parse", "raw": 5}, "Protocol"),
    ({"op": "tool_id", "source": "builtin"}, "Protocol"),
    ({"op": "tool_id", "source": {"kind": "teleport"}}, "Protocol"),
    ({"op": "tool_id", "source": {"kind": "x" * 5000}}, "Protocol"),
    ({"op": "catalog_rebase_past", "prior": "1"}, "Protocol"),
    ({"op": "catalog_rebase_past", "prior": -1}, "Protocol"),
    ({"op": "catalog_rebase_past", "prior": 2**64}, "Protocol"),
    ({"op": "rebuild", "set": "a", "into": "b", "progressive": "yes"}, "Protocol"),
    ({"op": "set_new", "name": "b", "session": "s1", "core": "builtin:read"}, "Protocol"),
    ({"op": "set_new", "name": "b", "session": "s1", "core": [1]}, "Protocol"),
    ({**SET_UP[0], "summary": 5}, "Protocol"),
    ({**SET_UP[0], "op": "catalog_upsert", "replaced": 5}, "Protocol"),
    ({**SET_UP[0], "provenance": {"kind": "notarised"}}, "Protocol"),
    ({"op": "is_stale", "set": "nope"}, "Protocol"),
    ({"op": "activate", "set": "a", "grant": "nope"}, "Protocol"),
    ({"op": "activate_model", "set": "a", "authority": "root", "tools": []}, "Protocol"),
    ({"op": "tool_id_parse", "raw": ""}, "ToolIdError.Empty"),
    ({"op": "tool_id_parse", "raw": "nocolon"}, "ToolIdError.MissingNamespace"),
    ({"op": "session_id_parse", "raw": ""}, "SessionIdError.Empty"),
    ({"op": "session_id_parse", "raw": "a\nb"}, "SessionIdError.ControlCharacters"),
    (
        {"op": "forge_grant", "name": "g", "session": "", "tool": "builtin:read"}
        | {"generation": 1, "digest": "00"},
        "ActivationGrantError.EmptySessionId",
    ),
    (
        {"op": "forge_grant", "name": "g", "session": "\u0085", "tool": "builtin:read"}
        | {"generation": 1, "digest": "00"},
        "ActivationGrantError.ControlCharacterSessionId",
    ),
    ({"op": "revoke", "set": "a", "tool": "builtin:read"}, "ExactRevocationError.NotActivated"),
    (
        {"op": "authorize", "set": "a", "tool": "builtin:read"},
        "ToolAuthorizationError.NotActivated",
    ),
    ({"op": "authorize_wire", "set": "a", "wire_name": "zz"}, "ToolAuthorizationError.UnknownTool"),
    (
        {"op": "activate_model", "set": "a", "authority": "unauthorized", "tools": []},
        "HostActivationError.ConfirmationRequired",
    ),
]


@pytest.mark.parametrize(("request_", "code"), REFUSED, ids=[c for _, c in REFUSED])
def test_every_rejection_carries_its_code_and_a_text_message(
    request_: Obj | bytes, code: str
) -> None:
    world = World()
    for setup in SET_UP:
        assert _send(world, setup)["ok"] is True
    reply = _send(world, request_)
    assert reply["ok"] is False
    assert reply["error"] == code
    assert isinstance(reply["message"], str) and reply["message"]
    assert len(reply["message"].encode("utf-8")) < 512
    assert json.loads(json.dumps(reply)) == reply  # a plain JSON value


def test_not_activated_denial_names_the_tool() -> None:
    world = World()
    for setup in SET_UP:
        _send(world, setup)
    reply = _send(world, {"op": "authorize", "set": "a", "tool": "builtin:read"})
    assert reply["error"] == "ToolAuthorizationError.NotActivated"
    assert reply["tool"] == "builtin:read"  # PROTOCOL.md: variants that carry an id give `tool`


def test_a_long_unknown_wire_name_is_echoed_bounded() -> None:
    world = World()
    for setup in SET_UP:
        _send(world, setup)
    wire = "w" + "\u00e9" * 200
    reply = _send(world, {"op": "authorize_wire", "set": "a", "wire_name": wire})
    assert reply["error"] == "ToolAuthorizationError.UnknownTool"
    assert reply["wire_name"] == wire[:64]  # longest prefix within 128 bytes
    assert len(reply["message"].encode("utf-8")) < 512


@pytest.mark.parametrize("failure", [ValueError, TypeError, OverflowError])
def test_a_value_refused_outside_the_typed_errors_is_a_protocol_reply(
    monkeypatch: pytest.MonkeyPatch, failure: type[Exception]
) -> None:
    from session_toolset.adapter.ops import HANDLERS

    def refuses(world: World, request: object) -> Obj:
        raise failure("not representable")

    monkeypatch.setitem(HANDLERS, "hello", refuses)
    reply = _send(World(), {"op": "hello"})
    assert reply["ok"] is False and reply["error"] == "Protocol"
    assert isinstance(reply["message"], str) and reply["message"]
