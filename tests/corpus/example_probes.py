"""Request lines SPEC.md 1.4 and PROTOCOL.md's transport decide, for the implementers' examples.

Each example's replies to these lines are compared with the reference adapter's (the reference's
reader is itself checked against every recorded digest row); ``message`` and ``implementation``
are free text and left out.
"""

from __future__ import annotations

from typing import Any, Final

from session_toolset.adapter import World, handle_line

# 128 levels with the request object: SPEC.md 1.4 says deeper than 127 "may be refused".
TOO_DEEP: Final = b'{"op":"digest","schema":' + b"[" * 127 + b"]" * 127 + b"}"

# Lines SPEC.md 1.4 and PROTOCOL.md's transport decide, compared with the reference adapter.
PROBES: Final = [
    b"",
    b"   ",
    b'\xef\xbb\xbf{"op":"hello"}',  # a BOM is not JSON whitespace
    b'\xc2\xa0{"op":"hello"}',  # nor is U+00A0
    b'{"op":"hello"}\r',
    b'\t{"op":"reset"} ',
    b'{"op":"hello"} x',
    b'{"op":"digest","schema":"\xff"}',  # invalid UTF-8
    b'{"op":"digest","schema":"\xed\xa0\x80"}',  # a surrogate encoded in UTF-8
    b'{"op":"digest","schema":"\\ud83d\\u0041"}',
    b'{"op":"digest","schema":"\\uDE00"}',
    b'{"op":"digest","schema":{"a":1,"a":NaN}}',  # invalid text in a discarded value
    b'{"op":"digest","schema":{"a":1e400,"a":2}}',
    b'{"op":"digest","schema":1,"schema":2}',
    b'{"op":"digest","op":"hello"}',
    b'{"op":"digest","schema":' + b"[" * 126 + b"]" * 126 + b"}",
    TOO_DEEP,
    b'{"op":"digest","schema":' + b"[" * 100_000,
    b'{"op":"digest","schema":-0}',
    b'{"op":"digest","schema":-0.0e-0}',
    b'{"op":"digest","schema":-9223372036854775808}',
    b'{"op":"digest","schema":-9223372036854775809}',
    b'{"op":"digest","schema":18446744073709551615}',
    b'{"op":"digest","schema":18446744073709551616}',
    b'{"op":"digest","schema":' + b"9" * 400 + b"}",
    b'{"op":"digest","schema":' + b"1" * 400 + b"e-400}",
    b'{"op":"digest","schema":179769313486231570814527423731704356798070567525844996598917476803'
    b"157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986"
    b"049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274"
    b"797826204144723168738177180919299881250404026184124858368.0000000001}",
    b'{"op":"digest","schema":-1.7976931348623157e308}',
    b'{"op":"digest","schema":1.79769313486231580793728971405301e308}',
    b'{"op":"digest","schema":123456789012345678901234567890e-330}',
    b'{"op":"digest","schema":[01]}',
    b'{"op":"digest","schema":{"__proto__":1,"constructor":[]}}',
    b'{"op":"digest"}',
    b'{"op":"tool_id_parse","raw":1}',
    b'{"op":"tool_id_parse","raw":"' + "é".encode() * 100 + b'"}',
    b'{"op":"tool_id_parse","raw":"A:b"}',
    b'{"op":"session_id_parse","raw":"a\\u009fb"}',
    b'{"op":"session_id_parse","raw":null}',
    b'{"op":"Hello"}',
    b"{}",
    b'[{"op":"hello"}]',
    b'"hello"',
]


def _comparable(reply: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in reply.items() if k not in ("message", "implementation")}


def assert_like_reference(lines: list[bytes], replies: list[dict[str, Any]]) -> None:
    """Every reply equals the reference adapter's to the same line, free text aside."""
    assert len(replies) == len(lines)
    world = World()
    for line, reply in zip(lines, replies, strict=True):
        if line == TOO_DEEP:
            assert reply["ok"] is True or reply["error"] == "Protocol"
            continue
        expected = handle_line(world, line)
        assert _comparable(reply) == _comparable(dict(expected)), line[:80]
        assert isinstance(reply.get("message", ""), str)
