"""SPEC.md 1.4 SchemaDigest: canonical, length-framed encoding, hashed with SHA-256.

Expected digests are computed by the builder's own small implementation of SPEC.md 1.4
(:mod:`session_toolset_harness.corpus.spec`), which the corpus tests cross-check against every row
of the recorded ``digest.json``.
"""

from __future__ import annotations

from session_toolset_harness.corpus.dsl import P_BUILTIN, Json, Rec, Vector, insert, src_builtin
from session_toolset_harness.corpus.spec import digest

G = "digest"


def _same(v: Vector, schemas: list[Json]) -> Vector:
    """Every schema in ``schemas`` must have one and the same digest."""
    expected = digest(schemas[0])
    for schema in schemas:
        assert digest(schema) == expected
        v.ok("digest", {"digest": expected}, schema=schema)
    return v


def _distinct(v: Vector, schemas: list[Json]) -> Vector:
    """Every schema in ``schemas`` has its own digest (pairwise different)."""
    seen = {digest(s) for s in schemas}
    assert len(seen) == len(schemas), schemas
    for schema in schemas:
        v.ok("digest", {"digest": digest(schema)}, schema=schema)
    return v


def _key_order() -> Vector:
    v = Vector(
        f"{G}/key-order",
        "Object members are encoded in ascending byte-wise key order: insertion order is "
        "irrelevant, at every nesting level.",
        ("digest", "canonical"),
    )
    _same(
        v,
        [
            {"type": "object", "properties": {"a": {"type": "string"}, "b": {"x": 1, "y": 2}}},
            {"properties": {"b": {"y": 2, "x": 1}, "a": {"type": "string"}}, "type": "object"},
        ],
    )
    return _same(v, [{"b": 1, "a": 2, "c": 3}, {"c": 3, "a": 2, "b": 1}, {"a": 2, "c": 3, "b": 1}])


def _int_vs_double() -> Vector:
    v = Vector(
        f"{G}/int-vs-double",
        "1 and 1.0 are different values: an integer literal stays an integer, a fraction is a "
        "double printed with '.0'.",
        ("digest", "canonical", "numbers"),
    )
    return _distinct(
        v, [1, 1.0, {"n": 1}, {"n": 1.0}, [0], [0.0], 100, 100.0, "1", True, None, 1.5]
    )


def _negative_zero() -> Vector:
    v = Vector(
        f"{G}/negative-zero",
        "-0.0 is a double printed '-0.0', distinct from 0.0 and from the integer 0.",
        ("digest", "canonical", "numbers"),
    )
    return _distinct(v, [0, 0.0, -0.0, [-0.0], {"z": -0.0}, {"z": 0.0}])


def _nested() -> Vector:
    v = Vector(
        f"{G}/nested",
        "Nesting is framed: arrays keep order, structures of equal flattening differ.",
        ("digest", "canonical"),
    )
    deep: Json = "leaf"
    for _ in range(100):
        deep = [deep]
    deep_obj: Json = 0
    for _ in range(100):
        deep_obj = {"k": deep_obj}
    _distinct(
        v,
        [
            [],
            {},
            [[]],
            [{}],
            [1, 2],
            [2, 1],
            [[1], 2],
            [1, [2]],
            {"a": [1, 2]},
            {"a": {"b": None}},
            {"a": "b"},
            {"ab": ""},
            ["ab"],
            ["a", "b"],
            deep,
            deep_obj,
        ],
    )
    return v


def _unicode_keys() -> Vector:
    v = Vector(
        f"{G}/unicode-keys",
        "Keys sort by UTF-8 bytes (not UTF-16 units, not code points of a normalized form); "
        "strings are hashed as raw UTF-8 bytes, NUL and controls included.",
        ("digest", "canonical", "unicode"),
    )
    # U+FFFF (ef bf bf) sorts before U+1F600 (f0 9f 98 80) by bytes, after it by UTF-16 units.
    _same(v, [{"\uffff": 1, "\U0001f600": 2}, {"\U0001f600": 2, "\uffff": 1}])
    _same(v, [{"\u00e9": 1, "z": 2, "Z": 3}, {"Z": 3, "z": 2, "\u00e9": 1}])
    return _distinct(
        v,
        [
            "\u00e9",
            "e\u0301",
            "\u0000",
            "\u001b[31m",
            "\u0085",
            "\U0001f600",
            {"\u00e9": "\u00e9"},
            {"": ""},
            {"a\u0000": 1},
        ],
    )


def _number_range() -> Vector:
    v = Vector(
        f"{G}/integer-range",
        "Integers in [-2^63, 2^64-1] print in decimal; just outside they become doubles.",
        ("digest", "numbers", "boundary"),
    )
    return _distinct(
        v,
        [
            2**64 - 1,
            2**64,
            -(2**63),
            -(2**63) - 1,
            2**63,
            -1,
            10**30,
        ],
    )


def _float_layout() -> Vector:
    v = Vector(
        f"{G}/float-layout",
        "Doubles print as ryu does: plain with '.0' for exponent positions 1..16, '0.000ddd' "
        "down to 1e-5, scientific with no '+' and no leading zeros otherwise.",
        ("digest", "numbers"),
    )
    return _distinct(
        v,
        [
            1e15,
            1e16,
            1e17,
            0.1,
            0.00001,
            0.000001,
            1e-7,
            1.5e300,
            -2.5,
            123456789.125,
            5e-324,
            1.7976931348623157e308,
            0.30000000000000004,
        ],
    )


def _record_digest() -> Vector:
    v = Vector(
        f"{G}/record-digest",
        "A record's digest (catalog_state, grants) is the digest op's value for its schema.",
        ("digest", "catalog"),
    )
    schema: Json = {"b": [1, 1.0, -0.0, None, True], "a": {"\u00e9": "x"}}
    rec = Rec(src_builtin("t"), P_BUILTIN, schema)
    v.ok("digest", {"digest": digest(schema)}, schema=schema)
    insert(v, rec, 1)
    v.ok("catalog_state", {"generation": 1, "records": [rec.state()]})
    v.ok("issue_grant", {"grant": rec.grant("s", 1)}, name="g", session="s", tool=rec.id)
    return v


def vectors() -> list[Vector]:
    return [
        _key_order(),
        _int_vs_double(),
        _negative_zero(),
        _nested(),
        _unicode_keys(),
        _number_range(),
        _float_layout(),
        _record_digest(),
    ]
