"""The finite edge families: every case of the generators' finite edge-case lists as fixed
corpus vectors (``vectors/edge-families/``), so that a bug only one case shows is found on every
run: raw lines, SPEC.md 1.4's lexical near misses, escaping and long wire names, runtime names
around the 128-byte bound, and each fault of a record's ``summary`` and ``tags``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final

from ..conform.jsonio import RawLine, encode_line
from ..explore import pools
from ..explore import strategies as gen
from ..explore.protocol_rules import FAULTS, Request

Reply = dict[str, Any]
CHUNK: Final = 100
"""Cases per vector: a conformance run reports the first difference of a vector, so a vector
of a family holds few enough cases that a second bug in it is not hidden for long."""


def _raw_lines() -> list[Request]:
    texts = [gen.digest_line(spelling) for spelling in gen.NUMBER_SPELLINGS]
    texts += gen.RAW_SPELLINGS
    texts += [gen.digest_line("[" * d + "0" + "]" * d) for d in (125, 126)]  # deeper: open
    lines = [RawLine(text.encode("utf-8")) for text in texts]
    return [*lines, *(RawLine(data) for data in gen.INVALID_UTF8_LINES)]


def _refused_strings(case: int) -> list[str]:
    """String texts with a lone surrogate escape next to what would pair it."""
    spell = gen._spell  # the generators' own spelling, so the vectors say what they say
    highs = [spell(h, case) for h in gen._EDGE_HIGHS]
    lows = [spell(lo, case) for lo in gen._EDGE_LOWS]
    not_lows = [
        *(spell(u, case) for u in (*gen._BMP_NEIGHBOURS, *gen._EDGE_HIGHS, 0xDBFF, 0xE000)),
        *gen._AFTER_ESCAPES,
        "",
    ]
    gaps = ["x", "é", *gen._AFTER_ESCAPES]
    out = [h + n for h in highs for n in not_lows]
    out += [h + g + lo for h in highs for g in gaps for lo in lows]
    out += lows
    out += [a + b for a in lows for b in lows]
    out += [lo + h for lo in lows for h in highs]
    return out


def _accepted_strings(case: int) -> list[str]:
    """String texts SPEC.md 1.4 accepts: a pair at every edge, with what may follow it."""
    spell = gen._spell
    pairs = [spell(h, case) + spell(lo, case) for h in gen._EDGE_HIGHS for lo in gen._EDGE_LOWS]
    after = ["", "x", *gen._AFTER_ESCAPES, "\\u0041"]
    out = [p + a for p in pairs for a in after]
    out += [p + q for p in pairs[:3] for q in pairs]
    out += [spell(u, case) for u in gen._BMP_NEIGHBOURS]
    return out


def _lexical() -> list[Request]:
    lines: list[str] = []
    for case in (0, 1, 2):  # lower, upper and mixed-case hex (`strategies._spell`)
        for text in _refused_strings(case):
            item = '"' + text + '"'
            lines.append('{"k0":0,"bad":' + item + "}")  # kept
            lines.append('{"k0":' + item + ',"k0":0}')  # discarded by a later repeated key
            lines.append("{" + item + ":1}")  # a key
        lines += ['["' + text + '"]' for text in _accepted_strings(case)]
    for high in gen._EDGE_HIGHS:  # a pair split over two strings
        for low in gen._EDGE_LOWS:
            lines.append('["' + gen._u(high, False) + '","' + gen._u(low, False) + '"]')
    numbers = [*gen._NUMBER_EDGES_VALID, *gen._NUMBER_EDGES_REFUSED]
    lines += ["[" + n + "]" for n in numbers]
    lines += ['{"k0":' + n + ',"k0":0}' for n in numbers]
    for before in ('\\"', "\\\\", "\\/", ""):  # brackets in a string, around the bound
        for run in ("[", "{", "]", "}"):
            for n in gen._BRACKET_RUNS:
                lines.append('["' + before + run * n + '"]')
    for unit in ("[]", "{}", "[[]]"):  # more brackets in total than the bound, shallow
        for n in (63, 64, 65):
            lines.append("[" + ",".join([unit] * n) + "]")
    return [RawLine(gen.digest_line(text).encode("utf-8")) for text in lines]


def _wire_names() -> list[Request]:
    names = [
        gen.escaping_wire_name(control, n, wide)
        for control in gen.ESCAPED_CONTROLS
        for wide in gen.WIDE_TAILS
        for n in gen.CONTROL_RUNS
    ]
    names += ["x" * 129, "é" * 65, "a" + "é" * 64, "y" * 300]
    return [{"op": "resolve", "wire_name": name} for name in names]


LONG_RUNTIME_NAMES: Final = (
    *("w" * n for n in (127, 128, 129, 200)),
    *("é" * n for n in (63, 64, 65)),
    *("w" * n + "é" for n in (126, 127)),
)
"""Runtime names around the 128-byte wire-name bound (`strategies.runtime_names`' long ones)."""


def _insert(name: str, tool_id: str) -> Reply:
    """A ``catalog_insert`` of a builtin ``name`` as ``tool_id``, every field valid."""
    return {
        "op": "catalog_insert",
        "source": {"kind": "builtin", "name": name},
        "provenance": {"kind": "builtin_runtime"},
        "schema": pools.SCHEMAS[0],
        "id": tool_id,
    }


def _long_runtime_names() -> list[Request]:
    out: list[Request] = [
        {**_insert(f"edge{index}", f"wild:edge{index}"), "runtime_name": name}
        for index, name in enumerate(LONG_RUNTIME_NAMES)
    ]
    return out + [{"op": "resolve", "wire_name": name} for name in LONG_RUNTIME_NAMES]


def _record_fields() -> list[Request]:
    base = _insert("edge", "wild:fields")
    out: list[Request] = []
    for field, kind in (("summary", "opt_str"), ("tags", "opt_strs")):
        for fault in FAULTS[kind]:
            out.append({**base, field: fault})
            out.append({**base, "op": "catalog_upsert", "replaced": None, field: fault})
    return out


def _distinct(cases: list[Request]) -> list[Request]:
    """The cases without repeats (by the line sent), in order: the products above spell some
    cases twice (a unit whose hex has no letter in an odd place reads the same in every case,
    an escaping wire name whose cut falls before its tail is the same for every tail)."""
    seen: set[bytes] = set()
    out: list[Request] = []
    for case in cases:
        line = case.data if isinstance(case, RawLine) else encode_line(case)
        if line not in seen:
            seen.add(line)
            out.append(case)
    return out


def families() -> dict[str, list[Request]]:
    """Each family's distinct cases, in the order they are sent."""
    return {
        "raw lines": _distinct(_raw_lines()),
        "lexical": _distinct(_lexical()),
        "wire names": _distinct(_wire_names()),
        "long runtime names": _distinct(_long_runtime_names()),
        "record fields": _distinct(_record_fields()),
    }


STATEFUL: Final = frozenset({"long runtime names"})
"""Families whose cases build on each other: one vector, not cut into chunks."""


def chunks() -> Iterator[tuple[str, int, Sequence[Request]]]:
    """Each vector's cases: its family, the index of its first case there, its cases."""
    for name, cases in families().items():
        size = len(cases) if name in STATEFUL else CHUNK
        for start in range(0, len(cases), size):
            yield name, start, cases[start : start + size]
