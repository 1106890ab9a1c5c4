"""The explorer's fast expected side: a plain request is answered as the value it is, without the
world re-parsing its own encoding; the reply and the world it leaves must be the ones the world's
text door (`World.handle_line`) gives for the same line, on every request an exploration sends."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from session_toolset_model.world import World

from session_toolset_harness.conform.jsonio import RawLine, encode_line, encode_value_line
from session_toolset_harness.explore import machine, protocol_rules
from session_toolset_harness.explore.protocol_rules import expect_and_encode, plain
from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.sut import InProcessSut


def _text(value: Any) -> str:
    # json.dumps tells 1, 1.0 and true apart, which == does not
    return json.dumps(value, ensure_ascii=True)


def test_every_request_of_a_run_gets_the_text_doors_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: Counter[str] = Counter()
    original = protocol_rules.expect_and_encode

    def both(world: World, request: Any) -> tuple[Any, bytes]:
        if isinstance(request, RawLine):
            seen["raw"] += 1
            return original(world, request)
        line = encode_line(request)
        saved = world.save()
        slow, slow_world = world.handle_line(line[:-1]), world.key()
        world.restore(saved)
        fast, fast_line = original(world, request)
        assert fast_line == line
        assert _text(fast) == _text(slow), request
        assert world.key() == slow_world, request
        seen["plain" if plain(request) and encode_value_line(request)[1] else "parsed"] += 1
        return fast, fast_line

    monkeypatch.setattr(machine, "expect_and_encode", both)
    result = explore(InProcessSut(), examples=40, steps=30, seed_value=3, shrink=False)
    assert result.failure is None and result.error is None, result.error
    # the run took both paths, and the fast one for most requests
    assert seen["plain"] > 10 * seen["parsed"] > 0, seen
    assert seen["raw"] > 0, seen


@pytest.mark.parametrize(
    "request_",
    [
        {"op": "catalog_set_generation", "value": 2**64},  # beyond u64: the parser's double
        {"op": "catalog_set_generation", "value": 3.0},  # a double, kept a double
        {"op": "catalog_set_generation", "value": -(2**63) - 1},
        {"op": "session_id_parse", "raw": "a\ud800b"},  # a lone surrogate: Protocol
        {
            "op": "digest",
            "schema": {"a": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]},
        },
    ],
)
def test_values_the_parser_changes_take_the_text_door(request_: dict[str, Any]) -> None:
    fast, line = expect_and_encode(World(), request_)
    assert _text(fast) == _text(World().handle_line(line[:-1]))


def test_the_text_door_matters_for_those_values() -> None:
    """Witness that the slow path is not redundant: answered as the value it is, the request with
    a lone surrogate and the schema beyond u64 would get another reply than their line gets."""
    for request in (
        {"op": "session_id_parse", "raw": "a\ud800b"},
        {"op": "digest", "schema": 2**64},  # the line's number is a double: another digest
    ):
        assert not (plain(request) and encode_value_line(request)[1])
        world = World()
        assert _text(World().answer(request)) != _text(world.handle_line(encode_line(request)[:-1]))


def test_plain_values() -> None:
    assert plain({"op": "x", "a": [1, "é", None, True, {"k": 2**64 - 1}], "b": -(2**63)})
    for value in (1.5, 2**64, -(2**63) - 1, (1, 2), {1: "a"}, {"a": {1, 2}}):
        assert not plain({"op": "x", "v": value}), value
    deep: Any = 1
    for _ in range(protocol_rules.PLAIN_DEPTH + 1):
        deep = [deep]
    assert not plain(deep)
