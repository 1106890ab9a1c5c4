"""PROTOCOL.md Transport, said with exact lines (``send_line`` / ``send_hex``): what a request
object cannot express.  The whole line is read with SPEC.md 1.4's JSON rules — a repeated key
keeps its last value; a lone surrogate escape, ``NaN``, a number beyond the double range or any
other invalid text anywhere in the line, inside a discarded value too, makes it malformed — and
only JSON whitespace (space, tab, CR, LF) may surround the object.  A blank, malformed or
non-UTF-8 line gets one ``Protocol`` reply and changes nothing; every vector here ends by showing
the world as it was.

Nesting is not here: ``edges/deepest-nesting`` sends the deepest request every implementation
must accept (the request object is level 1, so a schema of 126 levels), and nothing deeper is
sent, since SPEC.md 1.4 allows refusing it but does not require it.
"""

from __future__ import annotations

import json

from session_toolset_harness.corpus.dsl import Obj, Vector, insert, snapshot, state
from session_toolset_harness.corpus.groups.common import BASH
from session_toolset_harness.corpus.spec import U64_MAX, digest

G = "lines"
HELLO_LINE = '{"op":"hello"}'
HELLO_REPLY: Obj = {"ok": True, "protocol": 1}


def _line(request: Obj) -> str:
    return json.dumps(request, ensure_ascii=False, separators=(",", ":"))


#: The ops of an adapter that has no world yet (docs/examples/adapter-skeleton.mjs).
STATELESS_OPS = "hello, reset, tool_id_parse, session_id_parse and digest"


def _base(name: str, description: str, world: bool, tags: tuple[str, ...] = ()) -> Vector:
    """A vector of this group: ``world`` sends every line in a world and shows it unchanged;
    without it the vector keeps only the lines an adapter of :data:`STATELESS_OPS` answers."""
    if not world:
        description += (
            f" Only the lines an adapter of {STATELESS_OPS} can answer, in no world: "
            f"{G}/{name} sends these and the rest in a world and shows it unchanged."
        )
        return Vector(f"{G}/{name}-stateless", description, ("protocol", "raw-line", *tags))
    v = Vector(f"{G}/{name}", description, ("protocol", "raw-line", *tags))
    insert(v, BASH, 1)
    return v.ok("set_new", name="A", session="s-a", core=[BASH.id])


def _unchanged(v: Vector, world: bool) -> Vector:
    if world:
        state(v, 1, [BASH])
        snapshot(v, "A", "s-a", 1, 0, [BASH], [])
    return v.line(HELLO_LINE, HELLO_REPLY)


def _blank(world: bool) -> Vector:
    v = _base(
        "blank-and-whitespace-only",
        "A blank line, or one holding only JSON whitespace, is not a request: one Protocol reply "
        "each (the line still gets its reply), nothing changes.",
        world,
    )
    for text in ["", " ", "\t", "   \t  ", "\r", "\r\r", " \r", "\t \r"]:
        v.line(text)
    return _unchanged(v, world)


def _json_whitespace(world: bool) -> Vector:
    v = _base(
        "json-whitespace",
        "Space, tab and CR are JSON whitespace: before, after and between the tokens of the "
        "request object they change nothing.",
        world,
    )
    v.line(" \t" + HELLO_LINE + "\t \r", HELLO_REPLY)
    v.line("\r" + HELLO_LINE, HELLO_REPLY)
    v.line(HELLO_LINE + "\r", HELLO_REPLY)
    v.line('{ "op" : "tool_id_parse" ,\t"raw"\r:\t"a:b" }', {"ok": True, "id": "a:b"})
    if world:
        v.line('\t{\t"op"\t:\t"catalog_state"\t}\t', {"ok": True, "generation": 1})
    return _unchanged(v, world)


#: Characters that are whitespace somewhere, but not JSON whitespace.
NOT_JSON_WHITESPACE = [
    "\u000b",  # vertical tab
    "\u000c",  # form feed
    "\u0000",
    "\u0085",  # next line
    "\u00a0",  # no-break space
    "\u1680",
    "\u2000",
    "\u2028",  # line separator
    "\u2029",
    "\u3000",
    "\ufeff",  # byte order mark / zero-width no-break space
]


def _other_whitespace(world: bool) -> Vector:
    v = _base(
        "other-whitespace-around",
        "Only space, tab, CR and LF are JSON whitespace: vertical tab, form feed, NUL, NEL, "
        "no-break and other Unicode spaces, line separators and a byte-order mark before or "
        "after the request object, or between its tokens, make the line malformed: Protocol.",
        world,
    )
    for char in NOT_JSON_WHITESPACE:
        v.line(char + HELLO_LINE)
        v.line(HELLO_LINE + char)
        v.line('{"op":' + char + '"hello"}')
    v.raw(b"\xef\xbb\xbf" + HELLO_LINE.encode())  # a UTF-8 byte-order mark
    return _unchanged(v, world)


def _not_utf8(world: bool) -> Vector:
    v = _base(
        "not-utf8",
        "A line that is not UTF-8 - stray bytes, overlong forms, encoded surrogates (CESU-8), "
        "code points beyond U+10FFFF, cut sequences, Latin-1 text, UTF-16 - is malformed even "
        "when the rest is a valid request: Protocol, nothing changes. Valid UTF-8 outside ASCII "
        "reaches the fields.",
        world,
    )
    parse = b'{"op":"tool_id_parse","raw":"a:'
    for data in [
        b"\xff",
        b"\xff\xfe\x80",
        b"\x80",
        parse + b'\xff"}',
        parse + b'\xc0\xaf"}',  # overlong "/"
        parse + b'\xe0\x80\xaf"}',  # overlong, three bytes
        parse + b'\xed\xa0\x80"}',  # an encoded high surrogate
        parse + b'\xed\xa0\xbd\xed\xb8\x80"}',  # a surrogate pair encoded byte-wise (CESU-8)
        parse + b'\xf4\x90\x80\x80"}',  # U+110000
        parse + b'\xf8\x88\x80\x80\x80"}',  # a five-byte form
        parse + b'\xe2\x82"}',  # a cut three-byte sequence
        parse + "\u00e9".encode("latin-1") + b'"}',
        b'{"op":"hello","x":"' + "\u00e9".encode()[:1] + b'"}',  # the original's utf8-cut case
        HELLO_LINE.encode() + b"\xff",
        b"\xfe" + HELLO_LINE.encode(),
        HELLO_LINE.encode("utf-16-le"),
        HELLO_LINE.encode("utf-16"),
    ]:
        v.raw(data)
    v.raw(parse + "\u00e9".encode() + b'"}', {"ok": False, "error": "ToolIdError.InvalidName"})
    v.raw(b'{"op":"session_id_parse","raw":"' + "s\u00e9\U0001f600".encode() + b'"}', {"ok": True})
    return _unchanged(v, world)


def _not_one_object(world: bool) -> Vector:
    v = _base(
        "not-one-json-object",
        "A line holding anything but exactly one JSON object - text that is not JSON, another "
        "JSON value, an object cut short or followed by more bytes (another object, a comma, a "
        "comment, a NUL) - is malformed: Protocol, and a request inside it never runs.",
        world,
    )
    for text in [
        "{not json",
        "hello",
        '{"op":"hello"',
        '{"op":"hello",}',
        "{'op':'hello'}",
        '{op:"hello"}',
        '["op","hello"]',
        "42",
        '"hello"',
        "null",
        "true",
        "{}",
        HELLO_LINE + " x",
        HELLO_LINE + "X",
        HELLO_LINE + "\rX",  # CR is JSON whitespace, but what follows it is not
        HELLO_LINE + HELLO_LINE,
        HELLO_LINE + ",",
        HELLO_LINE + "]",
        HELLO_LINE + "}",
        HELLO_LINE + " 1",
        HELLO_LINE + " null",
        HELLO_LINE + "\u0000",
        HELLO_LINE + "//",
        HELLO_LINE + " /* */",
        "x" + HELLO_LINE,
        "," + HELLO_LINE,
        '{"op":"catalog_set_generation","value":5}' + HELLO_LINE,
        HELLO_LINE + '{"op":"catalog_set_generation","value":5}',
        '{"op":"catalog_set_generation","value":5} {"op":"reset"}',
    ]:
        v.line(text)
    return _unchanged(v, world)


def _repeated_keys(world: bool) -> Vector:
    v = _base(
        "repeated-keys",
        "A repeated key keeps its last value - for op, for a field, inside a SOURCE and inside "
        "a schema (same digest as the object without the first value) - but the discarded "
        "value is still read: NaN, Infinity, a lone surrogate escape or a number beyond the "
        "double range there makes the whole line malformed.",
        world,
    )
    v.line('{"op":"tool_id_parse","raw":"x","raw":"a:b"}', {"ok": True, "id": "a:b"})
    v.line('{"op":"tool_id_parse","raw":5,"raw":"a:b"}', {"ok": True, "id": "a:b"})
    v.line('{"op":"tool_id_parse","raw":"a:b","raw":5}')
    v.line(
        '{"op":"tool_id_parse","raw":"a:b","raw":""}', {"ok": False, "error": "ToolIdError.Empty"}
    )
    v.line('{"op":"nope","op":"tool_id_parse","raw":"a:b"}', {"ok": True, "id": "a:b"})
    v.line('{"op":"tool_id_parse","raw":"a:b","op":"nope"}')
    if world:  # tool_id is not one of STATELESS_OPS
        v.line(
            '{"op":"tool_id","source":{"kind":"martian","kind":"builtin","name":"x","name":"y"}}',
            {"ok": True, "id": "builtin:y"},
        )
    v.line('{"op":"digest","schema":{"a":1,"a":2}}', {"ok": True, "digest": digest({"a": 2})})
    v.line(
        '{"op":"digest","schema":{"o":{"k":1,"k":true},"o":{"k":null,"k":"v"}}}',
        {"ok": True, "digest": digest({"o": {"k": "v"}})},
    )
    for discarded in [
        "NaN",
        "Infinity",
        "-Infinity",
        '"\\ud800"',
        '"a\\udfff"',
        '["\\udc00"]',
        '{"\\ud800":1}',
        '{"deep":[1,NaN]}',
        "1e400",
        "-1e400",
        '"\\ud800x\\udc00"',  # a high and a low escape, not adjacent: two lone ones
        '"\\ud800\\u0041"',  # a high escape followed by an escape that is not a low one
    ]:
        v.line('{"op":"digest","schema":' + discarded + ',"schema":1}')
        v.line('{"op":"catalog_set_generation","value":' + discarded + ',"value":7}')
    # A high surrogate escape pairs only with the low escape right after it, in a value a
    # repeated key discards too.
    v.line('{"op":"tool_id_parse","raw":"a:b","x":"\\ud800x\\udc00","x":1}')
    v.line('{"op":"tool_id_parse","raw":"a:b","x":"\\ud800\\u0041","x":1}')
    v.line(
        '{"op":"tool_id_parse","raw":"a:b","x":"\\ud800\\udc00","x":1}', {"ok": True, "id": "a:b"}
    )
    # The same rules one level down, in an object a repeated key of the schema discards from.
    for discarded in [
        "NaN",
        '"\\ud800\\n"',  # a high escape followed by a short escape
        '"\\ud800\\ue000"',  # ... by an escape just past the surrogate range
        '"\\ud800\\udc00\\udc00"',  # a pair, then a lone low escape
        '"\\udc00\\udc00"',  # two low escapes: each one lone
    ]:
        v.line('{"op":"digest","schema":{"a":' + discarded + ',"a":1}}')
    if world:
        v.line('{"op":"catalog_set_generation","value":1,"value":7}', {"ok": True, "generation": 7})
        v.line('{"op":"catalog_set_generation","value":7,"value":1}', {"ok": True, "generation": 1})
    return _unchanged(v, world)


def _escapes(world: bool) -> Vector:
    v = _base(
        "escapes",
        "JSON escapes are decoded before a field is read: in keys (op itself), in values, upper "
        "or lower case hex, surrogate pairs; an escaped NUL or colon is the character itself. "
        "An invalid escape or a raw control character in a string makes the line malformed.",
        world,
    )
    v.line('{"\\u006fp":"hello"}', HELLO_REPLY)
    v.line('{"op":"hel\\u006Co"}', HELLO_REPLY)
    v.line('{"op":"tool_id_parse","raw":"a:\\u0062"}', {"ok": True, "id": "a:b"})
    v.line('{"op":"tool_id_parse","raw":"a\\u003Ab\\u002E1"}', {"ok": True, "id": "a:b.1"})
    v.line(
        '{"op":"tool_id_parse","raw":"a:b\\/c"}', {"ok": False, "error": "ToolIdError.InvalidName"}
    )
    v.line(
        '{"op":"tool_id_parse","raw":"\\u0061:\\u0042"}',
        {"ok": False, "error": "ToolIdError.InvalidName"},
    )
    v.line(
        '{"op":"tool_id_parse","raw":"a:\\u0000"}',
        {"ok": False, "error": "ToolIdError.InvalidName"},
    )
    v.line(
        '{"op":"session_id_parse","raw":"s\\u0000"}',
        {"ok": False, "error": "SessionIdError.ControlCharacters"},
    )
    v.line('{"op":"session_id_parse","raw":"\\u00e9\\ud83d\\ude00"}', {"ok": True})
    emoji = {"ok": True, "digest": digest("\U0001f600")}
    v.line('{"op":"digest","schema":"\\ud83d\\ude00"}', emoji)
    v.line('{"op":"digest","schema":"\\uD83D\\uDE00"}', emoji)
    v.line('{"op":"digest","schema":"\U0001f600"}', emoji)
    # The ends of the surrogate-pair range and the first code point after the surrogates: the
    # digest is the one of the decoded character (SPEC.md 1.4 hashes its UTF-8 bytes).
    for escaped, char in [
        ("\\ud800\\udc00", "\U00010000"),
        ("\\udbff\\udfff", "\U0010ffff"),
        ("\\ue000", "\ue000"),
    ]:
        v.line('{"op":"digest","schema":"' + escaped + '"}', {"ok": True, "digest": digest(char)})
    v.line('{"op":"digest","schema":{"\\u0061":1}}', {"ok": True, "digest": digest({"a": 1})})
    v.line(
        '{"op":"digest","schema":"\\"\\\\\\/\\b\\f\\n\\r\\t"}',
        {"ok": True, "digest": digest('"\\/\b\f\n\r\t')},
    )
    v.line('{"op":"digest","schema":"a\u007fb"}', {"ok": True, "digest": digest("a\u007fb")})
    for bad in [
        "\\x41",
        "\\u12",
        "\\u00G0",
        "\\U0041",
        "\\'",
        "\\a",
        "\\0",
        "\\",
        "\\ud800",
        "\\udc00\\ud800",
        "\t",
        "\u0001",
        "\u001f",
    ]:
        v.line('{"op":"digest","schema":"' + bad + '"}')
    return _unchanged(v, world)


def _numbers(world: bool) -> Vector:
    v = _base(
        "number-spellings",
        "How a number is written decides what it is (SPEC.md 1.4): a generation field takes "
        "only integer literals in 0..2^64-1 (7.0, 7e0, -0 are doubles; 07, +7, .7, 7., 0x7 "
        "are not JSON); in a schema 1e2, 1E2, 100.0 and 1000e-1 are the same double, 100 "
        "another value, -0 the double -0.0.",
        world,
        ("numbers",),
    )
    top = str(U64_MAX)
    if world:  # JSON numbers: the reply is catalog_set_generation's, not one of STATELESS_OPS
        v.line('{"op":"catalog_set_generation","value":7}', {"ok": True, "generation": 7})
        v.line(
            '{"op":"catalog_set_generation","value":' + top + "}",
            {"ok": True, "generation": U64_MAX},
        )
        for text in [
            "7.0",
            "7e0",
            "7E0",
            "0.7e1",
            "70e-1",
            "-0",
            "-0.0",
            "1e19",
            "18446744073709551616",
        ]:
            v.line('{"op":"catalog_set_generation","value":' + text + "}")
    for text in ["07", "+7", ".7", "7.", "0x7", "1_000", "7e", "--7", "-", "7 7"]:
        v.line('{"op":"catalog_set_generation","value":' + text + "}")
    if world:
        v.line('{"op":"catalog_set_generation","value":1}', {"ok": True, "generation": 1})
    same: list[tuple[str, object]] = [
        ("1e2", 100.0),
        ("1E2", 100.0),
        ("1e+2", 100.0),
        ("100.0", 100.0),
        ("1000e-1", 100.0),
        ("0.000001e8", 100.0),
        ("100", 100),
        ("-0", -0.0),
        ("-0.0", -0.0),
        ("0", 0),
        ("0.0", 0.0),
        ("0e0", 0.0),
        ("-0e-0", -0.0),
        ("1.5e-7", 1.5e-7),
        ("18446744073709551615", U64_MAX),
        ("18446744073709551616", 2**64),
        ("-9223372036854775808", -(2**63)),
        ("-9223372036854775809", -(2**63) - 1),
        ("1e-400", 0.0),
    ]
    for text, value in same:
        v.line('{"op":"digest","schema":' + text + "}", {"ok": True, "digest": digest(value)})
    return _unchanged(v, world)


def vectors() -> list[Vector]:
    builders = [
        _blank,
        _json_whitespace,
        _other_whitespace,
        _not_utf8,
        _not_one_object,
        _repeated_keys,
        _escapes,
        _numbers,
    ]
    # Each case twice: in a world shown unchanged afterwards, and with only the lines an
    # adapter of STATELESS_OPS answers, so a newcomer's first conform run reaches them.
    return [build(True) for build in builders] + [build(False) for build in builders]
