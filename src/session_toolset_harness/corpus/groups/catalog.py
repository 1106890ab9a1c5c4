"""SPEC.md 2: the ToolCatalog (insert, upsert, remove, rebase_past) and its generation counter."""

from __future__ import annotations

from session_toolset_harness.corpus.dsl import (
    P_BUILTIN,
    P_UNVERIFIED,
    Rec,
    Vector,
    insert,
    p_ext,
    p_mcp,
    src_builtin,
    src_ext,
    src_mcp,
    src_unknown,
    state,
    upsert,
)
from session_toolset_harness.corpus.groups.common import (
    BASH,
    LOOKUP,
    NOTE,
    READ,
    drifted,
)
from session_toolset_harness.corpus.spec import U64_MAX

G = "catalog"


def _insert_and_state() -> Vector:
    v = Vector(
        f"{G}/insert-and-state",
        "Each insert advances the generation by one; catalog_state lists records in plain "
        "byte-wise ToolId order ('-' < '.' < digits < ':' < '_' < letters), builtin sources "
        "without a name.",
        ("catalog", "ordering"),
    )
    v.ok("catalog_state", {"generation": 0, "records": []})
    a = Rec(src_builtin("x"), P_BUILTIN, explicit_id="a:x")
    a_dash = Rec(src_builtin("x"), P_BUILTIN, explicit_id="a-b:x")
    a_dot = Rec(src_builtin("x"), P_BUILTIN, explicit_id="a.b:x")
    a_zero = Rec(src_builtin("x"), P_BUILTIN, explicit_id="a0:x")
    a_under = Rec(src_builtin("x"), P_BUILTIN, explicit_id="a_b:x")
    name_short = Rec(src_builtin("x"), P_BUILTIN, explicit_id="a:x-y")
    for generation, rec in enumerate([a, a_under, a_zero, a_dot, a_dash, name_short], 1):
        insert(v, rec, generation)
    state(v, 6, [a_dash, a_dot, a_zero, a, name_short, a_under])
    unknown = Rec(src_unknown("Dyn Tool"), P_UNVERIFIED, {"type": "object", "x": [1]})
    insert(v, unknown, 7)
    ext = Rec(src_ext("acme", "deploy"), p_ext("acme"), None)
    insert(v, ext, 8)
    state(v, 8, [a_dash, a_dot, a_zero, a, name_short, a_under, ext, unknown])
    # Summary and tags are accepted whatever their size (they are bounded, not rejected).
    many = Rec(src_mcp("srv-a", "tagged"), p_mcp("srv-a"))
    v.ok(
        "catalog_insert",
        {"id": "mcp.srv-a:tagged", "generation": 9},
        summary="\u00e9" * 1000,
        tags=[f"tag-{i}-" + "t" * 40 for i in range(20)],
        **many.request(),
    )
    return v


def _duplicate() -> Vector:
    v = Vector(
        f"{G}/duplicate-id",
        "Inserting an id already present fails with DuplicateToolId and changes nothing, even "
        "when the new record differs in every other respect.",
        ("catalog", "no-partial-mutation"),
    )
    insert(v, BASH, 1)
    insert(v, READ, 2)
    v.fail("catalog_insert", "CatalogError.DuplicateToolId", {"tool": BASH.id}, **BASH.request())
    other = Rec(src_mcp("x", "y"), p_mcp("x"), {"other": True}, explicit_id=BASH.id)
    v.fail("catalog_insert", "CatalogError.DuplicateToolId", {"tool": BASH.id}, **other.request())
    state(v, 2, [BASH, READ])
    return v


def _explicit_id() -> Vector:
    v = Vector(
        f"{G}/explicit-id",
        "An explicit id is parsed strictly (field error, nothing stored); the derived id is used "
        "otherwise; the id need not match the source.",
        ("catalog", "tool-id", "field-errors"),
    )
    base = {"source": src_builtin("bash"), "provenance": P_BUILTIN, "schema": {}}
    v.fail("catalog_insert", "ToolIdError.MissingNamespace", id="BAD", **base)
    v.fail("catalog_insert", "ToolIdError.Empty", id="", **base)
    v.fail(
        "catalog_insert",
        "ToolIdError.Oversized",
        {"actual": 300, "limit": 200},
        id="a" * 300,
        **base,
    )
    v.fail("catalog_insert", "ToolIdError.InvalidNamespace", id="Builtin:bash", **base)
    v.fail("catalog_insert", "ToolIdError.InvalidName", id="builtin:Bash", **base)
    v.ok("catalog_state", {"generation": 0, "records": []})
    odd = Rec(src_builtin("bash"), P_BUILTIN, {}, explicit_id="zzz:elsewhere")
    insert(v, odd, 1)
    state(v, 1, [odd])
    return v


def _upsert() -> Vector:
    v = Vector(
        f"{G}/upsert-rules",
        "upsert(replaced, record): one mutation, one generation step; DuplicateToolId only when "
        "the record's id is present and is not the replaced id.",
        ("catalog", "upsert"),
    )
    insert(v, BASH, 1)
    insert(v, LOOKUP, 2)
    # replaced = own id: replace in place.
    bash2 = drifted(BASH, {"type": "object", "v": 2})
    upsert(v, BASH.id, bash2, 3)
    state(v, 3, [bash2, LOOKUP])
    # replaced = null, id absent: plain insert.
    upsert(v, None, NOTE, 4)
    # replaced = null, id present: duplicate.
    v.fail(
        "catalog_upsert",
        "CatalogError.DuplicateToolId",
        {"tool": NOTE.id},
        replaced=None,
        **NOTE.request(),
    )
    # replaced = another id, record id present: duplicate, nothing dropped.
    v.fail(
        "catalog_upsert",
        "CatalogError.DuplicateToolId",
        {"tool": NOTE.id},
        replaced=LOOKUP.id,
        **NOTE.request(),
    )
    state(v, 4, [bash2, LOOKUP, NOTE])
    # replaced = another id, record id absent: drop the replaced record, store, one step.
    grep = Rec(src_builtin("grep"), P_BUILTIN)
    upsert(v, LOOKUP.id, grep, 5)
    state(v, 5, [bash2, grep, NOTE])
    # replaced absent from the catalog, record id new: stores, one step.
    read = Rec(src_builtin("read"), P_BUILTIN)
    upsert(v, "mcp.gone:tool", read, 6)
    state(v, 6, [bash2, grep, read, NOTE])
    # replaced = own id but absent: store.
    upsert(v, LOOKUP.id, LOOKUP, 7)
    state(v, 7, [bash2, grep, read, LOOKUP, NOTE])
    # field errors first
    v.fail("catalog_upsert", "ToolIdError.MissingNamespace", replaced="nope", **NOTE.request())
    state(v, 7, [bash2, grep, read, LOOKUP, NOTE])
    return v


def _upsert_null() -> Vector:
    v = Vector(
        f"{G}/upsert-null-is-insert",
        "upsert with replaced null replaces nothing: it behaves as insert, side by side with it "
        "here - a new id is stored with one generation step and nothing dropped; a present id "
        "is DuplicateToolId whatever the record's schema or source, and at generation 2^64-1 "
        "still DuplicateToolId (checked before GenerationExhausted, as for insert), a new id "
        "GenerationExhausted; nothing changes.",
        ("catalog", "upsert", "boundary", "no-partial-mutation"),
    )
    insert(v, BASH, 1)
    upsert(v, None, LOOKUP, 2)
    state(v, 2, [BASH, LOOKUP])
    bash2 = drifted(BASH, {"type": "object", "v": 2})
    other = Rec(src_builtin("other"), P_BUILTIN, {"type": "object"}, explicit_id=LOOKUP.id)
    for generation in (2, U64_MAX):
        if generation == U64_MAX:
            v.ok("catalog_set_generation", {"generation": U64_MAX}, value=U64_MAX)
        for rec in (BASH, bash2, other):
            dup = {"tool": rec.id}
            v.fail("catalog_insert", "CatalogError.DuplicateToolId", dup, **rec.request())
            v.fail(
                "catalog_upsert",
                "CatalogError.DuplicateToolId",
                dup,
                replaced=None,
                **rec.request(),
            )
        state(v, generation, [BASH, LOOKUP])
    v.fail("catalog_insert", "CatalogError.GenerationExhausted", **NOTE.request())
    v.fail("catalog_upsert", "CatalogError.GenerationExhausted", replaced=None, **NOTE.request())
    return state(v, U64_MAX, [BASH, LOOKUP])


def _remove() -> Vector:
    v = Vector(
        f"{G}/remove",
        "remove: an absent id is not an error and changes nothing; a present one is dropped "
        "with one generation step; removal never reuses a generation.",
        ("catalog",),
    )
    insert(v, BASH, 1)
    insert(v, LOOKUP, 2)
    v.ok("catalog_remove", {"removed": False, "generation": 2}, id="builtin:nope")
    v.ok("catalog_remove", {"removed": True, "generation": 3}, id=LOOKUP.id)
    v.ok("catalog_remove", {"removed": False, "generation": 3}, id=LOOKUP.id)
    state(v, 3, [BASH])
    insert(v, LOOKUP, 4)
    state(v, 4, [BASH, LOOKUP])
    v.fail("catalog_remove", "ToolIdError.InvalidName", id="builtin:")
    v.ok("catalog_remove", {"removed": True, "generation": 5}, id=BASH.id)
    v.ok("catalog_remove", {"removed": True, "generation": 6}, id=LOOKUP.id)
    v.ok("catalog_state", {"generation": 6, "records": []})
    return v


def _exhausted() -> Vector:
    v = Vector(
        f"{G}/generation-exhausted",
        "At generation 2^64-1 every mutation fails closed with GenerationExhausted (insert, "
        "upsert, remove of a present id) and nothing changes; removing an absent id is no "
        "mutation and succeeds.",
        ("catalog", "counters", "boundary", "no-partial-mutation"),
    )
    insert(v, BASH, 1)
    v.ok("catalog_set_generation", {"generation": U64_MAX - 1}, value=U64_MAX - 1)
    insert(v, LOOKUP, U64_MAX)
    v.fail("catalog_insert", "CatalogError.GenerationExhausted", **NOTE.request())
    v.fail(
        "catalog_upsert",
        "CatalogError.GenerationExhausted",
        replaced=BASH.id,
        **drifted(BASH, {"changed": 1}).request(),
    )
    v.fail("catalog_upsert", "CatalogError.GenerationExhausted", replaced=None, **NOTE.request())
    v.fail("catalog_remove", "CatalogError.GenerationExhausted", id=LOOKUP.id)
    v.ok("catalog_remove", {"removed": False, "generation": U64_MAX}, id=NOTE.id)
    # The duplicate check comes before the generation check.
    v.fail("catalog_insert", "CatalogError.DuplicateToolId", {"tool": BASH.id}, **BASH.request())
    state(v, U64_MAX, [BASH, LOOKUP])
    return v


def _rebase() -> Vector:
    v = Vector(
        f"{G}/rebase-past",
        "rebase_past(prior): generation becomes max(current, prior)+1, or "
        "CatalogGenerationOverflow with nothing changed.",
        ("catalog", "counters", "boundary"),
    )
    insert(v, BASH, 1)
    v.ok("catalog_rebase_past", {"generation": 11}, prior=10)
    v.ok("catalog_rebase_past", {"generation": 12}, prior=3)
    v.ok("catalog_rebase_past", {"generation": 13}, prior=12)
    v.ok("catalog_rebase_past", {"generation": 14}, prior=0)
    state(v, 14, [BASH])
    v.ok("catalog_rebase_past", {"generation": U64_MAX}, prior=U64_MAX - 1)
    v.fail("catalog_rebase_past", "CatalogGenerationOverflow", prior=0)
    v.fail("catalog_rebase_past", "CatalogGenerationOverflow", prior=U64_MAX)
    state(v, U64_MAX, [BASH])
    v.ok("catalog_set_generation", {"generation": 0}, value=0)
    v.fail("catalog_rebase_past", "CatalogGenerationOverflow", prior=U64_MAX)
    state(v, 0, [BASH])
    v.ok("catalog_rebase_past", {"generation": 1}, prior=0)
    return v


def _set_generation() -> Vector:
    v = Vector(
        f"{G}/set-generation-seam",
        "catalog_set_generation sets only the counter (records untouched) and accepts the whole "
        "u64 range exactly (no rounding through doubles).",
        ("catalog", "boundary"),
    )
    insert(v, BASH, 1)
    for value in [0, 2**53 + 1, 2**63, U64_MAX, 2**64 - 2, 5]:
        v.ok("catalog_set_generation", {"generation": value}, value=value)
    state(v, 5, [BASH])
    insert(v, READ, 6)
    v.ok("catalog_set_generation", {"generation": 2**53 + 1}, value=2**53 + 1)
    insert(v, LOOKUP, 2**53 + 2)
    state(v, 2**53 + 2, [BASH, READ, LOOKUP])
    return v


def vectors() -> list[Vector]:
    return [
        _insert_and_state(),
        _duplicate(),
        _explicit_id(),
        _upsert(),
        _upsert_null(),
        _remove(),
        _exhausted(),
        _rebase(),
        _set_generation(),
    ]
