"""Helpers for the adapter tests: the packaged walkthroughs, the subset matcher, world capture."""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

from session_toolset.adapter import World, handle_line

Json = Any


def walkthrough_names() -> list[str]:
    folder = files("session_toolset_harness") / "vectors" / "original"
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".json"))


def load_walkthrough(name: str) -> dict[str, Json]:
    folder = files("session_toolset_harness") / "vectors" / "original"
    data: dict[str, Json] = json.loads((folder / name).read_text(encoding="utf-8"))
    return data


def mismatch(expected: Json, actual: Json, path: str = "$") -> str | None:
    """PROTOCOL.md's subset rule; None when ``actual`` satisfies ``expected``, else where not.

    Objects: every expected key present with a matching value.  Lists: same length and order,
    elements by the same rule.  Scalars: equal and of the same JSON type (1 is not 1.0, true
    is not 1).
    """
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {type(actual).__name__}"
        for key, value in expected.items():
            if key not in actual:
                return f"{path}.{key}: missing"
            found = mismatch(value, actual[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{path}: expected an array, got {type(actual).__name__}"
        if len(expected) != len(actual):
            return f"{path}: expected {len(expected)} elements, got {len(actual)}"
        for index, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found = mismatch(e, a, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if type(expected) is not type(actual) or expected != actual:
        return f"{path}: expected {expected!r}, got {actual!r}"
    return None


def reply_to(world: World, line: bytes) -> Json:
    """One in-process reply, through a JSON round trip as it would travel on stdout."""
    reply = handle_line(world, line)
    text = json.dumps(reply, ensure_ascii=False, separators=(",", ":"))
    assert "\n" not in text
    return json.loads(text)


def send(world: World, request: Json) -> Json:
    return reply_to(world, json.dumps(request).encode("utf-8"))


def world_after(steps: list[Json]) -> World:
    """A fresh world after ``steps``, each of which must succeed."""
    world = World()
    for step in steps:
        reply = send(world, step)
        assert reply["ok"] is True, (step, reply)
    return world


def capture(world: World) -> Json:
    """Everything the world holds, read back through the protocol where it can be."""
    state = send(world, {"op": "catalog_state"})
    assert state["ok"] is True
    sets = {name: send(world, {"op": "snapshot", "set": name}) for name in sorted(world.sets)}
    grants = {
        name: (g.session_id.text, g.tool_id.text, g.catalog_generation.value, g.schema_digest.hex)
        for name, g in sorted(world.grants.items())
    }
    return {
        "catalog": state,
        "sets": sets,
        "grants": grants,
        "factory_calls": dict(sorted(world.factory_calls.items())),
    }
