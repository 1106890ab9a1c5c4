"""The JSON-text request lines (`strategies.json_text_lines`) reach each lexical rule of
SPEC.md 1.4 in the positions that matter, and the world and the reference agree on them."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, seed, settings
from session_toolset_model.world import World

from session_toolset.adapter import World as AdapterWorld
from session_toolset.adapter import handle_line
from session_toolset_harness.explore import strategies

pytestmark = pytest.mark.spec("1.4")

LONE = (b"\\UD800", b"\\UD83D", b"\\UDBFF", b"\\UDC00", b"\\UDE00", b"\\UDFFF")


PAIR = re.compile(rb"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def draw_lines(count: int = 200, seeds: int = 2) -> list[bytes]:
    """``count`` lines from each of ``seeds`` fixed seeds (reproducible)."""
    lines: list[bytes] = []
    for value in range(seeds):

        @seed(value)
        @settings(max_examples=count, database=None, deadline=None)
        @given(strategies.json_text_lines())
        def collect(line: bytes) -> None:
            lines.append(line)

        collect()
    return lines


LINES = draw_lines()


def verdict(line: bytes) -> object:
    reply = World().handle_line(line)
    return True if reply["ok"] else reply["error"]


def digest_of(value: bytes) -> object:
    return verdict(b'{"op":"digest","schema":' + value + b"}")


def discarded_and_kept(line: bytes) -> tuple[bytes, bytes] | None:
    """The two values of a digest line whose ``schema`` key is repeated."""
    prefix = b'{"op":"digest","schema":'
    body = line.strip(b" \t\r")
    if not body.startswith(prefix) or body[len(prefix) :].count(b',"schema":') != 1:
        return None
    first, _, kept = body[len(prefix) : -1].partition(b',"schema":')
    return first, kept


def test_a_valid_surrogate_pair_escape_is_accepted() -> None:
    accepted = [b for b in LINES if PAIR.search(b) and verdict(b) is True]
    assert accepted


def test_a_refused_token_in_a_discarded_value_refuses_the_line() -> None:
    """A value a repeated key discards still decides (PROTOCOL.md: anywhere in the line), for
    lone surrogates and for the other refused tokens alike."""
    pairs = [p for p in map(discarded_and_kept, LINES) if p is not None]
    decided = [
        (first, kept)
        for first, kept in pairs
        if digest_of(first) == "Protocol" and digest_of(kept.strip(b" \t\r")) is True
    ]
    assert any(any(u in first.upper() for u in LONE) for first, _ in decided)
    assert any(not any(u in first.upper() for u in LONE) for first, _ in decided)
    for first, kept in decided:
        assert verdict(b'{"op":"digest","schema":' + first + b',"schema":' + kept + b"}") == (
            "Protocol"
        )


def test_text_that_is_not_json_whitespace_before_the_object_refuses_the_line() -> None:
    spoiled = [b for b in LINES if b[:1] in (b"\x0b", b"\x0c")]
    assert spoiled and all(verdict(b) == "Protocol" for b in spoiled)


def test_envelopes_without_a_string_op_are_generated() -> None:
    bodies = [b.strip(b" \t\r") for b in LINES]
    assert b"{}" in bodies
    assert any(b.startswith(b'{"op":') and not b.startswith(b'{"op":"') for b in bodies)


def test_identity_fields_carry_escapes_that_decode_to_valid_ids() -> None:
    parsed = [b for b in LINES if b'"op":"tool_id_parse"' in b and b"\\u" in b]
    assert any(verdict(b) is True for b in parsed)
    assert any(verdict(b) not in (True, "Protocol") for b in parsed)


def test_the_reference_answers_every_generated_line_as_the_world_does() -> None:
    for line in LINES:
        expected = World().handle_line(line)
        actual = handle_line(AdapterWorld(), line)
        assert {key: actual.get(key) for key in expected} == expected, line
