"""Hypothesis strategies for the whole protocol: identities near every byte budget, sessions
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
from typing import Any, Final, Literal

import hypothesis.strategies as st

BUDGETS = (57, 60, 64, 128, 200, 256)
_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_REST = _LOWER + "_.-"
_SURROGATES: Final[tuple[Literal["Cs"]]] = ("Cs",)


def _near(budget: int) -> st.SearchStrategy[int]:
    """A length on or next to a budget, or to the longest raw text whose hex still fits."""
    hex_fit = (budget - 4) // 2
    return st.sampled_from(
        sorted({1, budget - 1, budget, budget + 1, hex_fit, hex_fit + 1, hex_fit - 1} - {0})
    )


def canonical(length: int) -> st.SearchStrategy[str]:
    return st.builds(
        lambda first, rest: first + rest,
        st.sampled_from(_LOWER),
        st.text(alphabet=_REST, min_size=max(length - 1, 0), max_size=max(length - 1, 0)),
    )


def unicode_text(min_size: int = 0, max_size: int = 20) -> st.SearchStrategy[str]:
    # Without the surrogates this is exactly what UTF-8 encodes; ``codec="utf-8"`` would say so
    # again at the cost of Hypothesis scanning the codec (~2.6 s in every new interpreter).
    return st.text(
        alphabet=st.characters(exclude_categories=_SURROGATES),
        min_size=min_size,
        max_size=max_size,
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
    matching = {
        "builtin": {"kind": "builtin_runtime"},
        "extension": {"kind": "extension_manifest", "extension_id": owner},
        "mcp": {"kind": "mcp_config", "server_id": owner},
        "plugin": {"kind": "plugin_config", "plugin_id": owner},
        "unknown": {"kind": "builtin_runtime"},
    }[source["kind"]]
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


def raw_tool_ids() -> st.SearchStrategy[str]:
    """ToolId texts around every rule of `ToolId.parse` (valid ones included)."""

    def joined(ns_len: int, name_len: int) -> st.SearchStrategy[str]:
        return st.builds(lambda a, b: f"{a}:{b}", canonical(ns_len), canonical(name_len))

    lengths = st.tuples(
        st.sampled_from([1, 63, 64, 65, 71, 72]), st.sampled_from([1, 127, 128, 129])
    )
    return st.one_of(
        st.sampled_from(["builtin:read", "a:b", "ext.x-y:z_1", "0:0", "a.b-c_d:e.f-g_h"]),
        lengths.flatmap(lambda p: joined(*p)),
        st.sampled_from(
            [
                "",
                ":",
                "a:",
                ":a",
                "a:b:c",
                "A:b",
                "a:B",
                "-a:b",
                "a:_b",
                "a.b:c-d",
                "enc-x:sha-y",
                "a: b",
                " a:b",
                "a:b ",
            ]
        ),
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


_INT_EDGES = [
    0,
    1,
    -1,
    2**53,
    2**53 + 1,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64 - 1,
    2**64,
    10**20,
    -(10**20),
]
_DOUBLE_EDGES = [
    0.0,
    -0.0,
    1.0,
    0.1,
    1e15,
    1e16,
    9.999999999999999e15,
    1e-5,
    1e-4,
    1.5e-5,
    1e-6,
    1e-7,
    123.456,
    5e-324,
    2.2250738585072014e-308,
    sys.float_info.max,
    -sys.float_info.max,
    1.8446744073709552e19,
    0.30000000000000004,
]


def json_values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """JSON values at the canonical encoding's edges (numbers, Unicode and escaped keys)."""
    numbers = st.one_of(
        st.sampled_from(_INT_EDGES),
        st.integers(-(2**70), 2**70),
        st.sampled_from(_DOUBLE_EDGES),
        st.floats(allow_nan=False, allow_infinity=False),
    )
    keys = st.one_of(
        st.sampled_from(["", "a", "b", "A", "é", "\u0000", '"', "\\", "a/b", "\U0001f600"]),
        unicode_text(0, 6),
    )
    leaves = st.one_of(st.none(), st.booleans(), numbers, unicode_text(0, 10))
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)
        ),
        max_leaves=max_leaves,
    )


def nested(depth: int, leaf: Any = 1) -> Any:
    value: Any = leaf
    for level in range(depth):
        value = [value] if level % 2 == 0 else {"k": value}
    return value


NUMBER_SPELLINGS = [
    "-0",
    "-0.0",
    "0e0",
    "1E2",
    "1e+2",
    "1.0e-0",
    "100e-2",
    "1.5E-7",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "1e400",
    "-1e400",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "01",
    "1.",
    ".5",
    "+1",
    "NaN",
    "Infinity",
    "0.1e1",
    "123456789012345678901234567890",
]


def digest_line(schema_text: str) -> str:
    return '{"op":"digest","schema":' + schema_text + "}"


def raw_lines() -> st.SearchStrategy[bytes]:
    """Request lines a JSON object cannot express: spellings, repeated keys, escapes, bad text."""
    spelled = st.sampled_from(NUMBER_SPELLINGS).map(digest_line)
    repeated = st.sampled_from(
        [
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
            '{"op":"hello",}',
            '["op","hello"]',
            "",
            "   ",
            "null",
            '{"op":"hello","x":[1,]}',
            '{"op":"digest","schema":"a\tb"}',
        ]
    )
    deep = st.sampled_from([125, 126]).map(lambda d: digest_line("[" * d + "0" + "]" * d))
    value = json_values(6).map(lambda v: digest_line(json.dumps(v, ensure_ascii=True)))
    text = st.one_of(spelled, repeated, deep, value).map(lambda t: t.encode("utf-8"))
    invalid_utf8 = st.sampled_from(
        [
            b'{"op":"hello","x":"\xff"}',
            b'{"op":"hello","x":"\xc3"}',
            b'{"op":"hello","x":"\xed\xa0\x80"}',
            b"\xef\xbb\xbf{}",
        ]
    )
    return st.one_of(text, invalid_utf8)


def runtime_names() -> st.SearchStrategy[str]:
    """Runtime names whose aliases collide (same safe form) or sit at the 64-byte cut."""
    stems = st.sampled_from(["read", "Read", "re.ad", "re-ad", "re ad", "re_ad", "read_2", "ré"])
    cut = st.sampled_from([62, 63, 64, 65, 70]).map(lambda n: "r" * n)
    return st.one_of(stems, cut, cut.map(lambda s: s + "_2"), unicode_text(1, 12))
