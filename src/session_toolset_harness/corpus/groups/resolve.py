"""SPEC.md 4 resolve / authorize_wire: API-safe aliases, collisions, bounded wire-name echoes."""

from __future__ import annotations

from session_toolset_harness.corpus.dsl import (
    P_BUILTIN,
    Rec,
    Vector,
    core_basis,
    insert,
    p_ext,
    p_mcp,
    p_plugin,
    src_builtin,
    src_ext,
    src_mcp,
    src_plugin,
)
from session_toolset_harness.corpus.spec import bound_wire

G = "resolve"


def _resolved(v: Vector, wire: str, rec: Rec) -> None:
    runtime = rec.runtime_name if rec.runtime_name is not None else rec.id
    v.ok(
        "resolve",
        {"wire_name": bound_wire(wire), "runtime_name": runtime, "tool": rec.id},
        wire_name=wire,
    )


def _unknown(v: Vector, wire: str) -> None:
    v.fail(
        "resolve",
        "ToolAuthorizationError.UnknownTool",
        {"wire_name": bound_wire(wire)},
        wire_name=wire,
    )


def _unknown_call(v: Vector, wire: str) -> None:
    v.fail(
        "authorize_wire",
        "ToolAuthorizationError.UnknownTool",
        {"wire_name": bound_wire(wire)},
        set="A",
        wire_name=wire,
    )


def _collisions() -> Vector:
    v = Vector(
        f"{G}/aliases-and-collisions",
        "Aliases replace every character outside [A-Za-z0-9_-] by '_'; builtin-sourced tools get "
        "theirs first, then the others, each group in runtime-name byte order; a taken alias "
        "gets the first free base_2, base_3, ...; an alias match beats a runtime-name match.",
        ("resolve", "aliases"),
    )
    r_dot = Rec(src_mcp("s", "x"), p_mcp("s"), {"t": "dot"}, runtime_name="a.b")
    r_colon = Rec(src_builtin("ab"), P_BUILTIN, {"t": "colon"}, runtime_name="a:b")
    r_space = Rec(src_plugin("p", "y"), p_plugin("p"), {"t": "space"}, runtime_name="a b")
    r_under = Rec(src_ext("e", "z"), p_ext("e"), {"t": "under"}, runtime_name="a_b")
    r_two = Rec(src_mcp("s", "w"), p_mcp("s"), {"t": "two"}, runtime_name="a_b_2")
    for generation, rec in enumerate([r_dot, r_colon, r_space, r_under, r_two], 1):
        insert(v, rec, generation)
    # builtin first: "a:b" → a_b; then by runtime name bytes: "a b", "a.b", "a_b", "a_b_2"
    _resolved(v, "a_b", r_colon)
    _resolved(v, "a_b_2", r_space)
    _resolved(v, "a_b_3", r_dot)
    _resolved(v, "a_b_4", r_under)
    _resolved(v, "a_b_2_2", r_two)
    # runtime names resolve when no alias matches
    _resolved(v, "a.b", r_dot)
    _resolved(v, "a b", r_space)
    _resolved(v, "a:b", r_colon)
    for wire in ["A_B", "a_b_5", "a_b_1", "a_b_0", "a_b_", "", " a_b", "a_b "]:
        _unknown(v, wire)
    return v


def _ordering() -> Vector:
    v = Vector(
        f"{G}/alias-order",
        "Builtin-sourced tools take aliases before others whatever their ToolId; inside a group "
        "runtime-name byte order decides, ties by ToolId.",
        ("resolve", "aliases"),
    )
    early = Rec(src_mcp("m", "q"), p_mcp("m"), {"t": 1}, explicit_id="a:q", runtime_name="same")
    builtin = Rec(src_builtin("q"), P_BUILTIN, {"t": 2}, runtime_name="same")
    k1 = Rec(src_builtin("k1"), P_BUILTIN, {"t": 3}, runtime_name="k.1")
    k2 = Rec(src_builtin("k2"), P_BUILTIN, {"t": 4}, runtime_name="k 1")
    tie_b = Rec(src_plugin("b", "t"), p_plugin("b"), {"t": 5}, runtime_name="dup")
    tie_a = Rec(src_mcp("a", "t"), p_mcp("a"), {"t": 6}, runtime_name="dup")
    for generation, rec in enumerate([early, builtin, k1, k2, tie_b, tie_a], 1):
        insert(v, rec, generation)
    _resolved(v, "same", builtin)
    _resolved(v, "same_2", early)
    _resolved(v, "k_1", k2)
    _resolved(v, "k_1_2", k1)
    _resolved(v, "dup", tie_a)
    _resolved(v, "dup_2", tie_b)
    _resolved(v, "k.1", k1)
    return v


def _order_by_source_kind() -> Vector:
    v = Vector(
        f"{G}/alias-order-by-source-kind",
        "Alias order groups tools by the kind of their source, not by the namespace of their "
        "ToolId: a builtin-sourced tool whose id is outside 'builtin:' takes its alias (and a "
        "shared runtime name) before an MCP tool whose id is 'builtin:...', though that id "
        "sorts first and was inserted first.",
        ("resolve", "aliases"),
    )
    mcp_named_builtin = Rec(
        src_mcp("m", "t"), p_mcp("m"), {"t": 1}, explicit_id="builtin:t", runtime_name="tool"
    )
    builtin_elsewhere = Rec(
        src_builtin("t"), P_BUILTIN, {"t": 2}, explicit_id="zz:t", runtime_name="tool"
    )
    mcp_dotted = Rec(
        src_mcp("m", "u"), p_mcp("m"), {"t": 3}, explicit_id="builtin:u", runtime_name="t.u"
    )
    builtin_dotted = Rec(
        src_builtin("u"), P_BUILTIN, {"t": 4}, explicit_id="zz:u", runtime_name="t.u"
    )
    for generation, rec in enumerate(
        [mcp_named_builtin, builtin_elsewhere, mcp_dotted, builtin_dotted], 1
    ):
        insert(v, rec, generation)
    # by source kind: the builtin-sourced zz:t first; by namespace it would be builtin:t
    _resolved(v, "tool", builtin_elsewhere)
    _resolved(v, "tool_2", mcp_named_builtin)
    _resolved(v, "t_u", builtin_dotted)
    _resolved(v, "t_u_2", mcp_dotted)
    # "t.u" is no alias ('.' is unsafe): the first tool of that runtime name in alias order
    _resolved(v, "t.u", builtin_dotted)
    v.ok("set_new", name="A", session="s-a", core=[mcp_dotted.id, builtin_dotted.id])
    return v.ok(
        "authorize_wire",
        {"tool": builtin_dotted.id, "basis": core_basis()},
        set="A",
        wire_name="t.u",
    )


def _runtime_name_ties() -> Vector:
    v = Vector(
        f"{G}/runtime-name-ties",
        "Several live tools may share a runtime name (SPEC.md 4): when no alias matches, a wire "
        "name equal to it resolves to the first of them in alias order - a builtin-sourced one "
        "first, then the smallest ToolId, whatever the insertion order - and authorize_wire "
        "authorizes exactly that tool; removing it hands the name to the next in that order.",
        ("resolve", "aliases"),
    )
    # "srv.t" holds an unsafe '.', so no alias equals it: the runtime-name rule decides
    m_z = Rec(src_mcp("z", "t"), p_mcp("z"), {"t": 1}, runtime_name="srv.t")
    e_q = Rec(src_ext("q", "t"), p_ext("q"), {"t": 2}, runtime_name="srv.t")
    b_x = Rec(src_builtin("x"), P_BUILTIN, {"t": 3}, runtime_name="srv.t")
    p_a = Rec(src_plugin("a", "t"), p_plugin("a"), {"t": 4}, runtime_name="srv.t")
    for generation, rec in enumerate([m_z, e_q, b_x, p_a], 1):
        insert(v, rec, generation)
    # alias order: the builtin, then ext.q:t < mcp.z:t < plugin.a:t (ToolId byte order)
    _resolved(v, "srv.t", b_x)
    for alias, rec in [("srv_t", b_x), ("srv_t_2", e_q), ("srv_t_3", m_z), ("srv_t_4", p_a)]:
        _resolved(v, alias, rec)
    v.ok("set_new", name="A", session="s-a", core=[b_x.id, e_q.id, m_z.id])
    v.ok("authorize_wire", {"tool": b_x.id, "basis": core_basis()}, set="A", wire_name="srv.t")
    v.ok("catalog_remove", {"removed": True, "generation": 5}, id=b_x.id)
    _resolved(v, "srv.t", e_q)
    _resolved(v, "srv_t", e_q)
    v.ok("set_new", name="B", session="s-b", core=[e_q.id, m_z.id])
    v.ok("authorize_wire", {"tool": e_q.id, "basis": core_basis()}, set="B", wire_name="srv.t")
    v.ok("catalog_remove", {"removed": True, "generation": 6}, id=e_q.id)
    _resolved(v, "srv.t", m_z)
    b_y = Rec(src_builtin("y"), P_BUILTIN, {"t": 5}, runtime_name="srv.t")
    insert(v, b_y, 7)
    _resolved(v, "srv.t", b_y)
    v.ok("factory_calls", {"calls": 1}, tool=b_x.id)
    v.ok("factory_calls", {"calls": 1}, tool=e_q.id)
    return v.ok("factory_calls", {"calls": 0}, tool=m_z.id)


def _cut() -> Vector:
    v = Vector(
        f"{G}/alias-64-byte-cut",
        "Aliases are cut to 64 bytes; collision suffixes cut the base so the whole alias stays "
        "within 64 bytes; replacement is per character, not per byte; the default runtime name "
        "is the id string.",
        ("resolve", "aliases", "boundary"),
    )
    x70 = Rec(src_mcp("s", "x70"), p_mcp("s"), {"n": 70}, runtime_name="x" * 70)
    x71 = Rec(src_mcp("s", "x71"), p_mcp("s"), {"n": 71}, runtime_name="x" * 71)
    x72 = Rec(src_mcp("s", "x72"), p_mcp("s"), {"n": 72}, runtime_name="x" * 72)
    accents = Rec(src_mcp("s", "acc"), p_mcp("s"), {"n": 0}, runtime_name="\u00e9" * 40)
    plain = Rec(src_ext("acme", "deploy"), p_ext("acme"), {"n": 1})
    for generation, rec in enumerate([x72, x71, x70, accents, plain], 1):
        insert(v, rec, generation)
    _resolved(v, "x" * 64, x70)
    _resolved(v, "x" * 62 + "_2", x71)
    _resolved(v, "x" * 62 + "_3", x72)
    _resolved(v, "x" * 71, x71)
    _resolved(v, "_" * 40, accents)
    _resolved(v, "\u00e9" * 40, accents)
    _unknown(v, "_" * 64)
    _unknown(v, "x" * 65)
    _resolved(v, "ext_acme_deploy", plain)
    _resolved(v, "ext.acme:deploy", plain)
    return v


def _wire_bounds() -> Vector:
    v = Vector(
        f"{G}/wire-name-bounds",
        "Wire names are matched in full but echoed bounded to 128 bytes, cut on a character "
        "boundary (expected echoes computed from the rule); 64 KiB wire names never match a "
        "128-byte prefix.",
        ("resolve", "hostile", "boundary"),
    )
    long_rt = Rec(src_mcp("s", "long"), p_mcp("s"), {"n": 200}, runtime_name="r" * 200)
    w128 = Rec(src_mcp("s", "w128"), p_mcp("s"), {"n": 128}, runtime_name="w" * 128)
    insert(v, long_rt, 1)
    insert(v, w128, 2)
    _resolved(v, "r" * 200, long_rt)
    _resolved(v, "r" * 64, long_rt)
    _resolved(v, "w" * 128, w128)
    _unknown(v, "w" * 65536)
    _unknown(v, "r" * 128)
    _unknown(v, "\u00e9" * 32768)
    _unknown(v, "a" + "\u00e9" * 32767)
    _unknown(v, "ab" + "\U0001f600" * 16383)
    _unknown(v, "a" + "\u4e2d" * 21845)
    _unknown(v, "\u0000\u001b[2J\u0085" * 1000)
    v.ok("catalog_state", {"generation": 2})
    return v


def _authorize_wire() -> Vector:
    v = Vector(
        f"{G}/authorize-wire",
        "authorize_wire = resolve + authorize on one snapshot: the resolved tool's own identity "
        "is authorized (a collision alias never selects another identity); an unknown wire name "
        "is UnknownTool with a bounded echo; explicit wire names on authorize are accepted at "
        "any length.",
        ("resolve", "gate", "aliases", "hostile"),
    )
    r_colon = Rec(src_builtin("ab"), P_BUILTIN, {"t": "colon"}, runtime_name="a:b")
    r_space = Rec(src_plugin("p", "y"), p_plugin("p"), {"t": "space"}, runtime_name="a b")
    insert(v, r_colon, 1)
    insert(v, r_space, 2)
    v.ok("set_new", name="A", session="s-a", core=[r_colon.id])
    v.ok("authorize_wire", {"tool": r_colon.id, "basis": core_basis()}, set="A", wire_name="a_b")
    v.ok("authorize_wire", {"tool": r_colon.id, "basis": core_basis()}, set="A", wire_name="a:b")
    v.fail(
        "authorize_wire",
        "ToolAuthorizationError.NotActivated",
        {"tool": r_space.id},
        set="A",
        wire_name="a_b_2",
    )
    v.fail(
        "authorize_wire",
        "ToolAuthorizationError.NotActivated",
        {"tool": r_space.id},
        set="A",
        wire_name="a b",
    )
    for wire in ["nope", "z" * 65536, "\u00e9" * 1000]:
        _unknown_call(v, wire)
    v.ok("factory_calls", {"calls": 2}, tool=r_colon.id)
    v.ok("factory_calls", {"calls": 0}, tool=r_space.id)
    v.ok(
        "authorize",
        {"tool": r_colon.id, "basis": core_basis()},
        set="A",
        tool=r_colon.id,
        wire_name="\u00e9" * 40000,
    )
    v.protocol({"op": "authorize_wire", "set": "nope", "wire_name": "a_b"})
    v.protocol({"op": "authorize_wire", "set": "A"})
    v.protocol({"op": "resolve", "wire_name": 5})
    v.ok("factory_calls", {"calls": 3}, tool=r_colon.id)
    return v


#: Wire names whose every character a denial message must escape or spell out (control
#: characters, C1 controls, separators), each at or beyond the 128-byte echo bound, with
#: multi-byte characters at the end in both byte parities: however an implementation quotes
#: the name in its message, the message may not grow with it.
ESCAPED_WIRE_NAMES = [
    "\u0001" * 128,
    "\u0001" * 2000,
    "\u0001" * 112 + "\u00e9" * 8,
    "a" + "\u0001" * 111 + "\u00e9" * 8,
    "\u0001" * 110 + "\u20ac" * 6,
    "ab" + "\u0001" * 108 + "\u20ac" * 6,
    "\u007f" * 64 + "\u0085" * 32,
    "\u2028" * 42 + "\u0001\u0002",
]


def _escaped_echo() -> Vector:
    v = Vector(
        f"{G}/unknown-wire-name-to-escape",
        "An unknown wire name of control characters and other characters a message has to "
        "escape: the denial is UnknownTool with the echo bounded to 128 bytes as payload, from "
        "resolve and from authorize_wire alike, and its message stays under 512 bytes (SPEC.md "
        "4: denial messages carry only bounded identities), whatever the name's quoted form.",
        ("resolve", "gate", "hostile", "boundary"),
    )
    rec = Rec(src_builtin("ab"), P_BUILTIN, {"t": "ab"}, runtime_name="ab")
    insert(v, rec, 1)
    v.ok("set_new", name="A", session="s-a", core=[rec.id])
    for wire in ESCAPED_WIRE_NAMES:
        _unknown(v, wire)
        _unknown_call(v, wire)
    v.ok("authorize_wire", {"tool": rec.id, "basis": core_basis()}, set="A", wire_name="ab")
    v.ok("factory_calls", {"calls": 1}, tool=rec.id)
    return v


def vectors() -> list[Vector]:
    return [
        _collisions(),
        _ordering(),
        _order_by_source_kind(),
        _runtime_name_ties(),
        _cut(),
        _wire_bounds(),
        _authorize_wire(),
        _escaped_echo(),
    ]
