"""The model's value encodings against PROTOCOL.md's wire grammar (expectations from its text)."""

from __future__ import annotations

import pytest
from session_toolset_model.values import Source

pytestmark = pytest.mark.spec("2")


@pytest.mark.parametrize(
    ("source", "wire"),
    [
        # PROTOCOL.md "Values", SOURCE: one shape per kind
        (Source("builtin", "", "bash"), {"kind": "builtin", "name": "bash"}),
        (
            Source("extension", "ext-1", "t"),
            {"kind": "extension", "extension_id": "ext-1", "tool_name": "t"},
        ),
        (
            Source("mcp", "srv-a", "t0"),
            {"kind": "mcp", "server_id": "srv-a", "server_tool_name": "t0"},
        ),
        (Source("plugin", "p", "t"), {"kind": "plugin", "plugin_id": "p", "tool_name": "t"}),
        (Source("unknown", "", "x"), {"kind": "unknown", "runtime_name": "x"}),
    ],
)
def test_source_to_json_is_protocol_source(source: Source, wire: dict[str, str]) -> None:
    assert source.to_json() == wire
