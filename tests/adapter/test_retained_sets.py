"""The adapter holds each named set as SPEC.md §5's one retained ``SharedSessionToolSet``.

A runtime keeps one retained set per session and hands references to it around (the gate, the
next round); replacing the set under a name must therefore update that one object, not swap in
another behind the holders' backs.  Vectors cannot see object identity, so it is checked here.
"""

from __future__ import annotations

import pytest

from adapter.adapter_support import Json, send, world_after
from session_toolset import SharedSessionToolSet
from session_toolset.adapter import World

pytestmark = pytest.mark.spec("5")

BUILTIN = {"kind": "builtin_runtime"}


def _world_with_activation() -> World:
    return world_after(
        [
            {"op": "reset"},
            {
                "op": "catalog_insert",
                "source": {"kind": "builtin", "name": "a"},
                "provenance": BUILTIN,
                "schema": {"type": "object"},
            },
            {
                "op": "catalog_insert",
                "source": {"kind": "builtin", "name": "b"},
                "provenance": BUILTIN,
                "schema": {},
            },
            {"op": "set_new", "name": "A", "session": "s1", "core": []},
            {"op": "issue_grant", "name": "g", "session": "s1", "tool": "builtin:a"},
            {"op": "activate", "set": "A", "grant": "g"},
        ]
    )


def _activated(world: World, name: str) -> list[str]:
    snapshot = send(world, {"op": "snapshot", "set": name})
    assert snapshot["ok"] is True
    return [entry["tool"] for entry in snapshot["activated"]]


def _ids(retained: SharedSessionToolSet) -> list[str]:
    return [tool_id.text for tool_id, _ in retained.snapshot().activated()]


def test_named_sets_are_retained_shared_sets() -> None:
    world = _world_with_activation()
    assert isinstance(world.sets["A"], SharedSessionToolSet)
    assert _ids(world.sets["A"]) == ["builtin:a"] == _activated(world, "A")


@pytest.mark.parametrize(
    "request_",
    [
        {"op": "rebuild", "set": "A", "into": "A", "progressive": False},
        {"op": "rebuild", "set": "A", "into": "A", "progressive": False, "carry_forward": False},
        {"op": "route", "set": "A", "into": "A", "fallback_session": "s9"},
        {"op": "set_new", "name": "A", "session": "s2", "core": ["builtin:b"]},
    ],
    ids=["rebuild-in-place", "rebuild-zero-inherit", "route-in-place", "set-new-over"],
)
def test_replacing_a_named_set_updates_the_one_retained_object(request_: Json) -> None:
    world = _world_with_activation()
    held = world.sets["A"]
    # Make the activation drift so that a rebuild visibly drops it.
    drift = {
        "op": "catalog_upsert",
        "replaced": "builtin:a",
        "source": {"kind": "builtin", "name": "a"},
        "provenance": BUILTIN,
        "schema": {"type": "string"},
    }
    assert send(world, drift)["ok"] is True
    assert _ids(held) == ["builtin:a"]
    reply = send(world, request_)
    assert reply["ok"] is True, reply
    assert world.sets["A"] is held
    # Through the held reference, the new state is what the protocol reports for "A": routing
    # keeps the retained set as is (drifted activation included); the others drop it.
    expected = ["builtin:a"] if request_["op"] == "route" else []
    assert _ids(held) == expected == _activated(world, "A")
