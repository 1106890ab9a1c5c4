"""The request side of the explore machine: how a request is answered by the expected world and
encoded for the SUT, the PROTOCOL.md field rows with their faults (the first faulty field in row
order decides), and the strategies the whole-protocol rules draw from."""

from __future__ import annotations

from typing import Any, Final

from session_toolset_model.world import World
from session_toolset_model.world.json_text import INT_MAX, INT_MIN

from ..conform.jsonio import RawLine, encode_value_line
from . import draw as st
from . import pools
from . import strategies as gen

Reply = dict[str, Any]
Request = Reply | RawLine


def expected_reply(world: World, request: Request) -> Reply:
    """The world's reply to a request object or a raw line."""
    if isinstance(request, RawLine):
        return world.handle_line(request.data)
    return world.handle(request)


PLAIN_DEPTH: Final = 32
"""Containers nested deeper than this take the world's text parser (SPEC.md's depth bound is the
parser's to apply)."""


def plain(value: object, depth: int = 0) -> bool:
    """A value the world's JSON text parser gives back unchanged from its compact UTF-8 encoding:
    strings (their line went out as raw UTF-8, so none holds a lone surrogate), booleans, null,
    integers within SPEC.md 1.4's integer range (others parse as doubles), and objects with
    string keys and arrays of those, shallowly nested.  Floats are not plain (``-0.0``, rounding
    and range are the parser's to decide)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return INT_MIN <= value <= INT_MAX  # type: ignore[operator]
    if depth >= PLAIN_DEPTH:
        return False
    if kind is dict:
        items = value.items()  # type: ignore[attr-defined]
        return all(type(k) is str and plain(v, depth + 1) for k, v in items)
    if kind is list:
        return all(plain(v, depth + 1) for v in value)  # type: ignore[attr-defined]
    return False


def expect_and_encode(world: World, request: Request) -> tuple[Reply, bytes]:
    """The world's reply to a request and the line the SUT is sent (newline-terminated), with
    the request encoded once.  A plain request (`plain`, raw UTF-8) is answered as the parsed
    value it is, without the world re-parsing its own encoding character by character: the
    parser would give back an equal value, so the reply is the one `World.handle` gives
    (`tests/explore/test_expect_fast.py` checks both paths agree on every request of a run)."""
    if isinstance(request, RawLine):
        return world.handle_line(request.data), request.data + b"\n"
    line, utf8 = encode_value_line(request)
    if utf8 and plain(request):
        return world.answer(request), line
    return world.handle_line(line[:-1]), line


def op_name(request: Request) -> str:
    """The op a request names, for coverage and messages (``send_line`` for raw lines)."""
    if isinstance(request, RawLine):
        return "send_line"
    op = request.get("op")
    return op if isinstance(op, str) else "?"


# -- requests with faulty fields ---------------------------------------------------------------
def _rows(text: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """``op field:kind ...`` a line (``field`` alone: its kind is its name; an indented line
    continues the op above)."""
    rows: dict[str, list[tuple[str, str]]] = {}
    op = ""
    for line in text.strip("\n").split("\n"):
        words = line.split()
        op = op if line.startswith(" ") else words.pop(0)
        fields = [(w.partition(":")[0], w.partition(":")[2] or w) for w in words]
        rows.setdefault(op, []).extend(fields)
    return {op: tuple(fields) for op, fields in rows.items()}


ROWS: Final = _rows("""
tool_id_parse raw:tool
tool_id source
session_id_parse raw:session
digest schema:any
catalog_insert source provenance schema:any id:opt_tool
    runtime_name:opt_str summary:opt_str tags:opt_strs
catalog_upsert replaced:tool_or_null source provenance schema:any
    id:opt_tool runtime_name:opt_str summary:opt_str tags:opt_strs
catalog_remove id:tool
catalog_rebase_past prior:u64
catalog_set_generation value:u64
factory_calls tool
issue_grant name:str session tool
forge_grant name:str session:grant_session tool generation:u64 digest:str
set_new name:str session core:tools
set_default_core name:str session
set_progressive_core name:str session
activate set grant
activate_many set grants
activate_user set tool
activate_model set authority tools
revoke set tool
rebuild set into:str progressive:bool carry_forward:opt_bool
route set:set_or_null into:str fallback_session:session
is_stale set
snapshot set
resolve wire_name:str
authorize set tool wire_name:opt_str
authorize_wire set wire_name:str
carry_forward_enabled env:str_or_null
""")
"""Each op's fields in PROTOCOL.md row order, with the kind of value each holds."""
_MISSING: Final = object()
_HOSTILE_ID: Final = "Builtin:read"
_HOSTILE_SESSION: Final = "a\nb"
FAULTS: Final[dict[str, tuple[Any, ...]]] = {
    "tool": (_MISSING, None, 5, _HOSTILE_ID, ""),
    "tool_or_null": (_MISSING, 5, _HOSTILE_ID),
    "opt_tool": (None, 5, _HOSTILE_ID),
    # a list is typed as a whole before its elements are parsed, then parsed in list order
    "tools": (
        _MISSING,
        None,
        "builtin:read",
        [5],
        ["builtin:read", _HOSTILE_ID],
        [_HOSTILE_ID, 5],
        [_HOSTILE_ID, ""],
    ),
    "session": (_MISSING, None, 5, _HOSTILE_SESSION, ""),
    "grant_session": (_MISSING, None, 5, _HOSTILE_SESSION, "s" * 257),
    "str": (_MISSING, None, 5, ["A"]),
    "str_or_null": (_MISSING, 5, False),
    "opt_str": (None, 5),
    "opt_strs": (None, "t", [1], ["t", 1]),
    "set": (_MISSING, None, 5, "nope"),
    "set_or_null": (_MISSING, 5, "nope"),
    "grant": (_MISSING, None, 5, "never-stored"),
    "grants": (_MISSING, None, "g1", [5], ["never-stored"], ["never-stored", 5]),
    "u64": (_MISSING, None, -1, 2**64, 1.0, "1", True),
    "bool": (_MISSING, None, 1, "true"),
    "opt_bool": (None, 1),
    "any": (_MISSING,),
    "source": (
        _MISSING,
        None,
        "builtin:read",
        {"kind": "martian"},
        {"kind": "builtin"},
        {"kind": "mcp", "server_id": 1, "server_tool_name": "x"},
    ),
    "provenance": (_MISSING, None, {"kind": "root"}, {"kind": "mcp_config"}),
    "authority": (_MISSING, None, 5, "root"),
}


# Strategies built once: building them inside a rule costs more than drawing from them.
SOURCES: Final = gen.sources()
RAW_TOOL_IDS: Final = gen.raw_tool_ids()
RAW_TOOL_IDS_OR_JUNK: Final = st.one_of(RAW_TOOL_IDS, st.sampled_from([5, None]))
SESSION_TEXTS: Final = gen.session_texts()
SCHEMAS: Final = gen.json_values(2)
JSON_VALUES: Final = gen.json_values()
RAW_LINES: Final = gen.raw_lines()
JSON_TEXT_LINES: Final = gen.json_text_lines()
RUNTIME_NAMES: Final = gen.runtime_names()
ESCAPING_WIRE_NAMES: Final = gen.escaping_wire_names()
LEXICAL_EDGE_LINES: Final = gen.lexical_edge_lines()
COLLIDING_NAMES: Final = gen.colliding_runtime_names()
SUMMARIES: Final = gen.unicode_text(0, 300)
TAGS: Final = st.lists(gen.unicode_text(0, 40), max_size=10)
SHORT_TEXT: Final = gen.unicode_text(0, 20)
WILD_OPS: Final = st.sampled_from(
    [
        "issue_grant",
        "activate_user",
        "authorize",
        "authorize",
        "revoke",
        "activate_model",
        "set_new",
        "factory_calls",
    ]
)
IDENTITY_SWEEP: Final = (
    "hello",
    "tool_id_parse",
    "tool_id",
    "session_id_parse",
    "carry_forward_enabled",
    "forge_grant",
)
PURE_CANDIDATES: Final[dict[str, st.SearchStrategy[Reply]]] = {
    "tool_id_parse": st.one_of(RAW_TOOL_IDS, st.sampled_from([5, None])).map(
        lambda raw: {"op": "tool_id_parse", "raw": raw}
    ),
    "tool_id": SOURCES.map(lambda source: {"op": "tool_id", "source": source}),
    "session_id_parse": SESSION_TEXTS.map(lambda raw: {"op": "session_id_parse", "raw": raw}),
    "carry_forward_enabled": st.sampled_from([None, "0", "00", "", " 0", "0 ", "1", "false"]).map(
        lambda env: {"op": "carry_forward_enabled", "env": env}
    ),
}
"""Candidates for the identity ops answered from their fields alone."""
HOSTILE_IDS: Final = st.one_of(
    [st.sampled_from(group) for group in pools.by_error(pools.HOSTILE_TOOL_IDS).values()]
)
HOSTILE_SESSIONS: Final = st.one_of(
    [st.sampled_from(group) for group in pools.by_error(pools.SESSION_CASES).values()]
)
"""The pools' hostile texts, drawn error class first so every expected code is about equally
likely."""
_HOSTILE_IDS_IN_LIST: Final = HOSTILE_IDS.map(lambda raw: ["builtin:read", raw])
HOSTILE: Final = {
    **dict.fromkeys(("tool", "tool_or_null", "opt_tool"), HOSTILE_IDS),
    "tools": _HOSTILE_IDS_IN_LIST,
    **dict.fromkeys(("session", "grant_session"), HOSTILE_SESSIONS),
}
"""Hostile values per identity field kind: a faulty identity field draws one half the time, the
deciding field of a hostile request always."""
HOSTILE_OPS: Final = sorted(op for op, row in ROWS.items() if any(k in HOSTILE for _, k in row))
FAULT_VALUES: Final = {
    kind: st.one_of(st.sampled_from(values), HOSTILE[kind])
    if kind in HOSTILE
    else st.sampled_from(values)
    for kind, values in FAULTS.items()
}
EXTRAS: Final = st.sampled_from(
    ["none", "none", "both", "summary", "tags", "faulty summary", "faulty tags"]
)
"""A random record's optional summary and tags: each alone, both, neither, or one faulty."""
ABSENT_ID: Final = "wild:absent"
"""An upsert's ``replaced`` naming no record (fresh ids never take it): nothing to replace."""


PURE_WORLD: Final = World()
"""Answers the ops whose reply depends on their fields alone (identity parsing, `hello`,
`carry_forward_enabled`): the model deciding which class a candidate falls in.  Never the
compared world, so it records no condition and changes no state that is observed."""
CANDIDATES: Final = 6


def by_outcome(
    data: st.DataObject, candidates: st.SearchStrategy[Reply], accepted: bool, label: str
) -> Reply:
    """A request from ``candidates`` that the model accepts (or rejects, as ``accepted``
    says): up to `CANDIDATES` draws, the last kept if none falls in the wanted class.  Rare
    outcomes of a field-only op (a valid ToolId text among mostly hostile ones) then come as
    often as common ones, without the generator knowing which texts are valid."""
    request = data.draw(candidates, label=label)
    for _ in range(CANDIDATES - 1):
        if (PURE_WORLD.handle(request).get("ok") is True) == accepted:
            break
        request = data.draw(candidates, label=label)
    return request


def fresh_id(world: World, stem: str, taken: list[str] | None = None) -> str:
    """The first ``stem<N>`` that no record of ``world`` (and nothing in ``taken``) holds."""
    present = world.observe()["records"]
    n = 0
    while f"{stem}{n}" in present or (taken is not None and f"{stem}{n}" in taken):
        n += 1
    return f"{stem}{n}"
