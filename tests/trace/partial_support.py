"""Faithful logs recorded with the reference adapter, for the partial-mode tests."""

from __future__ import annotations

import json
from typing import Any

from session_toolset.adapter import World, handle_line
from session_toolset_harness.trace.logline import RecordedLine

Request = dict[str, Any]


def record(requests: list[Request]) -> list[RecordedLine]:
    """Every request answered by the reference implementation, numbered from 1."""
    world = World()
    return [
        RecordedLine(n, req, handle_line(world, json.dumps(req).encode()))
        for n, req in enumerate(requests, 1)
    ]


def without(lines: list[RecordedLine], ops: frozenset[str]) -> list[RecordedLine]:
    """The log with the lines of ``ops`` removed (line numbers kept)."""
    return [line for line in lines if line.request.get("op") not in ops]


def insert(name: str, schema: Any, op: str = "catalog_insert") -> Request:
    req: Request = {
        "op": op,
        "source": {"kind": "mcp", "server_id": "srv", "server_tool_name": name},
        "provenance": {"kind": "mcp_config", "server_id": "srv"},
        "schema": schema,
    }
    if op == "catalog_upsert":
        req["replaced"] = f"mcp.srv:{name}"
    return req


def session(tag: str, tools: list[str]) -> list[Request]:
    """One world: tools cataloged, a default-core set, one exact activation, gate calls, a
    schema drift of an activated tool (a catalog change) denied, then a rebuild."""
    first = tools[0]
    out: list[Request] = [{"op": "reset"}]
    out += [insert(t, {"v": 1}) for t in tools]
    out += [
        {"op": "set_new", "name": f"{tag}-set", "session": f"s-{tag}", "core": []},
        {
            "op": "issue_grant",
            "name": f"{tag}-g",
            "session": f"s-{tag}",
            "tool": f"mcp.srv:{first}",
        },
        {"op": "activate", "set": f"{tag}-set", "grant": f"{tag}-g"},
        {"op": "authorize", "set": f"{tag}-set", "tool": f"mcp.srv:{first}"},
        {"op": "authorize", "set": f"{tag}-set", "tool": f"mcp.srv:{tools[-1]}"},
        insert(first, {"v": 2}, "catalog_upsert"),
        {"op": "authorize", "set": f"{tag}-set", "tool": f"mcp.srv:{first}"},
        {"op": "is_stale", "set": f"{tag}-set"},
        {"op": "rebuild", "set": f"{tag}-set", "into": f"{tag}-set", "progressive": False},
        {"op": "authorize", "set": f"{tag}-set", "tool": f"mcp.srv:{first}"},
    ]
    return out
