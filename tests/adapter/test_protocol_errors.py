"""Bad input answers exactly one Protocol reply and leaves the world unchanged (PROTOCOL.md)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from adapter.adapter_support import Json, capture, reply_to, send
from session_toolset.adapter import World

BUILTIN = {"kind": "builtin_runtime"}
MCP_SRV = {"kind": "mcp_config", "server_id": "srv"}


def populated_world() -> World:
    """A world with records, sets, grants, an activation and a counted authorization."""
    world = World()
    steps: list[Json] = [
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
    for step in steps:
        reply = send(world, step)
        assert reply["ok"] is True, reply
    return world


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


MALFORMED: list[tuple[str, bytes]] = [
    ("not-utf8", b"\xff\xfe\x80"),
    ("utf8-cut", '{"op":"hello","x":"é'.encode()[:-1] + b'"}'),
    ("not-json", b"{not json"),
    ("trailing-garbage", b'{"op":"hello"} x'),
    ("array", b'["op","hello"]'),
    ("number", b"42"),
    ("string", b'"hello"'),
    ("null", b"null"),
    ("blank", b""),
    ("spaces", b"   "),
    ("no-op", b"{}"),
    ("op-not-string", b'{"op": 5}'),
    ("unknown-op", b'{"op": "launch_missiles"}'),
    ("missing-field", _j({"op": "activate", "set": "A"})),
    ("missing-set", _j({"op": "snapshot"})),
    ("true-for-integer", _j({"op": "catalog_set_generation", "value": True})),
    ("float-for-integer", b'{"op": "catalog_set_generation", "value": 1.0}'),
    ("string-for-integer", _j({"op": "catalog_rebase_past", "prior": "3"})),
    ("negative-integer", _j({"op": "catalog_set_generation", "value": -1})),
    ("integer-over-u64", _j({"op": "catalog_set_generation", "value": 2**64})),
    ("int-for-bool", _j({"op": "rebuild", "set": "A", "into": "NEW", "progressive": 1})),
    ("string-for-bool", _j({"op": "rebuild", "set": "A", "into": "A", "progressive": "yes"})),
    ("grants-not-list", _j({"op": "activate_many", "set": "A", "grants": "g2"})),
    ("grants-wrong-element", _j({"op": "activate_many", "set": "A", "grants": ["g2", 3]})),
    ("unknown-set", _j({"op": "snapshot", "set": "nope"})),
    ("unknown-grant", _j({"op": "activate", "set": "A", "grant": "nope"})),
    ("unknown-grant-in-batch", _j({"op": "activate_many", "set": "A", "grants": ["g2", "x"]})),
    ("unknown-set-revoke", _j({"op": "revoke", "set": "nope", "tool": "mcp.srv:lookup"})),
    (
        "bad-authority",
        _j({"op": "activate_model", "set": "A", "authority": "confirmed", "tools": []}),
    ),
    ("tool-not-string", _j({"op": "authorize", "set": "A", "tool": 7})),
    ("core-not-list", _j({"op": "set_new", "name": "N", "session": "s", "core": "builtin:bash"})),
    (
        "unknown-source-kind",
        _j({"op": "catalog_insert", "source": {"kind": "?"}, "provenance": BUILTIN, "schema": {}}),
    ),
    (
        "source-missing-field",
        _j(
            {
                "op": "catalog_insert",
                "source": {"kind": "mcp", "server_id": "srv"},
                "provenance": MCP_SRV,
                "schema": {},
            }
        ),
    ),
    (
        "unknown-provenance-kind",
        _j(
            {
                "op": "catalog_insert",
                "source": {"kind": "builtin", "name": "zz"},
                "provenance": {"kind": "trusted"},
                "schema": {},
            }
        ),
    ),
    (
        "tags-not-list",
        _j(
            {
                "op": "catalog_insert",
                "source": {"kind": "builtin", "name": "zz"},
                "provenance": BUILTIN,
                "schema": {},
                "tags": "x",
            }
        ),
    ),
    ("schema-missing", _j({"op": "catalog_insert", "source": {"kind": "builtin", "name": "zz"}})),
    ("route-missing-fallback", _j({"op": "route", "set": None, "into": "R"})),
    ("route-unknown-set", _j({"op": "route", "set": "nope", "into": "R", "fallback_session": "s"})),
    ("env-not-string", _j({"op": "carry_forward_enabled", "env": 0})),
    ("wire-name-not-string", _j({"op": "resolve", "wire_name": None})),
    (
        "forge-generation-float",
        b'{"op":"forge_grant","name":"f","session":"s1","tool":"mcp.srv:lookup",'
        b'"generation":2.0,"digest":"00"}',
    ),
    ("remove-id-not-string", _j({"op": "catalog_remove", "id": ["mcp.srv:lookup"]})),
]


@pytest.mark.parametrize("line", [m[1] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_line_is_protocol_and_changes_nothing(line: bytes) -> None:
    _assert_protocol_unchanged(line)


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


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        (
            {"op": "activate_model", "set": "A", "authority": "unauthorized", "tools": ["Bad:x"]},
            "ToolIdError.InvalidNamespace",
        ),
        (
            {"op": "activate_model", "set": "A", "authority": "unauthorized", "tools": [""]},
            "ToolIdError.Empty",
        ),
        (
            {"op": "activate_model", "set": "nope", "authority": "unauthorized", "tools": []},
            "Protocol",
        ),
        ({"op": "issue_grant", "name": "g9", "session": "", "tool": "x:y"}, "SessionIdError.Empty"),
        (
            {"op": "issue_grant", "name": "g9", "session": "s1", "tool": "mcp.srv:x:y"},
            "ToolIdError.InvalidName",
        ),
        (
            {
                "op": "forge_grant",
                "name": "g9",
                "session": "",
                "tool": "a:b",
                "generation": 0,
                "digest": "",
            },
            "ActivationGrantError.EmptySessionId",
        ),
        (
            {
                "op": "forge_grant",
                "name": "g9",
                "session": "s\n",
                "tool": "a:b",
                "generation": 0,
                "digest": "",
            },
            "ActivationGrantError.ControlCharacterSessionId",
        ),
        (
            {"op": "route", "set": "A", "into": "R", "fallback_session": "\x00"},
            "SessionIdError.ControlCharacters",
        ),
        (
            {"op": "set_new", "name": "N", "session": "s", "core": ["builtin:bash", "nocolon"]},
            "ToolIdError.MissingNamespace",
        ),
        ({"op": "revoke", "set": "A", "tool": "A:b"}, "ToolIdError.InvalidNamespace"),
        (
            {"op": "catalog_upsert", "replaced": "", "source": {"kind": "builtin", "name": "x"}},
            "ToolIdError.Empty",
        ),
        (
            {
                "op": "catalog_insert",
                "id": "a" * 201,
                "source": {"kind": "builtin", "name": "x"},
                "provenance": BUILTIN,
                "schema": {},
            },
            "ToolIdError.Oversized",
        ),
        ({"op": "session_id_parse", "raw": "x" * 300}, "SessionIdError.Oversized"),
    ],
)
def test_field_errors_come_before_operation_errors_and_change_nothing(
    request_: Json, code: str
) -> None:
    world = populated_world()
    before = capture(world)
    reply = send(world, request_)
    assert reply["ok"] is False
    assert reply["error"] == code
    assert isinstance(reply["message"], str)
    assert capture(world) == before


def test_typed_rejections_change_nothing_in_the_world() -> None:
    world = populated_world()
    rejected: list[tuple[Json, str]] = [
        ({"op": "activate", "set": "A", "grant": "g1"}, "ActivationError.AlreadyActivated"),
        (
            {"op": "activate_many", "set": "A", "grants": ["g2", "g1"]},
            "BulkActivationError.Grant.AlreadyActivated",
        ),
        (
            {"op": "activate_model", "set": "A", "authority": "unauthorized", "tools": []},
            "HostActivationError.ConfirmationRequired",
        ),
        ({"op": "revoke", "set": "A", "tool": "builtin:bash"}, "ExactRevocationError.CoreTool"),
        (
            {"op": "authorize", "set": "A", "tool": "mcp.srv:fetch"},
            "ToolAuthorizationError.NotActivated",
        ),
        (
            {"op": "authorize_wire", "set": "A", "wire_name": "é" * 40000},
            "ToolAuthorizationError.UnknownTool",
        ),
        (
            {"op": "set_new", "name": "A", "session": "s9", "core": ["builtin:nope"]},
            "SessionToolSetError.UnknownCoreTool",
        ),
        (
            {
                "op": "catalog_insert",
                "source": {"kind": "builtin", "name": "bash"},
                "provenance": BUILTIN,
                "schema": {"other": True},
            },
            "CatalogError.DuplicateToolId",
        ),
    ]
    for request, code in rejected:
        before = capture(world)
        reply = send(world, request)
        assert reply["ok"] is False
        assert reply["error"] == code, reply
        assert capture(world) == before, code
        if code.startswith("ToolAuthorizationError"):
            assert len(reply["message"].encode("utf-8")) < 512
    wire = send(world, {"op": "resolve", "wire_name": "é" * 40000})
    assert wire["wire_name"] == "é" * 64


def test_generation_exhaustion_through_the_protocol_changes_nothing() -> None:
    world = populated_world()
    top = 2**64 - 1
    assert send(world, {"op": "catalog_set_generation", "value": top})["generation"] == top
    before = capture(world)
    insert = {
        "op": "catalog_insert",
        "source": {"kind": "builtin", "name": "zz"},
        "provenance": BUILTIN,
        "schema": {},
    }
    assert send(world, insert)["error"] == "CatalogError.GenerationExhausted"
    reply = send(world, {"op": "catalog_rebase_past", "prior": 0})
    assert reply["error"] == "CatalogGenerationOverflow"
    assert capture(world) == before
    state = send(world, {"op": "catalog_state"})
    assert state["generation"] == top
    assert type(state["generation"]) is int


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
