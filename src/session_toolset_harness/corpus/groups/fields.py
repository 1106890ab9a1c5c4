"""PROTOCOL.md request fields: validated in the order the op's row lists them, each completely
(presence, JSON type, name lookup, boundary parsing) before the next, the first faulty field
deciding the reply; ``null`` only where the row says "or null"; unlisted keys ignored.

Order is observable only between faults that answer differently: a wrong JSON type or an
unknown name answers ``Protocol``, a ToolId or SessionId field that fails boundary parsing its
typed error.  So each ``fields/order-<op>`` vector pairs every two fields ``a`` before ``b`` whose
faults differ (``a`` wrong-typed with ``b`` failing to parse: ``Protocol``; ``a`` failing to parse
with ``b`` wrong-typed, or with ``b`` failing another way: ``a``'s error), after showing each
fault on its own.  Ops whose fields can only answer ``Protocol`` have no observable order; their
faults are still paired, to show that two faults answer one ``Protocol`` and change nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from session_toolset_harness.corpus.dsl import (
    P_BUILTIN,
    Json,
    Obj,
    Rec,
    Vector,
    insert,
    issue,
    snapshot,
    src_builtin,
    state,
    upsert,
)
from session_toolset_harness.corpus.groups.common import (
    BASH,
    LOOKUP,
    NOTE,
    SORTED_STANDARD,
    STANDARD_GENERATION,
    standard_catalog,
)
from session_toolset_harness.corpus.spec import digest

G = "fields"
GEN = STANDARD_GENERATION
PROTOCOL = "Protocol"

#: A record no vector here inserts: a valid source/provenance for catalog requests.
NEW = Rec(src_builtin("zz"), P_BUILTIN, {"type": "object", "title": "zz"})


@dataclass(frozen=True)
class Field:
    """One request field: a valid value and its faults as ``(value, expected code)``."""

    name: str
    valid: Json
    faults: tuple[tuple[Json, str], ...]


def _wrong(value: Json = 7) -> tuple[Json, str]:
    return (value, PROTOCOL)


def _id_field(name: str, valid: str, typed: tuple[str, str] = ("", "ToolIdError.Empty")) -> Field:
    return Field(name, valid, (_wrong(), typed))


def _session_field(name: str, valid: str) -> Field:
    return Field(name, valid, (_wrong(), ("", "SessionIdError.Empty")))


def _name(name: str, valid: str, unknown: bool = False) -> Field:
    """A name field; a lookup (``unknown``) also fails for a name nothing holds."""
    faults = (_wrong(), ("missing", PROTOCOL)) if unknown else (_wrong(),)
    return Field(name, valid, faults)


def _world(v: Vector) -> Vector:
    """The standard catalog, set A (session s-a, core bash) and grant g for lookup."""
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-a", core=[BASH.id])
    return issue(v, "g", "s-a", LOOKUP, GEN)


def _untouched(v: Vector, new_sets: tuple[str, ...] = ()) -> Vector:
    """Nothing changed: the catalog, set A, grant g (still activatable), no new set."""
    state(v, GEN, SORTED_STANDARD)
    snapshot(v, "A", "s-a", GEN, 0, [BASH], [])
    for name in new_sets:
        v.protocol({"op": "snapshot", "set": name})
    v.ok("factory_calls", {"calls": 0}, tool=BASH.id)
    v.ok("activate", set="A", grant="g")
    return snapshot(v, "A", "s-a", GEN, 1, [BASH], [(LOOKUP, GEN)])


def _request(op: str, fields: list[Field], faulty: dict[str, Json]) -> Obj:
    request: Obj = {"op": op}
    for field in fields:
        request[field.name] = faulty.get(field.name, field.valid)
    return request


def _order(op: str, fields: list[Field], new_sets: tuple[str, ...] = ()) -> Vector:
    listed = ", ".join(f.name for f in fields)
    v = Vector(
        f"{G}/order-{op.replace('_', '-')}",
        f"{op} validates its fields in PROTOCOL.md row order ({listed}), each completely: every "
        "fault alone, then every two faulty fields at once, where the first listed decides the "
        "reply (Protocol for a wrong type or unknown name, the typed error of a field that fails "
        "boundary parsing); nothing changes.",
        ("protocol", "field-errors", "check-order"),
    )
    _world(v)
    for field in fields:
        for value, code in field.faults:
            v.fail(op, code, **_request(op, fields, {field.name: value}))
    for i, first in enumerate(fields):
        for second in fields[i + 1 :]:
            combos = [(a, b) for a in first.faults for b in second.faults]
            telling = [(a, b) for a, b in combos if a[1] != b[1]]
            # faults that answer alike show no order: one of them stands for the pair
            for (value_a, code_a), (value_b, _) in telling or combos[:1]:
                faulty = {first.name: value_a, second.name: value_b}
                v.fail(op, code_a, **_request(op, fields, faulty))
    return _untouched(v, new_sets)


def _record_fields(explicit_id: tuple[str, str]) -> list[Field]:
    return [
        Field("source", NEW.source, (_wrong("builtin:zz"), ({"kind": "martian"}, PROTOCOL))),
        Field("provenance", NEW.provenance, (({"kind": "root"}, PROTOCOL),)),
        Field("schema", NEW.schema, ()),  # any JSON value: it cannot be faulty
        _id_field("id", "builtin:zz", explicit_id),
        Field("runtime_name", "zz", (_wrong(),)),
        Field("summary", "a summary", (_wrong(),)),
        Field("tags", ["t"], (_wrong("t"), ([1], PROTOCOL))),
    ]


def _orders() -> list[Vector]:
    forge = [
        _name("name", "f"),
        Field("session", "s-a", (_wrong(), ("", "ActivationGrantError.EmptySessionId"))),
        _id_field("tool", LOOKUP.id, ("nocolon", "ToolIdError.MissingNamespace")),
        Field("generation", GEN, (_wrong(-1), _wrong(1.0))),
        Field("digest", LOOKUP.digest, (_wrong(),)),
    ]
    return [
        _order(
            "issue_grant",
            [_name("name", "g2"), _session_field("session", "s-a"), _id_field("tool", NOTE.id)],
        ),
        _order("forge_grant", forge),
        _order(
            "set_new",
            [
                _name("name", "N"),
                _session_field("session", "s-n"),
                Field("core", [BASH.id], (_wrong(BASH.id), ([""], "ToolIdError.Empty"))),
            ],
            ("N",),
        ),
        _order("set_default_core", [_name("name", "N"), _session_field("session", "s-n")], ("N",)),
        _order(
            "set_progressive_core", [_name("name", "N"), _session_field("session", "s-n")], ("N",)
        ),
        _order("activate", [_name("set", "A", True), _name("grant", "g", True)]),
        _order(
            "activate_many",
            [
                _name("set", "A", True),
                Field("grants", ["g"], (_wrong("g"), (["missing"], PROTOCOL))),
            ],
        ),
        _order("activate_user", [_name("set", "A", True), _id_field("tool", NOTE.id)]),
        _order(
            "activate_model",
            [
                _name("set", "A", True),
                Field("authority", "model_confirmed", (("confirmed", PROTOCOL), _wrong())),
                Field("tools", [NOTE.id], (_wrong(NOTE.id), ([""], "ToolIdError.Empty"))),
            ],
        ),
        _order("revoke", [_name("set", "A", True), _id_field("tool", BASH.id)]),
        _order(
            "rebuild",
            [
                _name("set", "A", True),
                _name("into", "R"),
                Field("progressive", True, (_wrong(1),)),
                Field("carry_forward", True, (_wrong("yes"),)),
            ],
            ("R",),
        ),
        _order(
            "route",
            [
                Field("set", "A", (_wrong(), ("missing", PROTOCOL))),
                _name("into", "R"),
                _session_field("fallback_session", "s-r"),
            ],
            ("R",),
        ),
        _order(
            "authorize",
            [
                _name("set", "A", True),
                _id_field("tool", BASH.id),
                Field("wire_name", "bash", (_wrong(),)),
            ],
        ),
        _order(
            "authorize_wire", [_name("set", "A", True), Field("wire_name", "bash", (_wrong(),))]
        ),
        _order("catalog_insert", _record_fields(("", "ToolIdError.Empty"))),
        _order(
            "catalog_upsert",
            [
                Field("replaced", None, (_wrong(), ("", "ToolIdError.Empty"))),
                *_record_fields(("nocolon", "ToolIdError.MissingNamespace")),
            ],
        ),
    ]


def _null_refused() -> Vector:
    v = Vector(
        f"{G}/null-is-a-wrong-type",
        "null is accepted only where PROTOCOL.md's row says 'or null': for an optional field "
        "(catalog_insert/upsert id, runtime_name, summary, tags; rebuild carry_forward; "
        "authorize wire_name) it is not 'absent' but a wrong type, and so it is for every "
        "required field: Protocol, nothing changes.",
        ("protocol", "field-errors", "null"),
    )
    _world(v)
    record = {"source": NEW.source, "provenance": NEW.provenance, "schema": NEW.schema}
    bases: list[Obj] = [
        {"op": "catalog_insert", **record},
        {"op": "catalog_upsert", "replaced": None, **record},
        {"op": "rebuild", "set": "A", "into": "R", "progressive": True},
        {"op": "authorize", "set": "A", "tool": BASH.id},
    ]
    optional = {
        "catalog_insert": ["id", "runtime_name", "summary", "tags"],
        "catalog_upsert": ["id", "runtime_name", "summary", "tags"],
        "rebuild": ["carry_forward"],
        "authorize": ["wire_name"],
    }
    for base in bases:
        for name in optional[str(base["op"])]:
            v.protocol({**base, name: None})
    required: list[Obj] = [
        {"op": "tool_id_parse", "raw": "a:b"},
        {"op": "tool_id", "source": NEW.source},
        {"op": "session_id_parse", "raw": "s"},
        {"op": "catalog_remove", "id": BASH.id},
        {"op": "catalog_rebase_past", "prior": 1},
        {"op": "catalog_set_generation", "value": 1},
        {"op": "factory_calls", "tool": BASH.id},
        {"op": "issue_grant", "name": "g2", "session": "s-a", "tool": NOTE.id},
        {
            "op": "forge_grant",
            "name": "f",
            "session": "s-a",
            "tool": NOTE.id,
            "generation": GEN,
            "digest": NOTE.digest,
        },
        {"op": "set_new", "name": "N", "session": "s-n", "core": []},
        {"op": "set_default_core", "name": "N", "session": "s-n"},
        {"op": "set_progressive_core", "name": "N", "session": "s-n"},
        {"op": "activate", "set": "A", "grant": "g"},
        {"op": "activate_many", "set": "A", "grants": ["g"]},
        {"op": "activate_user", "set": "A", "tool": NOTE.id},
        {"op": "activate_model", "set": "A", "authority": "model_confirmed", "tools": [NOTE.id]},
        {"op": "revoke", "set": "A", "tool": NOTE.id},
        {"op": "rebuild", "set": "A", "into": "R", "progressive": True},
        {"op": "route", "set": "A", "into": "R", "fallback_session": "s-r"},
        {"op": "is_stale", "set": "A"},
        {"op": "snapshot", "set": "A"},
        {"op": "resolve", "wire_name": "bash"},
        {"op": "authorize", "set": "A", "tool": BASH.id},
        {"op": "authorize_wire", "set": "A", "wire_name": "bash"},
        {"op": "catalog_insert", **record},
        {"op": "catalog_upsert", "replaced": None, **record},
    ]
    or_null = {("catalog_upsert", "replaced"), ("route", "set")}
    for base in required:
        for name in base:
            if name == "op" or name == "schema" or (base["op"], name) in or_null:
                continue
            v.protocol({**base, name: None})
    v.protocol({"op": None})
    return _untouched(v, ("N", "R"))


def _null_accepted() -> Vector:
    v = Vector(
        f"{G}/null-where-the-row-allows-it",
        "Where PROTOCOL.md's row says 'or null' (catalog_upsert replaced, route set, "
        "carry_forward_enabled env) or 'any JSON value, null included' (digest and "
        "catalog_insert/upsert schema), null is a value: upsert with replaced null inserts, "
        "route with set null builds a fresh set, env null is the unset variable, a null schema "
        "has the digest of null.",
        ("protocol", "null"),
    )
    _world(v)
    v.ok("digest", {"digest": digest(None)}, schema=None)
    v.ok("carry_forward_enabled", {"enabled": True}, env=None)
    null_schema = Rec(src_builtin("nul"), P_BUILTIN, None)
    insert(v, null_schema, GEN + 1)
    upserted = Rec(src_builtin("up"), P_BUILTIN, None)
    upsert(v, None, upserted, GEN + 2)
    v.ok("route", {"stale": False}, set=None, into="R", fallback_session="s-r")
    v.ok("snapshot", {"session": "s-r", "schema_generation": 0, "activated": []}, set="R")
    records = sorted([*SORTED_STANDARD, null_schema, upserted], key=lambda r: r.id.encode())
    return v.ok("catalog_state", {"generation": GEN + 2, "records": [r.state() for r in records]})


def _unlisted_keys() -> Vector:
    v = Vector(
        f"{G}/unlisted-keys-ignored",
        "Request keys that the op's row does not list are ignored, whatever they hold (null, a "
        "wrong type, another op's field, a nested object): the request answers as without them. "
        "Sent as exact lines, since a request object with extra fields fails the request schema.",
        ("protocol", "raw-line"),
    )
    _world(v)
    lines: list[tuple[Obj, Obj]] = [
        ({"op": "hello", "set": "missing", "raw": 5}, {"ok": True, "protocol": 1}),
        ({"op": "tool_id_parse", "raw": "a:b", "id": None, "tool": 7}, {"ok": True, "id": "a:b"}),
        ({"op": "catalog_state", "generation": -1}, {"ok": True, "generation": GEN}),
        (
            {"op": "snapshot", "set": "A", "into": 7, "session": None},
            {"ok": True, "session": "s-a", "activated": []},
        ),
        (
            {"op": "authorize", "set": "A", "tool": BASH.id, "wire": {"nested": [1]}},
            {"ok": True, "tool": BASH.id},
        ),
        (
            {"op": "activate", "set": "A", "grant": "g", "grants": 5, "tool": ""},
            {"ok": True},
        ),
        (
            {"op": "catalog_insert", "replaced": 7, "op2": "x", **NEW.request()},
            {"ok": True, "id": NEW.id, "generation": GEN + 1},
        ),
        ({"op": "digest", "schema": {}, "id": None}, {"ok": True, "digest": digest({})}),
    ]
    for request, expect in lines:
        v.line(json.dumps(request, ensure_ascii=False, separators=(",", ":")), expect)
    snapshot(v, "A", "s-a", GEN, 1, [BASH], [(LOOKUP, GEN)])
    return v.ok("factory_calls", {"calls": 1}, tool=BASH.id)


def _lists_typed_first() -> Vector:
    v = Vector(
        f"{G}/list-elements-typed-before-parsing",
        "A list field's JSON type is 'list of strings' and is checked for the whole list before "
        "any element is parsed or looked up (PROTOCOL.md: each field completely - presence, "
        "JSON type, name lookup, boundary parsing): core or tools of ['BAD', 5] is Protocol, not "
        "the ToolIdError.MissingNamespace that parsing 'BAD' first would give; grants of "
        "['g', 5] is Protocol and activates nothing; nothing changes.",
        ("protocol", "field-errors", "check-order"),
    )
    _world(v)
    v.fail("tool_id_parse", "ToolIdError.MissingNamespace", raw="BAD")  # 'BAD' alone parses so
    for core in (["BAD", 5], ["", True], ["BAD", None], ["BAD", ["x"]]):
        v.protocol({"op": "set_new", "name": "N", "session": "s-n", "core": core})
    for tools in (["BAD", 5], ["", {}]):
        for authority in ("model_confirmed", "unauthorized"):
            v.protocol({"op": "activate_model", "set": "A", "authority": authority, "tools": tools})
    v.protocol({"op": "activate_many", "set": "A", "grants": ["g", 5]})
    # an element that fails parsing or lookup alone does not decide before a wrong-typed one
    v.protocol({"op": "set_new", "name": "N", "session": "s-n", "core": ["bad id", 7]})
    v.protocol({"op": "activate_many", "set": "A", "grants": ["unknown-name", 5]})
    for op in ("catalog_insert", "catalog_upsert"):
        replaced: Obj = {"replaced": None} if op == "catalog_upsert" else {}
        v.protocol({"op": op, **replaced, **NEW.request(), "tags": ["t", 1]})
    return _untouched(v, ("N",))


def _lists_in_order() -> Vector:
    v = Vector(
        f"{G}/list-elements-in-list-order",
        "Once a list field is typed as a whole, its elements are parsed or looked up in list "
        "order and the first faulty one decides: core or tools of ['BAD', ''] is "
        "ToolIdError.MissingNamespace and of ['', 'BAD'] ToolIdError.Empty, a valid or unknown "
        "id before them changes nothing, and it comes before the operation (UnknownCoreTool, "
        "ConfirmationRequired); grants with an unknown name anywhere is Protocol and activates "
        "none of the others; nothing changes.",
        ("protocol", "field-errors", "check-order"),
    )
    _world(v)
    orders: list[tuple[list[Json], str]] = [
        (["BAD", ""], "ToolIdError.MissingNamespace"),
        (["", "BAD"], "ToolIdError.Empty"),
        ([BASH.id, "BAD", ""], "ToolIdError.MissingNamespace"),
        (["mcp.gone:tool", "", "BAD"], "ToolIdError.Empty"),
    ]
    for ids, code in orders:
        v.fail("set_new", code, name="N", session="s-n", core=ids)
        for authority in ("model_confirmed", "unauthorized"):
            v.fail("activate_model", code, set="A", authority=authority, tools=ids)
    for names in (["g", "missing"], ["missing", "g"], ["g", "g", "missing"]):
        v.protocol({"op": "activate_many", "set": "A", "grants": names})
    snapshot(v, "A", "s-a", GEN, 0, [BASH], [])
    return _untouched(v, ("N",))


def _kinds_case_sensitive() -> Vector:
    v = Vector(
        f"{G}/kind-case-sensitive",
        "A SOURCE or PROVENANCE kind is one of PROTOCOL.md's exact lowercase names: 'Builtin', "
        "'MCP', 'Builtin_Runtime' and the like are unknown kinds (Protocol) for tool_id and "
        "catalog_insert alike; nothing changes.",
        ("protocol", "field-errors"),
    )
    _world(v)
    sources: list[Obj] = [
        {"kind": "Builtin", "name": "bash"},
        {"kind": "BUILTIN", "name": "bash"},
        {"kind": "MCP", "server_id": "srv-a", "server_tool_name": "lookup"},
        {"kind": "Unknown", "runtime_name": "dyn"},
    ]
    for source in sources:
        v.protocol({"op": "tool_id", "source": source})
        v.protocol({"op": "catalog_insert", **NEW.request(), "source": source})
    for provenance in ({"kind": "Builtin_Runtime"}, {"kind": "UNVERIFIED"}):
        v.protocol({"op": "catalog_insert", **NEW.request(), "provenance": provenance})
    return _untouched(v)


def vectors() -> list[Vector]:
    return [
        *_orders(),
        _lists_typed_first(),
        _lists_in_order(),
        _kinds_case_sensitive(),
        _null_refused(),
        _null_accepted(),
        _unlisted_keys(),
    ]
