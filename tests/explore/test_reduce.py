"""Shrinking a person can read: the historical rebuild bug reduces to a handful of requests,
each of which is needed."""

from __future__ import annotations

from typing import Any

import pytest
from miniatures import mini_rebuild_ignores_trust
from session_toolset_model.world import World

from session_toolset_harness.conform.jsonio import RawLine
from session_toolset_harness.explore.observe import Divergence, StepRecord
from session_toolset_harness.explore.protocol_rules import op_name
from session_toolset_harness.explore.reduce import _drop, _exact_grants, replay
from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.shrink_values import (
    _candidates,
    _rederive_digests,
    _replace,
    shrink_values,
    size,
)
from session_toolset_harness.explore.sut import InProcessSut

pytestmark = pytest.mark.spec("3")


def test_the_rebuild_bug_shrinks_to_a_handful_of_needed_requests() -> None:
    with mini_rebuild_ignores_trust.patch():
        sut = InProcessSut()
        result = explore(sut, examples=300, steps=50, seed_value=0, shrink=True)
        assert result.failure is not None
        requests = [r.request for r in result.failure.steps]
        assert len(requests) <= 8, requests
        assert requests[-1]["op"] in ("rebuild", "authorize", "snapshot")
        assert replay(sut, requests) is not None
        for index in range(len(requests) - 1):  # every request but the last is needed
            without = replay(sut, requests[:index] + requests[index + 1 :])
            same_op = without is not None and without.steps[-1].request["op"] == requests[-1]["op"]
            assert not same_op, f"request {index + 1} is not needed"
        # the values are shrunk too: the bug has nothing to do with schemas, so every schema
        # is the empty object (the grants' digests re-derived to match), and no simpler value
        # of any request keeps the divergence
        schemas = [r["schema"] for r in requests if "schema" in r]
        assert schemas and all(schema == {} for schema in schemas), schemas
        for index, request in enumerate(requests):
            for path, replacement in _candidates(request):
                changed = _replace(request, path, replacement)
                candidate = [*requests[:index], changed, *requests[index + 1 :]]
                found = replay(sut, _rederive_digests(candidate, request, changed, path))
                assert found is None or op_name(found.steps[-1].request) != requests[-1]["op"], (
                    index,
                    path,
                )
    assert replay(InProcessSut(), requests) is None  # the reference agrees with the world


def _records(requests: list[Any]) -> list[dict[str, Any]]:
    world = World()
    for request in requests:
        world.handle(request)
    records: list[dict[str, Any]] = world.handle({"op": "catalog_state"})["records"]
    return records


def test_values_shrink_and_a_grant_follows_its_record() -> None:
    """A stand-in divergence: "an activation exists".  Shrinking removes the optional fields,
    empties the schema (the grant's digest re-derived by the world, or the activation would
    fail), and renames the extension, tool, session and set everywhere at once."""
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    digest = World().handle({"op": "digest", "schema": schema})["digest"]
    requests: list[Any] = [
        {
            "op": "catalog_insert",
            "source": {"kind": "extension", "extension_id": "acme", "tool_name": "lint"},
            "provenance": {"kind": "extension_manifest", "extension_id": "acme"},
            "schema": schema,
            "summary": "lints things",
            "tags": ["x", "y"],
        },
        {"op": "set_new", "name": "main", "session": "session-1", "core": []},
        {
            "op": "forge_grant",
            "name": "g1",
            "session": "session-1",
            "tool": "ext.acme:lint",
            "generation": 1,
            "digest": digest,
        },
        {"op": "activate", "set": "main", "grant": "g1"},
    ]

    def activated(candidate: list[Any]) -> list[Any] | None:
        world = World()
        replies = [world.handle(r) for r in candidate]
        return candidate if replies[-1].get("ok") else None

    assert activated(requests) is not None
    budget = [300]

    def left() -> bool:
        budget[0] -= 1
        return budget[0] > 0

    shrunk = shrink_values(requests, activated, left)
    insert, new, grant, activate = shrunk
    assert insert["schema"] == {} and "summary" not in insert and "tags" not in insert
    (record,) = _records(shrunk)
    assert grant["digest"] == record["digest"] != digest
    assert grant["tool"] == record["id"] and record["id"] != "ext.acme:lint"
    assert new["session"] == grant["session"] and len(new["session"]) == 1
    assert activate["set"] == new["name"] and len(new["name"]) == 1
    assert size(shrunk) < size(requests) and budget[0] > 0


def test_a_raw_line_step_is_written_as_send_line_or_send_hex() -> None:
    from session_toolset_harness.conform.jsonio import RawLine
    from session_toolset_harness.explore.observe import StepRecord
    from session_toolset_harness.explore.vectorize import vector_steps

    records = [
        StepRecord(
            RawLine(b'{"op":"hello","op":"nope"}'), {"ok": False, "error": "Protocol"}, None
        ),
        StepRecord(RawLine(b'{"op":"hello","x":"\xff"}'), {"ok": False, "error": "Protocol"}, None),
    ]
    steps = vector_steps(records, None)[2:]
    assert steps[0] == {"send_line": '{"op":"hello","op":"nope"}', "expect": records[0].expected}
    assert steps[1] == {
        "send_hex": b'{"op":"hello","x":"\xff"}'.hex(),
        "expect": records[1].expected,
    }
    assert replay(InProcessSut(), [r.request for r in records]) is None  # the reference agrees


def test_removing_an_exact_grant_rewrites_no_other_request() -> None:
    """Chunk removal re-derives the generation of the exact grants left (`_regranted`); a grant
    removed with its chunk must leave the set, not shift onto the request that took its index
    (a raw line there was a TypeError; a dict got a ``generation`` field it never had)."""
    insert: dict[str, Any] = {
        "op": "catalog_insert",
        "source": {"kind": "builtin", "name": "read"},
        "provenance": {"kind": "builtin_runtime"},
        "schema": {},
    }
    raw = RawLine(b'{"op":"catalog_state"}\n')
    grant: dict[str, Any] = {"op": "forge_grant", "name": "g1", "session": "s"}
    grant["tool"] = "builtin:read"
    grant |= {"generation": 1, "digest": World().handle({"op": "digest", "schema": {}})["digest"]}
    last = {"op": "catalog_state"}
    requests: list[Any] = [insert, raw, grant, last]
    assert World().handle(insert)["ok"] is True
    assert _exact_grants(requests) == {2}  # issued at the generation of its moment
    tried: list[list[Any]] = []

    def still(candidate: list[Any]) -> Divergence | None:
        tried.append(candidate)
        return None  # nothing diverges: every removal is tried once

    best = Divergence(tuple(StepRecord(r, {}, {}) for r in requests), (), "stand-in")
    assert _drop(best, still, lambda: True) is best
    assert [insert, raw, last] in tried  # the grant's own removal was tried, unchanged
    for candidate in tried:
        for request in candidate:
            assert request in requests or (request["op"] == "forge_grant")
