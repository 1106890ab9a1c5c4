"""The model's value encodings against PROTOCOL.md's wire grammar (expectations from its text)."""

from __future__ import annotations

import pytest
from session_toolset_model.values import Provenance, Source, source_trust

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


@pytest.mark.parametrize(
    ("source", "prov", "trust"),
    [
        # SPEC.md §2 "Source trust", first matching row wins
        (Source("builtin", "", "x"), Provenance("unverified"), "untrusted"),
        (Source("unknown", "", "x"), Provenance("builtin_runtime"), "untrusted"),
        (Source("unknown", "", "x"), Provenance("mcp_config", "srv-a"), "untrusted"),
        (Source("builtin", "", "x"), Provenance("builtin_runtime"), "trusted"),
        (Source("mcp", "srv-a", "t"), Provenance("mcp_config", "srv-a"), "trusted"),
        (Source("mcp", "srv-a", "t"), Provenance("mcp_config", "srv-z"), "mismatch"),
        (Source("plugin", "p", "t"), Provenance("builtin_runtime"), "mismatch"),
    ],
)
def test_source_trust_rows(source: Source, prov: Provenance, trust: str) -> None:
    assert source_trust(source, prov) == trust
