"""What the corpus cannot say about bad input: how long the adapter's own Protocol messages are,
where it refuses nesting (deeper than SPEC.md's 127 levels, which no vector may require), and the
process itself (one reply line per input line through a real pipe, exit 0 on EOF).

Every bad-input case that a vector can state — malformed, blank and non-UTF-8 lines, wrong-typed
and unknown fields, field order, typed rejections leaving the world unchanged — lives in the corpus
(``protocol/bad-lines-change-nothing``, ``protocol/rejections-change-nothing``, ``lines/*``,
``fields/*``), so every implementation is held to it, not only this one.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from adapter.adapter_support import Json, capture, reply_to, world_after
from session_toolset.adapter import World

BUILTIN = {"kind": "builtin_runtime"}
MCP_SRV = {"kind": "mcp_config", "server_id": "srv"}


def populated_world() -> World:
    """A world with records, sets, grants, an activation and a counted authorization."""
    return world_after(
        [
            {"op": "reset"},
            {
                "op": "catalog_insert",
                "source": {"kind": "builtin", "name": "bash"},
                "provenance": BUILTIN,
                "schema": {"type": "object"},
                "runtime_name": "bash",
            },
            {
                "op": "catalog_insert",
                "source": {"kind": "mcp", "server_id": "srv", "server_tool_name": "lookup"},
                "provenance": MCP_SRV,
                "schema": {"type": "object", "n": 1},
            },
            {
                "op": "catalog_insert",
                "source": {"kind": "mcp", "server_id": "srv", "server_tool_name": "fetch"},
                "provenance": MCP_SRV,
                "schema": {},
            },
            {"op": "set_new", "name": "A", "session": "s1", "core": ["builtin:bash"]},
            {"op": "set_progressive_core", "name": "P", "session": "s2"},
            {"op": "issue_grant", "name": "g1", "session": "s1", "tool": "mcp.srv:lookup"},
            {"op": "issue_grant", "name": "g2", "session": "s1", "tool": "mcp.srv:fetch"},
            {"op": "activate", "set": "A", "grant": "g1"},
            {"op": "authorize", "set": "A", "tool": "mcp.srv:lookup"},
        ]
    )


def _assert_protocol_unchanged(line: bytes) -> Json:
    world = populated_world()
    before = capture(world)
    reply = reply_to(world, line)
    assert reply["ok"] is False
    assert reply["error"] == "Protocol"
    assert isinstance(reply["message"], str)
    assert capture(world) == before
    return reply


def _j(obj: Json) -> bytes:
    return json.dumps(obj).encode("utf-8")


def test_protocol_messages_do_not_echo_unbounded_input() -> None:
    huge = "x" * 100_000
    for line in (
        _j({"op": huge}),
        _j({"op": "snapshot", "set": huge}),
        _j({"op": "activate", "set": "A", "grant": huge}),
        _j({huge: 1}),
        huge.encode(),
    ):
        reply = _assert_protocol_unchanged(line)
        assert len(reply["message"].encode("utf-8")) < 512


def test_subprocess_answers_every_line_and_exits_zero_on_eof() -> None:
    lines = [
        b'{"op":"hello"}',
        b"",
        b"\xff\xfe",
        b"[1]",
        b'{"op":"nope"}',
        b'{"op":"reset"}',
        b'{"op":"catalog_set_generation","value":true}',
        b'{"op":"catalog_state"}',
    ]
    result = subprocess.run(
        [sys.executable, "-m", "session_toolset.adapter"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0
    replies = [json.loads(x) for x in result.stdout.decode("utf-8").splitlines()]
    assert len(replies) == len(lines)
    assert replies[0]["ok"] is True
    assert replies[0]["protocol"] == 1
    for reply in [*replies[1:5], replies[6]]:
        assert reply["ok"] is False
        assert reply["error"] == "Protocol"
        assert isinstance(reply["message"], str)
    assert replies[5] == {"ok": True}
    assert replies[7]["generation"] == 0
    assert replies[7]["records"] == []


def test_subprocess_with_empty_input_exits_zero() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "session_toolset.adapter"],
        input=b"",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout == b""


@pytest.mark.parametrize(("levels", "accepted"), [(126, True), (127, False), (100_000, False)])
def test_the_reference_refuses_requests_deeper_than_127_levels(levels: int, accepted: bool) -> None:
    # The request object is level 1 (SPEC.md 1.4), so a schema of 126 levels must be accepted;
    # refusing deeper is allowed, not required, so no vector can pin it: it is this adapter's
    # choice, and it must be a clean Protocol reply (never a RecursionError) that changes nothing.
    line = b'{"op":"digest","schema":' + b"[" * levels + b"]" * levels + b"}"
    world = populated_world()
    before = capture(world)
    reply = reply_to(world, line)
    if accepted:
        assert reply["ok"] is True
        assert len(reply["digest"]) == 64
    else:
        assert reply == {"ok": False, "error": "Protocol", "message": reply["message"]}
        assert "nesting" in reply["message"]
    assert capture(world) == before
