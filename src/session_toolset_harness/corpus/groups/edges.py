"""Edges of SPEC.md 1.4 values that a request can carry: ``false``, the integer range's
boundaries, the deepest nesting every implementation must accept inside a request, strings that
look like structure to a bracket counter, and long flat documents.

Expected digests come from the builder's own SPEC.md 1.4 rendering (:mod:`..spec`), never from an
implementation.  Depth: SPEC.md 1.4 says nesting up to 127 levels must be accepted (deeper may be
refused).  A request carries its value one level down (``{"op": "digest", "schema": ...}``), so a
schema of 126 levels keeps the whole request line within 127: accepted whichever of the two an
implementation counts.  Nothing deeper is sent, since refusing it is allowed.
"""

from __future__ import annotations

import sys

from session_toolset_harness.corpus.dsl import DECLARED_DIFFERENCE, Json, Vector
from session_toolset_harness.corpus.spec import I64_MIN, U64_MAX, digest

G = "edges"

#: The deepest schema sent: 126 levels, so the request line is 127 levels deep.
DEPTH = 126


def _distinct(v: Vector, schemas: list[Json]) -> Vector:
    """Every schema in ``schemas`` is accepted and has its own digest (pairwise different)."""
    seen = {digest(s) for s in schemas}
    assert len(seen) == len(schemas), schemas
    for schema in schemas:
        v.ok("digest", {"digest": digest(schema)}, schema=schema)
    return v


def _nest_arrays(leaf: Json, levels: int) -> Json:
    """``leaf`` inside ``levels`` arrays (a scalar leaf adds no level)."""
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


def _nest_objects(leaf: Json, levels: int, key: str = "k") -> Json:
    value = leaf
    for _ in range(levels):
        value = {key: value}
    return value


def _false() -> Vector:
    v = Vector(
        f"{G}/booleans",
        "false is byte 1 then byte 0, true byte 1 then byte 1: both differ from each other, "
        "from null, 0, 0.0, the empty string and the empty containers, at the top and nested.",
        ("digest", "canonical", "boundary"),
    )
    return _distinct(
        v,
        [False, True, None, 0, 0.0, "", [], {}, [False], [True], {"f": False}, {"f": True}],
    )


def _integer_edges() -> Vector:
    v = Vector(
        f"{G}/integer-edges",
        "Both ends of the integer range [-2^63, 2^64-1] and their neighbours inside stay "
        "integers (decimal text); one step outside becomes a double.",
        ("digest", "numbers", "boundary"),
    )
    return _distinct(
        v,
        [
            U64_MAX,
            U64_MAX - 1,
            U64_MAX + 1,
            I64_MIN,
            I64_MIN + 1,
            I64_MIN - 1,
            2**63 - 1,
            2**63,
            -(2**62),
            0,
            [U64_MAX, I64_MIN],
            {"min": I64_MIN, "max": U64_MAX},
        ],
    )


def _deepest() -> Vector:
    v = Vector(
        f"{G}/deepest-nesting",
        f"Schemas nested {DEPTH} levels (arrays, objects, both alternating) are accepted: the "
        f"request line is then {DEPTH + 1} levels deep, within SPEC.md's 127.  Each has its own "
        "digest, so the nesting is really read.",
        ("digest", "canonical", "boundary"),
    )
    mixed: Json = 0
    for level in range(DEPTH):
        mixed = [mixed] if level % 2 else {"m": mixed}
    return _distinct(
        v,
        [
            _nest_arrays(None, DEPTH),
            _nest_arrays(None, DEPTH - 1),
            _nest_objects(None, DEPTH),
            _nest_objects([], DEPTH - 1),
            mixed,
            _nest_arrays([1, [2], {"x": [3]}], DEPTH - 3),
        ],
    )


def _structure_in_strings() -> Vector:
    v = Vector(
        f"{G}/brackets-in-strings",
        "Brackets, braces, quotes and backslashes inside strings (values and keys) are text, not "
        f"structure: at {DEPTH} levels of real nesting a string full of '[' or '{{' after an "
        "escaped quote or backslash must not count as deeper nesting, and one full of ']' must "
        "not count as shallower.",
        ("digest", "canonical", "boundary", "hostile"),
    )
    leaves = [
        'a"[[[[{{{{',
        '"[[[[',
        '\\"[[[[',
        '\\\\"{{{{',
        "\\",
        "\\[[[[",
        "]]]]}}}}",
        '"]]]]',
    ]
    schemas: list[Json] = [_nest_arrays(leaf, DEPTH) for leaf in leaves]
    schemas.append(_nest_objects("x", DEPTH, key='k"[[[[{{{{'))
    schemas.append(_nest_objects("x", DEPTH, key="k\\\\[[[["))
    return _distinct(v, schemas)


def _flat() -> Vector:
    v = Vector(
        f"{G}/long-flat-documents",
        "Hundreds of sibling containers are two levels deep, not hundreds: closing brackets "
        "end their level.",
        ("digest", "canonical", "boundary"),
    )
    return _distinct(
        v,
        [
            [[] for _ in range(300)],
            [{} for _ in range(300)],
            [[[]] for _ in range(200)],
            {f"k{i:03}": [i] for i in range(300)},
            [_nest_arrays(0, 100), _nest_arrays(1, 100), _nest_arrays(2, 100)],
        ],
    )


#: The exact value of the largest finite double, as an integer literal (309 digits).
FLOAT_MAX_INT = int(sys.float_info.max)
#: Halfway between the largest double and 2^1024: rounds to infinity (ties to even).
HALFWAY_TO_INFINITY = 2**1024 - 2**970


def _double_range() -> Vector:
    v = Vector(
        f"{G}/finite-double-range",
        "The exact decimal of the largest finite double (309 digits) is a literal inside the "
        "finite double range, so it is accepted as that double (also negated, and nested), with "
        "the digest of the largest double. A declared difference (SPEC.md 1.4): the original's "
        "parser overflows on it; edges/beyond-double-range holds the refusals every "
        "implementation shares.",
        ("digest", "numbers", "boundary", DECLARED_DIFFERENCE),
    )
    assert float(FLOAT_MAX_INT) == sys.float_info.max
    assert digest(FLOAT_MAX_INT) == digest(sys.float_info.max)
    for value in [FLOAT_MAX_INT, -FLOAT_MAX_INT, [FLOAT_MAX_INT]]:
        v.ok("digest", {"digest": digest(value)}, schema=value)
    return v


#: Long decimal literals the nearest double of which a parser that rounds twice (the digits to a
#: double, then a power of ten applied) misses by one ulp: one a random exploration drew, and the
#: two the original implementation recorded as notes (reference/digest.json).
ROUNDING_LITERALS = ("14575064.835512457", "9007199254740993.0", "123456789012345680000.0")


def _long_literal_rounding() -> Vector:
    v = Vector(
        f"{G}/long-literal-rounding",
        "A long decimal literal is the double nearest its exact value, rounded once (SPEC.md "
        "1.4): 14575064.835512457, 9007199254740993.0 and 123456789012345680000.0 have the "
        "digests of those nearest doubles, alone and nested. A declared difference (SPEC.md "
        "1.4): the original's parser rounds twice and lands one ulp off on each.",
        ("digest", "numbers", DECLARED_DIFFERENCE),
    )
    for text in ROUNDING_LITERALS:
        nearest = float(text)  # Python's float() rounds correctly
        v.line('{"op":"digest","schema":' + text + "}", {"ok": True, "digest": digest(nearest)})
        nested = '{"op":"digest","schema":{"x":[' + text + "]}}"
        v.line(nested, {"ok": True, "digest": digest({"x": [nearest]})})
    return v


def _beyond_double_range() -> Vector:
    v = Vector(
        f"{G}/beyond-double-range",
        "Integer literals beyond [-2^63, 2^64-1] become doubles, rounded correctly (10^300 and "
        "-(10^300)-1 are accepted), while any literal whose value is beyond the largest finite "
        "double - by one, by half an ulp, by far - is not valid input (SPEC.md 1.4), a Protocol "
        "error even when it would round down to the largest double, and changes nothing.",
        ("digest", "numbers", "boundary"),
    )
    assert float(FLOAT_MAX_INT + 1) == sys.float_info.max  # rounds down, yet beyond the range
    for value in [10**300, -(10**300) - 1]:
        v.ok("digest", {"digest": digest(value)}, schema=value)
    refused: list[Json] = [
        FLOAT_MAX_INT + 1,
        -FLOAT_MAX_INT - 1,
        HALFWAY_TO_INFINITY,
        10**309,
        {"deep": [1, FLOAT_MAX_INT + 1]},
    ]
    for value in refused:
        v.protocol({"op": "digest", "schema": value})
    return v.ok("catalog_state", {"generation": 0, "records": []})


def _lone_surrogates() -> Vector:
    v = Vector(
        f"{G}/lone-surrogates",
        "A lone surrogate escape is not valid input (SPEC.md 1.4): a request carrying one - in a "
        "value, a key, a nested string, an id field - is a Protocol error, whatever else it "
        "holds, and changes nothing; a proper pair is a character like any other.",
        ("digest", "unicode", "hostile"),
    )
    for schema in ("\ud800", "a\udfff", ["ok", "\ud83d"], {"\udc00": 1}, {"k": {"x": "\ud800b"}}):
        v.protocol({"op": "digest", "schema": schema})
    v.protocol({"op": "set_new", "name": "A", "session": "s\ud800", "core": []})
    v.protocol({"op": "set_new", "name": "A\udc00", "session": "s", "core": []})
    v.fail("snapshot", "Protocol", set="A")
    v.ok("catalog_state", {"generation": 0, "records": []})
    return v.ok("digest", {"digest": digest("\U0001f600")}, schema="\U0001f600")


def vectors() -> list[Vector]:
    return [
        _false(),
        _integer_edges(),
        _double_range(),
        _long_literal_rounding(),
        _beyond_double_range(),
        _deepest(),
        _structure_in_strings(),
        _flat(),
        _lone_surrogates(),
    ]
