"""PROTOCOL.md itself: hello/reset, Protocol errors for malformed requests (world unchanged),
field validation before operation errors, u64 generation fields, and hostile field values."""

from __future__ import annotations

from session_toolset_harness.corpus.dsl import (
    P_BUILTIN,
    Obj,
    Rec,
    Vector,
    exact_basis,
    insert,
    issue,
    p_mcp,
    snapshot,
    src_builtin,
    src_mcp,
    state,
)
from session_toolset_harness.corpus.groups.common import (
    BASH,
    DYN,
    LOOKUP,
    NOTE,
    SORTED_STANDARD,
    STANDARD_GENERATION,
    standard_catalog,
)
from session_toolset_harness.corpus.spec import U64_MAX

GEN = STANDARD_GENERATION


def _hello_reset() -> Vector:
    v = Vector(
        "protocol/hello-and-reset",
        "hello answers protocol 1 at any time; reset returns the world to its start: empty "
        "catalog at generation 0, no sets, no grants, factory counters at zero.",
        ("protocol",),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s", core=[BASH.id])
    issue(v, "g", "s", LOOKUP, GEN)
    v.ok("authorize", {"tool": BASH.id}, set="A", tool=BASH.id)
    v.ok("factory_calls", {"calls": 1}, tool=BASH.id)
    v.ok("hello", {"protocol": 1})
    v.ok("catalog_state", {"generation": GEN})
    v.ok("reset")
    v.ok("catalog_state", {"generation": 0, "records": []})
    v.protocol({"op": "snapshot", "set": "A"})
    v.ok("factory_calls", {"calls": 0}, tool=BASH.id)
    v.ok("set_new", name="B", session="s", core=[])
    v.protocol({"op": "activate", "set": "B", "grant": "g"})
    v.ok("reset")
    v.ok("hello", {"protocol": 1})
    return v


def _malformed() -> Vector:
    v = Vector(
        "protocol/malformed-requests",
        "Unknown ops, missing or mistyped op, missing fields, wrong JSON types, unknown kinds "
        "and unknown names are Protocol errors, and the world is unchanged afterwards.",
        ("protocol", "no-partial-mutation"),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-a", core=[BASH.id])
    issue(v, "g", "s-a", LOOKUP, GEN)
    bad: list[Obj] = [
        {},
        {"op": None},
        {"op": 1},
        {"op": ["hello"]},
        {"op": "HELLO"},
        {"op": "nope"},
        {"op": "activate "},
        {"op": "tool_id_parse"},
        {"op": "tool_id_parse", "raw": 5},
        {"op": "tool_id_parse", "raw": None},
        {"op": "tool_id_parse", "raw": ["a:b"]},
        {"op": "session_id_parse", "raw": {"s": 1}},
        {"op": "tool_id", "source": {"kind": "builtin"}},
        {"op": "tool_id", "source": {"kind": "martian", "name": "x"}},
        {"op": "tool_id", "source": "builtin:bash"},
        {"op": "tool_id", "source": {"kind": "mcp", "server_id": "s"}},
        {"op": "tool_id", "source": {"kind": "plugin", "plugin_id": 1, "tool_name": "t"}},
        {"op": "digest"},
        {"op": "catalog_insert", "source": {"kind": "builtin", "name": "z"}, "schema": {}},
        {
            "op": "catalog_insert",
            "source": {"kind": "builtin", "name": "z"},
            "provenance": {"kind": "builtin_runtime"},
        },
        {
            "op": "catalog_insert",
            "source": {"kind": "builtin", "name": "z"},
            "provenance": {"kind": "mcp_config"},
            "schema": {},
        },
        {
            "op": "catalog_insert",
            "source": {"kind": "builtin", "name": "z"},
            "provenance": {"kind": "root"},
            "schema": {},
        },
        {
            "op": "catalog_insert",
            "source": {"kind": "builtin", "name": "z"},
            "provenance": {"kind": "builtin_runtime"},
            "schema": {},
            "id": 7,
        },
        {
            "op": "catalog_insert",
            "source": {"kind": "builtin", "name": "z"},
            "provenance": {"kind": "builtin_runtime"},
            "schema": {},
            "tags": "t",
        },
        {
            "op": "catalog_insert",
            "source": {"kind": "builtin", "name": "z"},
            "provenance": {"kind": "builtin_runtime"},
            "schema": {},
            "tags": [1],
        },
        {
            "op": "catalog_insert",
            "source": {"kind": "builtin", "name": "z"},
            "provenance": {"kind": "builtin_runtime"},
            "schema": {},
            "summary": 1,
        },
        {
            "op": "catalog_insert",
            "source": {"kind": "builtin", "name": "z"},
            "provenance": {"kind": "builtin_runtime"},
            "schema": {},
            "runtime_name": False,
        },
        {
            "op": "catalog_upsert",
            "source": {"kind": "builtin", "name": "z"},
            "provenance": {"kind": "builtin_runtime"},
            "schema": {},
        },
        {
            "op": "catalog_upsert",
            "replaced": 3,
            "source": {"kind": "builtin", "name": "z"},
            "provenance": {"kind": "builtin_runtime"},
            "schema": {},
        },
        {"op": "catalog_remove"},
        {"op": "catalog_remove", "id": None},
        {"op": "catalog_rebase_past"},
        {"op": "catalog_set_generation"},
        {"op": "factory_calls"},
        {"op": "issue_grant", "session": "s-a", "tool": LOOKUP.id},
        {"op": "issue_grant", "name": 1, "session": "s-a", "tool": LOOKUP.id},
        {"op": "forge_grant", "name": "f", "session": "s-a", "tool": LOOKUP.id, "generation": 1},
        {
            "op": "forge_grant",
            "name": "f",
            "session": "s-a",
            "tool": LOOKUP.id,
            "generation": 1,
            "digest": 5,
        },
        {
            "op": "forge_grant",
            "name": "f",
            "session": 5,
            "tool": LOOKUP.id,
            "generation": 1,
            "digest": "x",
        },
        {"op": "set_new", "name": "N", "session": "s"},
        {"op": "set_new", "name": "N", "session": "s", "core": BASH.id},
        {"op": "set_new", "name": "N", "session": "s", "core": [1]},
        {"op": "set_new", "name": None, "session": "s", "core": []},
        {"op": "set_default_core", "name": "N"},
        {"op": "set_progressive_core", "session": "s"},
        {"op": "activate", "set": "A", "grant": "missing"},
        {"op": "activate", "set": "missing", "grant": "g"},
        {"op": "activate_many", "set": "A", "grants": "g"},
        {"op": "activate_many", "set": "A", "grants": ["g", None]},
        {"op": "activate_many", "set": "A", "grants": ["g", "missing"]},
        {"op": "activate_user", "set": "A"},
        {"op": "activate_user", "set": "missing", "tool": NOTE.id},
        {"op": "revoke", "set": "A"},
        {"op": "rebuild", "set": "A", "progressive": True},
        {"op": "rebuild", "set": "missing", "into": "X", "progressive": True},
        {"op": "route", "set": "A", "fallback_session": "s"},
        {"op": "route", "set": 1, "into": "X", "fallback_session": "s"},
        {"op": "is_stale"},
        {"op": "snapshot", "set": None},
        {"op": "snapshot", "set": "missing"},
        {"op": "resolve"},
        {"op": "authorize", "set": "A"},
        {"op": "authorize", "set": "A", "tool": BASH.id, "wire_name": 1},
        {"op": "authorize_wire", "set": "A", "wire_name": None},
        {"op": "carry_forward_enabled", "env": False},
    ]
    for request in bad:
        v.protocol(request)
    state(v, GEN, SORTED_STANDARD)
    snapshot(v, "A", "s-a", GEN, 0, [BASH], [])
    v.protocol({"op": "snapshot", "set": "N"})
    v.protocol({"op": "snapshot", "set": "X"})
    v.protocol({"op": "activate", "set": "A", "grant": "f"})
    v.ok("factory_calls", {"calls": 0}, tool=BASH.id)
    v.ok("activate", set="A", grant="g")
    return v


def _u64_fields() -> Vector:
    v = Vector(
        "protocol/u64-generation-fields",
        "Generation fields take JSON integers in 0..2^64-1 exactly; 2^64, -1, 1.0, true, a "
        "string or null are Protocol errors that change nothing.",
        ("protocol", "boundary", "hostile"),
    )
    insert(v, BASH, 1)
    v.ok("catalog_set_generation", {"generation": U64_MAX}, value=U64_MAX)
    v.ok("catalog_set_generation", {"generation": 7}, value=7)
    for value in [2**64, 2**65, -1, -(2**63), 1.0, 7.0, 1e3, True, False, "7", None, [7], {"v": 7}]:
        v.protocol({"op": "catalog_set_generation", "value": value})
        v.protocol({"op": "catalog_rebase_past", "prior": value})
        v.protocol(
            {
                "op": "forge_grant",
                "name": "f",
                "session": "s",
                "tool": BASH.id,
                "generation": value,
                "digest": BASH.digest,
            }
        )
    state(v, 7, [BASH])
    v.ok("set_new", name="A", session="s", core=[])
    v.protocol({"op": "activate", "set": "A", "grant": "f"})
    grant = {"session": "s", "tool": BASH.id, "generation": U64_MAX, "digest": BASH.digest}
    v.ok("forge_grant", {"grant": grant}, name="max", **grant)
    v.fail(
        "activate",
        "ActivationError.StaleGeneration",
        {"grant": U64_MAX, "catalog": 7},
        set="A",
        grant="max",
    )
    v.ok("catalog_rebase_past", {"generation": 2**63 + 1}, prior=2**63)
    return v


def _field_first() -> Vector:
    v = Vector(
        "protocol/field-errors-first",
        "Every request field is validated before the operation runs: a field error is reported "
        "instead of the operation error the same request would otherwise produce.",
        ("protocol", "check-order", "field-errors"),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-a", core=[BASH.id])
    # ConfirmationRequired would come first among operation errors
    v.fail("activate_model", "ToolIdError.Empty", set="A", authority="unauthorized", tools=[""])
    v.protocol({"op": "activate_model", "set": "missing", "authority": "unauthorized", "tools": []})
    # GrantIssuanceError.UnknownTool / UntrustedSource would follow
    v.fail(
        "issue_grant",
        "SessionIdError.Oversized",
        {"actual": 300, "limit": 256},
        name="g",
        session="s" * 300,
        tool="a:b",
    )
    v.fail(
        "issue_grant",
        "ToolIdError.Oversized",
        {"actual": 201, "limit": 200},
        name="g",
        session="s",
        tool="a:" + "b" * 199,
    )
    # CatalogError.DuplicateToolId would follow
    v.fail(
        "catalog_insert",
        "ToolIdError.InvalidName",
        id="builtin:BASH",
        source=BASH.source,
        provenance=BASH.provenance,
        schema={},
    )
    # HostActivationError.Issuance.UntrustedSource would follow
    v.fail("activate_user", "ToolIdError.InvalidNamespace", set="A", tool="unknown :dyn")
    v.protocol({"op": "activate_user", "set": "missing", "tool": DYN.id})
    # ExactRevocationError.CoreTool would follow
    v.fail(
        "revoke", "ToolIdError.Oversized", {"actual": 300, "limit": 200}, set="A", tool="b" * 300
    )
    # SessionToolSetError.UnknownCoreTool would follow
    v.fail("set_progressive_core", "SessionIdError.Empty", name="P", session="")
    v.fail(
        "set_new",
        "SessionIdError.Oversized",
        {"actual": 257, "limit": 256},
        name="P",
        session="\u00e9" * 128 + "x",
        core=["no:pe"],
    )
    # StaleGeneration would follow (forge_grant's session goes through grant construction)
    v.fail(
        "forge_grant",
        "ActivationGrantError.ControlCharacterSessionId",
        name="f",
        session="\u0085",
        tool=NOTE.id,
        generation=0,
        digest="x",
    )
    # gate errors would follow
    v.fail("authorize", "ToolIdError.MissingNamespace", set="A", tool="bash")
    v.fail(
        "factory_calls", "ToolIdError.Oversized", {"actual": 65536, "limit": 200}, tool="t" * 65536
    )
    # rebuild and route
    v.fail("route", "SessionIdError.ControlCharacters", set=None, into="R", fallback_session="a\rb")
    v.fail("catalog_remove", "ToolIdError.Empty", id="")
    v.fail(
        "catalog_upsert",
        "ToolIdError.InvalidNamespace",
        replaced="-x:y",
        source=BASH.source,
        provenance=BASH.provenance,
        schema={},
    )
    state(v, GEN, SORTED_STANDARD)
    snapshot(v, "A", "s-a", GEN, 0, [BASH], [])
    v.protocol({"op": "snapshot", "set": "P"})
    return v


def _hostile_names() -> Vector:
    v = Vector(
        "hostile/huge-and-odd-values",
        "Huge or odd but well-typed values never crash the adapter: 64 KiB set and grant names, "
        "64 KiB schemas and summaries, NUL and ESC in free-text fields, oversized ids in every "
        "id field.",
        ("hostile", "protocol"),
    )
    big = "N" * 65536
    insert(v, BASH, 1)
    v.ok("set_new", name=big, session="s", core=[BASH.id])
    v.ok("set_new", name="\u0000\u001b", session="s", core=[])
    issue(v, big, "s", BASH, 1)
    v.fail("activate", "ActivationError.AlreadyCore", {"tool": BASH.id}, set=big, grant=big)
    v.ok("activate", set="\u0000\u001b", grant=big)
    snapshot(v, big, "s", 1, 0, [BASH], [])
    snapshot(v, "\u0000\u001b", "s", 1, 1, [], [(BASH, 1)])
    huge_schema = {"description": "\u0000\u001b\u0085" * 20000, "enum": list(range(2000))}
    rec = Rec(src_builtin("huge"), P_BUILTIN, huge_schema)
    v.ok(
        "catalog_insert",
        {"id": rec.id, "generation": 2},
        summary="\u0000" * 65536,
        runtime_name="\u001b" * 300,
        **rec.request(),
    )
    v.ok("catalog_state", {"generation": 2, "records": [BASH.state(), rec.state()]})
    oversized = "a:" + "b" * 65534
    id_cases: list[tuple[str, Obj]] = [
        ("tool_id_parse", {"raw": oversized}),
        ("catalog_remove", {"id": oversized}),
        ("factory_calls", {"tool": oversized}),
        ("issue_grant", {"name": "g", "session": "s", "tool": oversized}),
        ("activate_user", {"set": big, "tool": oversized}),
        ("revoke", {"set": big, "tool": oversized}),
        ("authorize", {"set": big, "tool": oversized}),
        ("set_new", {"name": "Q", "session": "s", "core": [oversized]}),
        ("activate_model", {"set": big, "authority": "unauthorized", "tools": [oversized]}),
    ]
    for op, fields in id_cases:
        v.fail(op, "ToolIdError.Oversized", {"actual": 65536, "limit": 200}, **fields)
    session_cases: list[tuple[str, Obj]] = [
        ("session_id_parse", {"raw": "s" * 65536}),
        ("set_default_core", {"name": "Q", "session": "s" * 65536}),
        ("route", {"set": None, "into": "Q", "fallback_session": "s" * 65536}),
    ]
    for op, fields in session_cases:
        v.fail(op, "SessionIdError.Oversized", {"actual": 65536, "limit": 256}, **fields)
    v.fail(
        "forge_grant",
        "ActivationGrantError.OversizedSessionId",
        {"actual": 65536, "limit": 256},
        name="g",
        session="s" * 65536,
        tool=BASH.id,
        generation=0,
        digest="d" * 65536,
    )
    v.protocol({"op": "snapshot", "set": "Q"})
    return v


# --- the adapter's own bad-input cases (formerly tests/adapter/test_protocol_errors.py) ---------

M_BASH = Rec(src_builtin("bash"), P_BUILTIN, {"type": "object"}, runtime_name="bash")
M_LOOKUP = Rec(src_mcp("srv", "lookup"), p_mcp("srv"), {"type": "object", "n": 1})
M_FETCH = Rec(src_mcp("srv", "fetch"), p_mcp("srv"), {})


def _populated(v: Vector) -> Vector:
    """Records, two sets, two grants, an activation and one counted authorization."""
    for generation, rec in enumerate([M_BASH, M_LOOKUP, M_FETCH], 1):
        insert(v, rec, generation)
    v.ok("set_new", name="A", session="s1", core=[M_BASH.id])
    v.ok("set_progressive_core", name="P", session="s2")
    issue(v, "g1", "s1", M_LOOKUP, 3)
    issue(v, "g2", "s1", M_FETCH, 3)
    v.ok("activate", set="A", grant="g1")
    return v.ok(
        "authorize", {"tool": M_LOOKUP.id, "basis": exact_basis(3)}, set="A", tool=M_LOOKUP.id
    )


def _populated_unchanged(v: Vector, generation: int = 3) -> Vector:
    """Everything _populated built is still there, exactly; then g2 still activates."""
    state(v, generation, [M_BASH, M_FETCH, M_LOOKUP])
    snapshot(v, "A", "s1", 3, 1, [M_BASH], [(M_LOOKUP, 3)])
    v.ok("snapshot", {"session": "s2", "activated": []}, set="P")
    v.ok("factory_calls", {"calls": 1}, tool=M_LOOKUP.id)
    v.ok("factory_calls", {"calls": 0}, tool=M_BASH.id)
    v.protocol({"op": "snapshot", "set": "N"})
    return v


def _adapter_malformed() -> Vector:
    v = Vector(
        "protocol/bad-lines-change-nothing",
        "Every kind of bad request line - not UTF-8, not JSON, not an object, no or unknown op, "
        "a missing or wrong-typed field, an unknown set, grant, kind or authority - answers one "
        "Protocol reply and leaves a populated world (records, sets, grants, an activation, "
        "factory counters) exactly as it was.",
        ("protocol", "no-partial-mutation", "raw-line"),
    )
    _populated(v)
    for data in [b"\xff\xfe\x80", '{"op":"hello","x":"\u00e9'.encode()[:-1] + b'"}']:
        v.raw(data)
    for text in ["{not json", '{"op":"hello"} x', '["op","hello"]', "42", '"hello"', "null"]:
        v.line(text)
    for text in ["", "   ", "{}", '{"op": 5}', '{"op": "launch_missiles"}']:
        v.line(text)
    v.line('{"op": "catalog_set_generation", "value": 1.0}')
    v.line(
        '{"op":"forge_grant","name":"f","session":"s1","tool":"mcp.srv:lookup",'
        '"generation":2.0,"digest":"00"}'
    )
    source_zz = {"kind": "builtin", "name": "zz"}
    bad: list[Obj] = [
        {"op": "activate", "set": "A"},
        {"op": "snapshot"},
        {"op": "catalog_set_generation", "value": True},
        {"op": "catalog_rebase_past", "prior": "3"},
        {"op": "catalog_set_generation", "value": -1},
        {"op": "catalog_set_generation", "value": 2**64},
        {"op": "rebuild", "set": "A", "into": "N", "progressive": 1},
        {"op": "rebuild", "set": "A", "into": "A", "progressive": "yes"},
        {"op": "activate_many", "set": "A", "grants": "g2"},
        {"op": "activate_many", "set": "A", "grants": ["g2", 3]},
        {"op": "snapshot", "set": "nope"},
        {"op": "activate", "set": "A", "grant": "nope"},
        {"op": "activate_many", "set": "A", "grants": ["g2", "x"]},
        {"op": "revoke", "set": "nope", "tool": M_LOOKUP.id},
        {"op": "activate_model", "set": "A", "authority": "confirmed", "tools": []},
        {"op": "authorize", "set": "A", "tool": 7},
        {"op": "set_new", "name": "N", "session": "s", "core": M_BASH.id},
        {"op": "catalog_insert", "source": {"kind": "?"}, "provenance": P_BUILTIN, "schema": {}},
        {
            "op": "catalog_insert",
            "source": {"kind": "mcp", "server_id": "srv"},
            "provenance": p_mcp("srv"),
            "schema": {},
        },
        {
            "op": "catalog_insert",
            "source": source_zz,
            "provenance": {"kind": "trusted"},
            "schema": {},
        },
        {
            "op": "catalog_insert",
            "source": source_zz,
            "provenance": P_BUILTIN,
            "schema": {},
            "tags": "x",
        },
        {"op": "catalog_insert", "source": source_zz},
        {"op": "route", "set": None, "into": "N"},
        {"op": "route", "set": "nope", "into": "N", "fallback_session": "s"},
        {"op": "carry_forward_enabled", "env": 0},
        {"op": "resolve", "wire_name": None},
        {"op": "catalog_remove", "id": [M_LOOKUP.id]},
    ]
    for request in bad:
        v.protocol(request)
    _populated_unchanged(v)
    return v.ok("activate", set="A", grant="g2")


def _adapter_rejections() -> Vector:
    v = Vector(
        "protocol/rejections-change-nothing",
        "Field errors (each before the operation error the request would otherwise meet) and "
        "typed operation rejections, up to generation exhaustion, leave a populated world "
        "exactly as it was.",
        ("protocol", "no-partial-mutation", "field-errors"),
    )
    _populated(v)
    s1 = {"name": "g9", "session": "s1"}
    forge = {"name": "g9", "tool": "a:b", "generation": 0, "digest": ""}
    unauthorized = {"set": "A", "authority": "unauthorized"}
    field_errors: list[tuple[str, str, Obj]] = [
        ("activate_model", "ToolIdError.InvalidNamespace", {**unauthorized, "tools": ["Bad:x"]}),
        ("activate_model", "ToolIdError.Empty", {**unauthorized, "tools": [""]}),
        ("activate_model", "Protocol", {**unauthorized, "set": "nope", "tools": []}),
        ("issue_grant", "SessionIdError.Empty", {**s1, "session": "", "tool": "x:y"}),
        ("issue_grant", "ToolIdError.InvalidName", {**s1, "tool": "mcp.srv:x:y"}),
        ("forge_grant", "ActivationGrantError.EmptySessionId", {**forge, "session": ""}),
        (
            "forge_grant",
            "ActivationGrantError.ControlCharacterSessionId",
            {**forge, "session": "s\n"},
        ),
        (
            "route",
            "SessionIdError.ControlCharacters",
            {"set": "A", "into": "R", "fallback_session": "\u0000"},
        ),
        (
            "set_new",
            "ToolIdError.MissingNamespace",
            {"name": "N", "session": "s", "core": [M_BASH.id, "nocolon"]},
        ),
        ("revoke", "ToolIdError.InvalidNamespace", {"set": "A", "tool": "A:b"}),
        ("catalog_upsert", "ToolIdError.Empty", {"replaced": "", "source": src_builtin("x")}),
        (
            "catalog_insert",
            "ToolIdError.Oversized",
            {"id": "a" * 201, "source": src_builtin("x"), "provenance": P_BUILTIN, "schema": {}},
        ),
        ("session_id_parse", "SessionIdError.Oversized", {"raw": "x" * 300}),
    ]
    for op, code, fields in field_errors:
        v.fail(op, code, **fields)
    v.fail(
        "activate", "ActivationError.AlreadyActivated", {"tool": M_LOOKUP.id}, set="A", grant="g1"
    )
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.AlreadyActivated",
        {"tool": M_LOOKUP.id},
        set="A",
        grants=["g2", "g1"],
    )
    v.fail("activate_model", "HostActivationError.ConfirmationRequired", **unauthorized, tools=[])
    v.fail("revoke", "ExactRevocationError.CoreTool", {"tool": M_BASH.id}, set="A", tool=M_BASH.id)
    v.fail(
        "authorize",
        "ToolAuthorizationError.NotActivated",
        {"tool": M_FETCH.id},
        set="A",
        tool=M_FETCH.id,
    )
    wide = "\u00e9" * 40000
    unknown = {"wire_name": "\u00e9" * 64}
    v.fail("authorize_wire", "ToolAuthorizationError.UnknownTool", unknown, set="A", wire_name=wide)
    v.fail("resolve", "ToolAuthorizationError.UnknownTool", unknown, wire_name=wide)
    v.fail(
        "set_new",
        "SessionToolSetError.UnknownCoreTool",
        {"tool": "builtin:nope"},
        name="A",
        session="s9",
        core=["builtin:nope"],
    )
    v.fail(
        "catalog_insert",
        "CatalogError.DuplicateToolId",
        {"tool": M_BASH.id},
        source=M_BASH.source,
        provenance=P_BUILTIN,
        schema={"other": True},
    )
    _populated_unchanged(v)
    v.ok("catalog_set_generation", {"generation": U64_MAX}, value=U64_MAX)
    v.fail(
        "catalog_insert",
        "CatalogError.GenerationExhausted",
        source=src_builtin("zz"),
        provenance=P_BUILTIN,
        schema={},
    )
    v.fail("catalog_rebase_past", "CatalogGenerationOverflow", prior=0)
    return _populated_unchanged(v, U64_MAX)


def _seam_rewinds_stale_grant() -> Vector:
    t0 = Rec(src_mcp("srv-a", "t0"), p_mcp("srv-a"), {"type": "object", "x-v": 0})
    t1 = Rec(src_mcp("srv-a", "t1"), p_mcp("srv-a"), {"type": "object", "x-v": 1})
    t2 = Rec(src_mcp("srv-a", "t2"), p_mcp("srv-a"), {"type": "object", "x-v": 2})
    v = Vector(
        "protocol/set-generation-seam-revives-a-stale-grant",
        "The hazard grant.refused_after_catalog_change is proved with SPEC.md's operations, "
        "which only raise the catalog generation. The catalog_set_generation test seam sets the "
        "counter only, so it can rewind it: a grant issued at generation 1 is refused "
        "StaleGeneration after a catalog change (generation 2), and after the seam rewinds to "
        "0 and another insert brings the counter back to 1, activate accepts that same grant.",
        ("protocol", "seam", "counters"),
    )
    insert(v, t0, 1)
    v.ok("set_new", name="A", session="s-1", core=[])
    issue(v, "g", "s-1", t0, 1)
    insert(v, t1, 2)
    v.fail(
        "activate",
        "ActivationError.StaleGeneration",
        {"grant": 1, "catalog": 2},
        set="A",
        grant="g",
    )
    v.ok("catalog_set_generation", {"generation": 0}, value=0)
    insert(v, t2, 1)
    v.ok("activate", set="A", grant="g")
    v.ok("authorize", {"tool": t0.id, "basis": exact_basis(1)}, set="A", tool=t0.id)
    return state(v, 1, sorted([t0, t1, t2], key=lambda r: r.id.encode()))


def vectors() -> list[Vector]:
    return [
        _hello_reset(),
        _malformed(),
        _u64_fields(),
        _field_first(),
        _hostile_names(),
        _adapter_malformed(),
        _adapter_rejections(),
        _seam_rewinds_stale_grant(),
    ]
