"""Strategies (`draw`) for the whole protocol: identities near every byte budget, sessions
with every control-character class, JSON schemas at the number and nesting edges, runtime names
that collide as aliases, and raw request lines.

Nothing here knows a particular bug: the values sit on the edges SPEC.md section 1 and 4 name
(budgets 57/60/64/128/200/256, the ``enc-``/``sha-`` prefixes, the hex-encoding fit, integers
at +-2^63 and 2^64, ryu's layout switches at 10^-5 and 10^16, 127 nesting levels, the 64-byte
alias cut, the 128-byte wire-name bound).  The expected replies come from the model's world.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from decimal import Decimal
from functools import cache, lru_cache
from typing import Any, Final, Literal, TypeVar

from . import draw as st

BUDGETS = (57, 60, 64, 128, 200, 256)
_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_REST = _LOWER + "_.-"
_SURROGATES: Final[tuple[Literal["Cs"]]] = ("Cs",)
T = TypeVar("T")


def words(text: str) -> list[str]:
    """The whitespace-separated words of ``text`` (a table written as data)."""
    return text.split()


def sampled(elements: Sequence[T]) -> st.SearchStrategy[T]:
    """``st.sampled_from(elements)`` (a list is copied: the caller's may change)."""
    return st.sampled_from(list(elements))


@cache  # a flatmap's expansion: one strategy per value, not one per draw
def _near(budget: int) -> st.SearchStrategy[int]:
    """A length on or next to a budget, or to the longest raw text whose hex still fits."""
    hex_fit = (budget - 4) // 2
    return st.sampled_from(
        sorted({1, budget - 1, budget, budget + 1, hex_fit, hex_fit + 1, hex_fit - 1} - {0})
    )


@cache
def canonical(length: int) -> st.SearchStrategy[str]:
    return st.builds(
        lambda first, rest: first + rest,
        st.sampled_from(_LOWER),
        st.text(alphabet=_REST, min_size=max(length - 1, 0), max_size=max(length - 1, 0)),
    )


def unicode_text(min_size: int = 0, max_size: int = 20) -> st.SearchStrategy[str]:
    # Without the surrogates this is exactly what UTF-8 encodes.
    return st.text(
        alphabet=st.characters(exclude_categories=_SURROGATES), min_size=min_size, max_size=max_size
    )


def segment_text() -> st.SearchStrategy[str]:
    """One raw source segment: canonical or not, near a budget, prefixed, Unicode, empty."""
    sized = st.sampled_from(BUDGETS[:4]).flatmap(_near).flatmap(canonical)
    return st.one_of(
        st.sampled_from(["", "read", "a", "enc-", "sha-", "enc-x", "sha-1", "Read", "a b", "é"]),
        sized,
        st.sampled_from(["enc-", "sha-"]).flatmap(lambda p: sized.map(lambda s: p + s)),
        unicode_text(1, 70),
        st.sampled_from(BUDGETS[:4]).flatmap(_near).map(lambda n: "é" * max(n // 2, 1)),
    )


def sources() -> st.SearchStrategy[dict[str, str]]:
    seg = segment_text()
    return st.one_of(
        st.builds(lambda n: {"kind": "builtin", "name": n}, seg),
        st.builds(lambda n: {"kind": "unknown", "runtime_name": n}, seg),
        st.builds(lambda a, b: {"kind": "extension", "extension_id": a, "tool_name": b}, seg, seg),
        st.builds(lambda a, b: {"kind": "mcp", "server_id": a, "server_tool_name": b}, seg, seg),
        st.builds(lambda a, b: {"kind": "plugin", "plugin_id": a, "tool_name": b}, seg, seg),
    )


def provenance_for(source: dict[str, str]) -> st.SearchStrategy[dict[str, str]]:
    """Mostly the provenance matching the source (trusted), sometimes another or unverified."""
    owner = source.get("extension_id") or source.get("server_id") or source.get("plugin_id") or ""
    return _provenances(source["kind"], owner)


@lru_cache(maxsize=1024)  # owners are random texts
def _provenances(kind: str, owner: str) -> st.SearchStrategy[dict[str, str]]:
    matching = {
        "builtin": {"kind": "builtin_runtime"},
        "extension": {"kind": "extension_manifest", "extension_id": owner},
        "mcp": {"kind": "mcp_config", "server_id": owner},
        "plugin": {"kind": "plugin_config", "plugin_id": owner},
        "unknown": {"kind": "builtin_runtime"},
    }[kind]
    return st.sampled_from(
        [
            matching,
            matching,
            matching,
            {"kind": "unverified"},
            {"kind": "mcp_config", "server_id": owner + "x"},
            {"kind": "plugin_config", "plugin_id": owner},
        ]
    )


_BAD_IDS = ["", ":", "a:", ":a", *words("a:b:c A:b a:B -a:b a:_b a.b:c-d enc-x:sha-y")]
_BAD_IDS += ["a: b", " a:b", "a:b "]


def raw_tool_ids() -> st.SearchStrategy[str]:
    """ToolId texts around every rule of `ToolId.parse` (valid ones included)."""

    @cache
    def joined(ns_len: int, name_len: int) -> st.SearchStrategy[str]:
        return st.builds(lambda a, b: f"{a}:{b}", canonical(ns_len), canonical(name_len))

    lengths = st.tuples(
        st.sampled_from([1, 63, 64, 65, 71, 72]), st.sampled_from([1, 127, 128, 129])
    )
    return st.one_of(
        st.sampled_from(["builtin:read", "a:b", "ext.x-y:z_1", "0:0", "a.b-c_d:e.f-g_h"]),
        lengths.flatmap(lambda p: joined(*p)),
        st.sampled_from(_BAD_IDS),
        unicode_text(0, 30).map(lambda t: "a:" + t),
        st.integers(0, 3).map(lambda n: "é" * (100 + n)),
        unicode_text(0, 40),
    )


def _control() -> st.SearchStrategy[str]:
    c0 = st.integers(0, 0x1F).map(chr)
    c1 = st.integers(0x80, 0x9F).map(chr)
    return st.one_of(c0, st.just("\x7f"), c1)


def session_texts() -> st.SearchStrategy[str]:
    """SessionId texts: every control-character class, sizes around 256 bytes, Unicode."""
    plain = unicode_text(1, 30).filter(
        lambda t: not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in t)
    )
    return st.one_of(
        st.builds(lambda a, c, b: a + c + b, plain, _control(), plain),
        st.sampled_from([255, 256, 257]).map(lambda n: "s" * n),
        st.sampled_from([127, 128, 129]).map(lambda n: "ü" * n),
        st.sampled_from([255, 256]).map(lambda n: "s" * n + "ü"),
        st.just(""),
        st.sampled_from([" ", "a b", "team/a: b", "\u2028", "\xa0", "\u200b"]),
        plain,
    )


_INT_EDGES = [0, 1, -1, 2**53, 2**53 + 1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64 - 1]
_INT_EDGES += [2**64, 10**20, -(10**20)]
_DOUBLE_EDGES = [0.0, -0.0, 1.0, 0.1, 1e15, 1e16, 9.999999999999999e15, 1e-5, 1e-4, 1.5e-5, 1e-6]
_DOUBLE_EDGES += [1e-7, 123.456, 5e-324, 2.2250738585072014e-308, sys.float_info.max]
_DOUBLE_EDGES += [-sys.float_info.max, 1.8446744073709552e19, 0.30000000000000004]


def json_values(depth: int = 3) -> st.SearchStrategy[Any]:
    """JSON values at the canonical encoding's edges (numbers, Unicode and escaped keys)."""
    numbers = st.one_of(
        st.sampled_from(_INT_EDGES),
        st.integers(-(2**70), 2**70),
        st.sampled_from(_DOUBLE_EDGES),
        st.floats(),
    )
    keys = st.one_of(
        st.sampled_from(["", "a", "b", "A", "é", "\u0000", '"', "\\", "a/b", "\U0001f600"]),
        unicode_text(0, 6),
    )
    leaves = st.one_of(st.just(None), st.booleans(), numbers, unicode_text(0, 10))
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.lists(st.tuples(keys, inner), max_size=4).map(dict)
        ),
        depth,
    )


def nested(depth: int, leaf: Any = 1) -> Any:
    value: Any = leaf
    for level in range(depth):
        value = [value] if level % 2 == 0 else {"k": value}
    return value


NUMBER_SPELLINGS = words(
    """-0 -0.0 0e0 1E2 1e+2 1.0e-0 100e-2 1.5E-7 18446744073709551615 18446744073709551616
    -9223372036854775808 -9223372036854775809 1e400 -1e400 1.7976931348623157e308
    1.7976931348623158e308 01 1. .5 +1 NaN Infinity 0.1e1 123456789012345678901234567890"""
)


_ABOVE_DOUBLE_MAX = [
    "1.7976931348623158e308",
    "-1.7976931348623158e308",
    format(Decimal(sys.float_info.max), "f") + ".5",
]
"""Literals just beyond the largest finite double that still *round* to it (SPEC.md 1.4 refuses
them by their exact value): a parser that checks only the rounded double accepts them."""


def digest_line(schema_text: str) -> str:
    return '{"op":"digest","schema":' + schema_text + "}"


RAW_SPELLINGS: Final = [
    '{"op":"digest","schema":{"a":1,"a":2}}',
    '{"op":"digest","schema":{"a":{"x":1},"a":[1,2]}}',
    '{"op":"digest","schema":{"a":"\\ud800","a":1}}',
    '{"op":"digest","schema":{"a":"\\q","a":1}}',
    '{"op":"digest","schema":1,"schema":2}',
    '{"op":"nope","op":"hello"}',
    '{"op":"hello","op":"nope"}',
    '{"op":"session_id_parse","raw":"a\\u0000b"}',
    '{"op":"session_id_parse","raw":"\\u00e9\\/x"}',
    '{"op":"tool_id_parse","raw":"a:\\u0062"}',
    '{"op":"tool_id_parse","raw":"\\ud83d\\ude00:x"}',
    '{"op":"hello","x":"\\udc00"}',
    ' \t{"op":"hello"}\r ',
    '\x0c{"op":"hello"}',
    '{"op":"hello"}{}',
    '{"op":"hello"}x',  # a letter after the value: a loop that strips more than the
    '{"op":"hello"}X',  # line's end (its newline, then one carriage return) accepts it
    '{"op":"hello",}',
    '["op","hello"]',
    "",
    "   ",
    "null",
    '{"op":"hello","x":[1,]}',
    '{"op":"digest","schema":"a\tb"}',
]
"""Request lines (text) a JSON object cannot express: repeated keys, escapes, framing."""
INVALID_UTF8_LINES: Final = [
    b'{"op":"hello","x":"\xff"}',
    b'{"op":"hello","x":"\xc3"}',
    b'{"op":"hello","x":"\xed\xa0\x80"}',
    b"\xef\xbb\xbf{}",
]
"""Request lines that are not UTF-8 (a BOM, a cut or a surrogate sequence)."""


def raw_lines() -> st.SearchStrategy[bytes]:
    """Request lines a JSON object cannot express: spellings, repeated keys, escapes, bad text."""
    spelled = st.sampled_from(NUMBER_SPELLINGS).map(digest_line)
    repeated = st.sampled_from(RAW_SPELLINGS)
    deep = st.sampled_from([125, 126]).map(lambda d: digest_line("[" * d + "0" + "]" * d))
    value = json_values(2).map(lambda v: digest_line(json.dumps(v, ensure_ascii=True)))
    text = st.one_of(spelled, repeated, deep, value).map(lambda t: t.encode("utf-8"))
    invalid_utf8 = st.sampled_from(INVALID_UTF8_LINES)
    return st.one_of(text, invalid_utf8)


def runtime_names() -> st.SearchStrategy[str]:
    """Runtime names whose aliases collide (same safe form) or sit at the 64-byte cut, and names
    around the 128-byte wire-name bound (a name resolved by itself is echoed bounded)."""
    stems = st.sampled_from(["read", "Read", "re.ad", "re-ad", "re ad", "re_ad", "read_2", "ré"])
    cut = st.sampled_from([62, 63, 64, 65, 70]).map(lambda n: "r" * n)
    wire = st.one_of(
        st.sampled_from([127, 128, 129, 200]).map(lambda n: "w" * n),
        st.sampled_from([63, 64, 65]).map(lambda n: "é" * n),
        st.sampled_from([126, 127]).map(lambda n: "w" * n + "é"),
    )
    return st.one_of(stems, cut, cut.map(lambda s: s + "_2"), wire, unicode_text(1, 12))


def colliding_runtime_names() -> st.SearchStrategy[list[str]]:
    """Two to four distinct runtime names with one safe form (SPEC.md 4: every character outside
    ``[A-Za-z0-9_-]`` becomes ``_``), so all but one alias take a ``_N`` suffix; some bases sit
    at the 64-byte cut, where the suffix must cut the base, and some names already spell a
    suffixed alias (``read_2``) that a later collision must step over."""
    bases = st.one_of(
        st.sampled_from(["read", "a", "x-y"]),
        st.sampled_from([61, 62, 63, 64, 65]).map(lambda n: "r" * n),
    )

    @cache
    def family(base: str) -> st.SearchStrategy[list[str]]:
        cut = base[:-1]
        variants = [base, base + "_2", base + "_3", cut + ".", cut + " ", cut + "é", cut + ":"]
        return st.lists(st.sampled_from(variants), min_size=2, max_size=4, unique=True)

    return bases.flatmap(family)


# -- JSON *text*: the lexical edges SPEC.md 1.4 judges anywhere in a line ----------------------
# `raw_lines` above are fixed spellings; these are built token by token, so every lexical rule
# (escapes and surrogate pairing, number grammar and range, literals, whitespace, repeated keys)
# meets every position: a kept value, a value a repeated key discards, a key, a field the op reads.
_UNITS: tuple[int, ...] = (0x61, 0x41, 0x3A, 0x00, 0x1F, 0x22, 0x5C, 0x7F, 0xE9, 0x2028, 0xD7FF)
_UNITS += (0xE000, 0xFEFF, 0xFFFF)
_HIGH = (0xD800, 0xD83D, 0xDBFF)
_LOW = (0xDC00, 0xDE00, 0xDFFF)


def _u(unit: int, upper: bool) -> str:
    return f"\\u{unit:04X}" if upper else f"\\u{unit:04x}"


def _string_pieces(bad: bool = False) -> st.SearchStrategy[str]:
    """One piece of a JSON string's text: plain characters, an escape, a \\u escape of an edge
    unit or a surrogate pair; with ``bad``, a lone surrogate escape or an invalid escape."""
    if bad:
        lone = st.builds(_u, st.sampled_from(_HIGH + _LOW), st.booleans())
        misordered = st.builds(
            lambda lo, h: _u(lo, False) + _u(h, False),
            st.sampled_from(_LOW),
            st.sampled_from(_HIGH),
        )
        invalid = st.sampled_from(["\\q", "\\u12", "\\x41", "\\U0041", "\t", "\x01"])
        return st.one_of(lone, lone, misordered, invalid)
    plain = st.text(
        alphabet=st.characters(
            codec="utf-8", exclude_categories=_SURROGATES, exclude_characters='"\\'
        ).filter(lambda c: ord(c) >= 0x20),
        min_size=1,
        max_size=4,
    )
    escapes = st.sampled_from(["\\n", '\\"', "\\\\", "\\/", "\\b", "\\f", "\\r", "\\t"])
    upper = st.booleans()
    unit = st.builds(_u, st.sampled_from(_UNITS), upper)
    pair = st.builds(
        lambda h, lo, up: _u(h, up) + _u(lo, up),
        st.sampled_from(_HIGH),
        st.sampled_from(_LOW),
        upper,
    )
    return st.one_of(plain, escapes, unit, pair)


def json_string_texts(max_pieces: int = 5, bad: bool = False) -> st.SearchStrategy[str]:
    """A JSON string as text; with ``bad``, one piece in it is invalid (the rest valid)."""
    good = st.lists(_string_pieces(), max_size=max_pieces).map("".join)
    if not bad:
        return good.map(lambda t: '"' + t + '"')
    return st.builds(lambda a, x, b: '"' + a + x + b + '"', good, _string_pieces(True), good)


def _number_texts(bad: bool = False) -> st.SearchStrategy[str]:
    """Number texts by the grammar's parts (sign, integer, fraction, exponent), near the integer
    and double range edges (some beyond the finite range), and the fixed spellings; with
    ``bad``, only texts SPEC.md 1.4 refuses (outside the grammar or the finite range)."""
    if bad:
        return st.sampled_from(
            [
                *["01", "+1", "1.", ".5", "1e", "-", "0x10", "1e+", "--1", "1e400", "-1e400"],
                *["NaN", *_ABOVE_DOUBLE_MAX],
            ]
        )
    integer = st.one_of(
        st.sampled_from(["0", "1", "9223372036854775807", "9223372036854775808"]),
        st.sampled_from(["18446744073709551615", "18446744073709551616", "1" + "0" * 308]),
        st.integers(1, 2**70).map(str),
    )
    fraction = st.sampled_from(["", "", ".0", ".5", ".7976931348623157", ".000001"])
    exponent = st.sampled_from(["", "", "e0", "E+2", "e-5", "e308", "e-324", "E-400"])
    grammar = st.builds(
        lambda sign, i, f, e: sign + i + f + e,
        st.sampled_from(["", "", "-"]),
        integer,
        fraction,
        exponent,
    )
    return st.one_of(grammar, grammar, st.sampled_from(NUMBER_SPELLINGS))


_WS = st.sampled_from(["", "", "", " ", "\t", "\r", " \t"])
"""JSON whitespace (never a newline: it ends the line)."""
_AROUND = st.sampled_from(
    ["", "", "", "", "", "", " ", "\t", "\r", " \t"] * 3 + ["\x0b", "\x0c", "\xa0"]
)
"""Around a line: mostly nothing or JSON whitespace; one in eleven not JSON whitespace."""


def bad_json_tokens() -> st.SearchStrategy[str]:
    """One token SPEC.md 1.4 refuses: a string with a lone surrogate or a bad escape, a number
    outside the grammar or the finite range, a literal JSON does not have, a bad container."""
    return st.one_of(
        json_string_texts(bad=True),
        json_string_texts(bad=True),
        _number_texts(bad=True),
        st.sampled_from(["NaN", "-Infinity", "Infinity", "nul", "True", "[,]", "{,}", "[1,]"]),
    )


def json_texts(depth: int = 2) -> st.SearchStrategy[str]:
    """A JSON value as text, built from the tokens above; objects often repeat a key, so the
    first value is discarded (and must still be judged).  About one leaf in sixteen is invalid
    (a lone surrogate or bad escape in a string, a number outside the grammar, a bad literal),
    so most lines parse and the refusals come one cause at a time."""
    good = st.one_of(
        json_string_texts(),
        json_string_texts(),
        _number_texts(),
        _number_texts(),
        st.sampled_from(["true", "false", "null", "[]", "{}", "-0", "-0.0"]),
    )
    leaves = st.one_of(*[good] * 15, bad_json_tokens())
    named = st.sampled_from(['"a"', '"a"', '"b"', '"\\u0061"'])
    keys = st.one_of(named, named, named, json_string_texts(3), json_string_texts(2, bad=True))

    def containers(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        array = st.lists(st.tuples(_WS, inner), max_size=4).map(
            lambda items: "[" + ",".join(w + v for w, v in items) + "]"
        )
        members = st.lists(st.tuples(keys, _WS, inner), max_size=4).map(
            lambda items: "{" + ",".join(f"{k}:{w}{v}" for k, w, v in items) + "}"
        )
        return st.one_of(array, members)

    return st.recursive(leaves, containers, depth)


def escaped(text: str) -> st.SearchStrategy[str]:
    """``text`` as a JSON string's text with some characters written as \\u escapes (either
    case; a character beyond the BMP as its surrogate pair): the same decoded value."""

    def spell(char: str, escape: bool, upper: bool) -> str:
        if char in '"\\' or ord(char) < 0x20:
            escape = True
        if not escape:
            return char
        units = char.encode("utf-16-be")
        return "".join(
            _u(int.from_bytes(units[i : i + 2], "big"), upper) for i in (0, 2)[: len(units) // 2]
        )

    flags = st.lists(
        st.tuples(st.booleans(), st.booleans()), min_size=len(text), max_size=len(text)
    )
    return flags.map(
        lambda fs: '"' + "".join(spell(c, e, u) for c, (e, u) in zip(text, fs, strict=True)) + '"'
    )


def json_text_lines() -> st.SearchStrategy[bytes]:
    """Request lines built from JSON text: a digest of a value (often after a discarded one), an
    identity op or `resolve` whose string field carries escapes, or an envelope whose ``op`` is
    missing, not a string, unknown or spelled with escapes."""
    value = json_texts()
    string = json_string_texts(6)
    digest = st.builds(
        lambda first, w, v: '{"op":"digest",'
        + (f'"schema":{first},' if first else "")
        + f'"schema":{w}{v}'
        + "}",
        st.one_of(st.just(""), st.just(""), value, bad_json_tokens()),
        _WS,
        value,
    )
    field_ops = st.builds(
        lambda op_field, s: '{"op":"' + op_field[0] + f'","{op_field[1]}":{s}' + "}",
        st.sampled_from(
            [("tool_id_parse", "raw"), ("session_id_parse", "raw"), ("resolve", "wire_name")]
        ),
        st.one_of(
            string,
            string.map(lambda s: '"a:' + s[1:]),
            st.one_of(raw_tool_ids(), session_texts()).flatmap(escaped),
            st.sampled_from(["builtin:read", "a:b", "ext.x-y:z_1", "s1"]).flatmap(escaped),
        ),
    )
    op_values = st.one_of(
        st.sampled_from(['"hello"', '"Hello"', '"hello "', '"h\\u0065llo"', '"nope"', '""']),
        st.sampled_from(["5", "null", "true", '["hello"]', '{"op":"hello"}']),
        value,
    )
    envelope = st.builds(
        lambda members: "{" + ",".join(members) + "}",
        st.lists(
            st.one_of(
                op_values.map(lambda v: '"op":' + v),
                st.builds(lambda k, v: f"{k}:{v}", st.sampled_from(['"x"', '"o\\u0070"']), value),
            ),
            max_size=3,
        ),
    )
    top = st.sampled_from(["digest"] * 5 + ["field"] * 3 + ["envelope", "value"]).flatmap(
        {"digest": digest, "field": field_ops, "envelope": envelope, "value": value}.__getitem__
    )
    return st.builds(lambda a, t, b: a + t + b, _AROUND, top, _AROUND).map(
        lambda t: t.encode("utf-8")
    )


# -- near misses of SPEC.md 1.4's lexical rules, several in one line ---------------------------
# `json_texts` meets each rule at random, so an accepted line rarely holds a surrogate pair at a
# range edge and never holds more than a few dozen brackets.  These lines are built around the
# rules themselves: nesting is counted over brackets *outside* strings, on the whole text (127
# levels), so a line may carry far more than 127 brackets in total (siblings) or inside strings
# (after escaped quotes and backslashes) and still be accepted; a surrogate escape is valid only
# as a high (D800-DBFF) immediately followed by a low (DC00-DFFF), so the edges of both ranges and
# their neighbours, adjacency broken by one character, an escape or a string boundary, and lows
# without a high all sit next to the accepted pairs; a number is refused only when its exact value
# is beyond the largest double.  An accepted line holds several valid constructions; a line with
# a refused one holds exactly one, after (and sometimes before) valid ones, in a kept value, a
# value a repeated key discards, or a key.
_EDGE_HIGHS = (0xD800, 0xD83D, 0xDBFF)
_EDGE_LOWS = (0xDC00, 0xDE00, 0xDFFF)
_BMP_NEIGHBOURS = (0xD7FF, 0xE000, 0xFFFF, 0x0041)
"""Units just outside the surrogate ranges (and a letter): valid alone, never a pair's low."""
_AFTER_ESCAPES = ("\\n", "\\\\", '\\"', "\\/")
_BRACKET_RUNS = (126, 127, 128, 129, 200)
"""Bracket counts around the 127-level bound, inside strings or as siblings."""
_MAX_EXACT = format(Decimal(sys.float_info.max), "f")
"""The exact decimal of the largest finite double (SPEC.md 1.4: accepted, it is in range)."""


def _spell(unit: int, case: int) -> str:
    """A \\u escape with lower (0), upper (1) or mixed-case (2: ``\\udBfF``) hex digits."""
    if case < 2:
        return _u(unit, case == 1)
    return "\\u" + "".join(c.upper() if i % 2 else c for i, c in enumerate(f"{unit:04x}"))


def _valid_escapes() -> st.SearchStrategy[str]:
    """String text that SPEC.md 1.4 accepts: a pair at every range edge, BMP neighbours of the
    ranges alone, a pair followed by another escape or by its string's end."""
    case = st.integers(0, 2)
    pair = st.builds(
        lambda h, lo, c1, c2: _spell(h, c1) + _spell(lo, c2),
        st.sampled_from(_EDGE_HIGHS),
        st.sampled_from(_EDGE_LOWS),
        case,
        case,
    )
    neighbour = st.builds(_spell, st.sampled_from(_BMP_NEIGHBOURS), case)
    after = st.sampled_from(("", "", "x", *_AFTER_ESCAPES, "\\u0041"))
    return st.one_of(
        st.builds(lambda p, a: p + a, pair, after),
        st.builds(lambda p, q: p + q, pair, pair),
        neighbour,
    )


def _refused_escapes() -> st.SearchStrategy[str]:
    """String text with a lone surrogate escape, next to what would pair it: a high followed by
    a non-low (a BMP neighbour, another high, a plain escape; the units just below and above
    the low range on their own branch, so they are not diluted), a high and a low kept
    apart by one character or escape, a low alone or after a low, a low before a high."""
    case = st.integers(0, 2)
    high = st.builds(_spell, st.sampled_from(_EDGE_HIGHS), case)
    low = st.builds(_spell, st.sampled_from(_EDGE_LOWS), case)
    not_low = st.one_of(
        st.builds(_spell, st.sampled_from((*_BMP_NEIGHBOURS, *_EDGE_HIGHS)), case),
        st.sampled_from(_AFTER_ESCAPES),
        st.just(""),
    )
    gap = st.sampled_from(("x", "é", *_AFTER_ESCAPES))
    # The units on either side of the low range, each alone a near miss of a pair's low half.
    beside_lows = st.builds(_spell, st.sampled_from((0xDBFF, 0xE000)), case)
    return st.one_of(
        st.builds(lambda h, n: h + n, high, not_low),
        st.builds(lambda h, n: h + n, high, beside_lows),
        st.builds(lambda h, g, lo: h + g + lo, high, gap, low),
        low,
        low,
        st.builds(lambda a, b: a + b, low, low),
        st.builds(lambda lo, h: lo + h, low, high),
    )


def _bracket_string() -> st.SearchStrategy[str]:
    """String text with a run of brackets around the bound, after an escaped quote or backslash
    (a scan that loses track of the string counts them)."""
    return st.builds(
        lambda before, run, n, after: before + run * n + after,
        st.sampled_from(('\\"', "\\\\", '\\\\\\"', "\\/", "", "\\u0022")),
        st.sampled_from(("[", "{", "]", "}", "[{")),
        st.sampled_from(_BRACKET_RUNS),
        st.sampled_from(("", '\\"', "\\\\")),
    )


def _siblings() -> st.SearchStrategy[str]:
    """A shallow array of empty containers with more brackets in total than the nesting bound."""
    return st.builds(
        lambda unit, n: "[" + ",".join([unit] * n) + "]",
        st.sampled_from(("[]", "{}", "[[]]", '{"a":[]}')),
        st.sampled_from((32, 63, 64, 65, 100)),
    )


_NUMBER_EDGES_VALID = (_MAX_EXACT, "-" + _MAX_EXACT, _MAX_EXACT + ".0", "1.7976931348623157e308")
_NUMBER_EDGES_REFUSED = (*_ABOVE_DOUBLE_MAX, "1e400", "-1e400", _MAX_EXACT + "1", "2e308")


def _valid_items() -> st.SearchStrategy[str]:
    string = st.one_of(_valid_escapes(), _bracket_string()).map(lambda t: '"' + t + '"')
    return st.one_of(string, string, _siblings(), st.sampled_from(_NUMBER_EDGES_VALID))


def _refused_items() -> st.SearchStrategy[str]:
    string = _refused_escapes().map(lambda t: '"' + t + '"')
    split = st.builds(  # a pair split over two strings: adjacent in the text, not in a string
        lambda h, lo: f'"{_u(h, False)}","{_u(lo, False)}"',
        st.sampled_from(_EDGE_HIGHS),
        st.sampled_from(_EDGE_LOWS),
    )
    return st.one_of(
        string,
        string,
        string,
        split.map(lambda t: "[" + t + "]"),
        st.sampled_from(_NUMBER_EDGES_REFUSED),
    )


def _deep(depth: int, leaf: str, prelude: str) -> str:
    """An array ``depth`` levels deep holding ``prelude`` first and the nest after it."""
    inner = "[" * (depth - 1) + leaf + "]" * (depth - 1)
    return "[" + prelude + "," + inner + "]"


def lexical_edge_lines() -> st.SearchStrategy[str]:
    """Digest request lines (text) of the constructions above (see the section comment): a
    value of valid ones, sometimes with one refused one kept, discarded or used as a key; or a
    nest of 124 to 126 schema levels (126 plus the request object is the bound; deeper is left
    open) with a string of escapes and brackets before it and any kind of leaf at the bottom."""
    valid = st.lists(_valid_items(), min_size=1, max_size=4)

    def assemble(items: list[str], refused: str, where: str, late: bool) -> str:
        members = [f'"k{i}":{v}' for i, v in enumerate(items)]
        if where == "kept":
            members.insert(len(members) if late else 0, f'"bad":{refused}')
        elif where == "discarded":
            members.insert(len(members) if late else 0, f'"k0":{refused}')
            if late:  # the repeated key discards the refused value only when it comes later
                members.append('"k0":0')
        else:  # a key: a refused string as the key itself
            members.append(f"{refused}:1" if refused.startswith('"') else f'"bad":{refused}')
        return digest_line("{" + ",".join(members) + "}")

    accepted = valid.map(lambda items: digest_line("[" + ",".join(items) + "]"))
    refused = st.builds(
        assemble,
        valid,
        _refused_items(),
        # mostly discarded: a kept lone surrogate is also refused by a walk over the value
        st.sampled_from(("kept", "discarded", "discarded", "discarded", "key")),
        st.booleans(),
    )
    prelude = st.one_of(_bracket_string(), _valid_escapes()).map(lambda t: '"' + t + '"')
    deep = st.builds(
        _deep,
        st.sampled_from((124, 125, 126, 126)),
        st.sampled_from(("null", "true", "false", '"s"', "0", "-0", "1.5")),
        prelude,
    ).map(digest_line)
    return st.one_of(accepted, accepted, refused, refused, deep)


def escaping_wire_names() -> st.SearchStrategy[str]:
    """Wire names at the 128-byte bound whose characters a denial message must escape (C0 and
    C1 controls take four characters there), followed by multi-byte characters: the message of
    an unknown wire name then grows past PROTOCOL.md's 512-byte bound, and the cut that keeps
    it under lands inside (or next to) a multi-byte character."""
    return st.builds(
        escaping_wire_name,
        st.sampled_from(ESCAPED_CONTROLS),
        st.sampled_from(CONTROL_RUNS),  # uniform: where the cut falls is the message's to say
        st.sampled_from(WIDE_TAILS),
    )


ESCAPED_CONTROLS: Final = ("\x01", "\x1f", "\x7f")
CONTROL_RUNS: Final = range(100, 129)
WIDE_TAILS: Final = ("é", "中", "\U0001f600", "é中\U0001f600")


def escaping_wire_name(control: str, n: int, wide: str) -> str:
    """``n`` controls, then multi-byte characters, cut to 128 bytes on a character boundary."""
    return (control * n + wide * 32).encode()[:128].decode("utf-8", "ignore")
