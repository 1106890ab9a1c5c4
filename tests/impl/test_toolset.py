"""SessionToolSet (SPEC.md 3): builders, activation order, atomic batches, revocation, rebuild."""

from __future__ import annotations

import pytest

from impl.impl_support import (
    OTHER_SCHEMA,
    builtin,
    catalog_of,
    forged,
    grant_for,
    mcp,
    record,
    rejects,
    set_state,
    sid,
    unknown,
)
from session_toolset import (
    BuiltinRuntime,
    CatalogGeneration,
    DroppedActivation,
    DropReason,
    McpConfig,
    McpSource,
    RuntimeLease,
    SessionActivationGrant,
    SessionToolSet,
    ToolCatalog,
    ToolId,
    UnknownSource,
    Unverified,
    carry_forward_enabled,
    rebuild_session_set,
)
from session_toolset.errors import (
    ActivationAlreadyActivated,
    ActivationAlreadyCore,
    ActivationDigestMismatch,
    ActivationSessionMismatch,
    ActivationStaleGeneration,
    ActivationStaleSnapshot,
    ActivationUnknownTool,
    BulkDuplicateRequest,
    BulkGrant,
    BulkSourceProvenanceMismatch,
    BulkUntrustedSource,
    RevocationCoreTool,
    RevocationNotActivated,
    UnknownCoreTool,
)

pytestmark = pytest.mark.spec("3", "6")

BASH = ToolId.builtin("bash")
READ = ToolId.builtin("read")
LOOKUP = ToolId.mcp("srv", "lookup")
FETCH = ToolId.mcp("srv", "fetch")
MISMATCH = ToolId.mcp("srv", "mismatch")
DYN = ToolId.unclassified("dyn")
MISSING = ToolId.parse("mcp.srv:missing")


def world() -> tuple[ToolCatalog, SessionToolSet, SessionToolSet]:
    """A catalog at generation 6 and two sets on it (session s1 with core bash, and s2)."""
    catalog = catalog_of(
        builtin("bash"),
        builtin("read"),
        mcp("srv", "lookup"),
        mcp("srv", "fetch"),
        mcp("srv", "mismatch", provenance=McpConfig("other")),
        record(DYN, UnknownSource("dyn"), BuiltinRuntime()),
    )
    one = SessionToolSet.new(sid("s1"), [BASH], catalog)
    two = SessionToolSet.new(sid("s2"), [BASH, READ], catalog)
    return catalog, one, two


# --- builders --------------------------------------------------------------------------------


def test_new_pins_digest_and_provenance_with_zero_activations() -> None:
    catalog, one, _ = world()
    assert one.session == sid("s1")
    assert one.catalog_generation == catalog.generation
    assert one.schema_generation == 0
    assert one.activated() == ()
    ((tool_id, pin),) = one.core()
    rec = catalog.get(BASH)
    assert rec is not None
    assert tool_id == BASH
    assert (pin.schema_digest, pin.provenance) == (rec.schema_digest, rec.provenance)


def test_new_reports_the_first_unknown_core_id_in_request_order() -> None:
    catalog, one, _ = world()
    second_missing = ToolId.parse("aaa:first-alphabetically")
    err = rejects(
        UnknownCoreTool,
        lambda: SessionToolSet.new(sid(), [BASH, MISSING, second_missing], catalog),
        catalogs=[catalog],
        sets=[one],
    )
    assert err.code == "SessionToolSetError.UnknownCoreTool"
    assert err.payload() == {"tool": MISSING.text}


def test_default_core_is_every_non_unverified_record() -> None:
    catalog, _, _ = world()
    catalog.insert(unknown("ghost"))  # Unverified: excluded
    catalog.insert(mcp("x", "y", provenance=Unverified()))
    default = SessionToolSet.default_core_for_catalog(sid(), catalog)
    core_ids = [t.text for t, _ in default.core()]
    assert core_ids == sorted(
        [BASH.text, READ.text, LOOKUP.text, FETCH.text, MISMATCH.text, DYN.text]
    )
    assert default.activated() == ()
    assert default.schema_generation == 0


def test_progressive_core_is_the_listed_builtins_present() -> None:
    names = ["bash", "read", "write", "edit", "grep", "find", "ls"]
    names += ["search_tools", "activate_tools", "search_skills", "load_skill"]
    catalog = catalog_of(
        *(builtin(n) for n in ["read", "load_skill", "grep", "other", "Bash"]),
        mcp("srv", "bash"),
    )
    progressive = SessionToolSet.progressive_core_for_catalog(sid(), catalog)
    assert [t.text for t, _ in progressive.core()] == [
        "builtin:grep",
        "builtin:load_skill",
        "builtin:read",
    ]
    full = catalog_of(*(builtin(n) for n in names))
    assert len(SessionToolSet.progressive_core_for_catalog(sid(), full).core()) == 11


def test_is_stale_reflects_generation_drift() -> None:
    catalog, one, _ = world()
    assert not one.is_stale(catalog)
    catalog.remove(MISSING)  # absent: not a mutation
    assert not one.is_stale(catalog)
    catalog.insert(builtin("new"))
    assert one.is_stale(catalog)


def test_new_set_inherits_nothing() -> None:
    catalog, one, _ = world()
    one.activate(grant_for(catalog, sid("s1"), LOOKUP), catalog)
    fresh = SessionToolSet.new(sid("s1"), [BASH], catalog)
    assert fresh.activated() == ()
    assert fresh.schema_generation == 0


# --- activate --------------------------------------------------------------------------------


def test_activate_records_grant_and_provenance_and_advances_schema_generation() -> None:
    catalog, one, two = world()
    before_two = set_state(two)
    grant = grant_for(catalog, sid("s1"), LOOKUP)
    one.activate(grant, catalog)
    ((tool_id, item),) = one.activated()
    assert tool_id == LOOKUP
    assert item.grant == grant
    assert item.provenance == McpConfig("srv")
    assert item.lease is RuntimeLease.NOT_ACQUIRED
    assert one.schema_generation == 1
    assert set_state(two) == before_two  # another set is never touched


def test_low_level_activate_does_not_check_trust() -> None:
    catalog, one, _ = world()
    one.activate(grant_for(catalog, sid("s1"), DYN), catalog)
    one.activate(grant_for(catalog, sid("s1"), MISMATCH), catalog)
    assert [t for t, _ in one.activated()] == sorted([DYN, MISMATCH])


def test_session_mismatch_beats_unknown_tool() -> None:
    catalog, one, two = world()
    grant = forged("other", MISSING, 99, "00")
    err = rejects(
        ActivationSessionMismatch,
        lambda: one.activate(grant, catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.code == "ActivationError.SessionMismatch"
    assert err.payload() == {}


def test_unknown_tool_beats_stale_generation() -> None:
    catalog, one, two = world()
    err = rejects(
        ActivationUnknownTool,
        lambda: one.activate(forged("s1", MISSING, 0, "00"), catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.code == "ActivationError.UnknownTool"
    assert err.payload() == {"tool": MISSING.text}


def test_stale_generation_beats_digest_mismatch() -> None:
    catalog, one, two = world()
    err = rejects(
        ActivationStaleGeneration,
        lambda: one.activate(forged("s1", LOOKUP, 2, "00"), catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.code == "ActivationError.StaleGeneration"
    assert (err.grant, err.catalog) == (2, 6)
    assert err.payload() == {"grant": 2, "catalog": 6}


def test_stale_generation_even_for_a_grant_from_the_future() -> None:
    catalog, one, _ = world()
    rec = catalog.get(LOOKUP)
    assert rec is not None
    err = rejects(
        ActivationStaleGeneration,
        lambda: one.activate(forged("s1", LOOKUP, 7, rec.schema_digest.hex), catalog),
        catalogs=[catalog],
        sets=[one],
    )
    assert err.payload() == {"grant": 7, "catalog": 6}


def test_digest_mismatch_beats_stale_snapshot() -> None:
    catalog, one, two = world()
    catalog.insert(builtin("unrelated"))  # set is now stale (6 vs 7)
    err = rejects(
        ActivationDigestMismatch,
        lambda: one.activate(forged("s1", LOOKUP, 7, "00"), catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.code == "ActivationError.DigestMismatch"
    assert err.payload() == {"tool": LOOKUP.text}


def test_stale_snapshot_when_the_grant_is_fresh_but_the_set_is_stale() -> None:
    catalog, one, two = world()
    one.activate(grant_for(catalog, sid("s1"), LOOKUP), catalog)
    catalog.insert(builtin("unrelated"))
    for tool in (FETCH, LOOKUP, BASH):  # fresh; already activated; core — stale snapshot first
        fresh = grant_for(catalog, sid("s1"), tool)
        err = rejects(
            ActivationStaleSnapshot,
            lambda g=fresh: one.activate(g, catalog),  # type: ignore[misc]
            catalogs=[catalog],
            sets=[one, two],
        )
        assert err.code == "ActivationError.StaleSnapshot"
        assert (err.set, err.catalog) == (6, 7)
        assert err.payload() == {"set": 6, "catalog": 7}


def test_already_activated() -> None:
    catalog, one, two = world()
    one.activate(grant_for(catalog, sid("s1"), LOOKUP), catalog)
    err = rejects(
        ActivationAlreadyActivated,
        lambda: one.activate(grant_for(catalog, sid("s1"), LOOKUP), catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.code == "ActivationError.AlreadyActivated"
    assert err.payload() == {"tool": LOOKUP.text}


def test_already_core() -> None:
    catalog, one, two = world()
    err = rejects(
        ActivationAlreadyCore,
        lambda: one.activate(grant_for(catalog, sid("s1"), BASH), catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.code == "ActivationError.AlreadyCore"
    assert err.payload() == {"tool": BASH.text}


# --- activate_many ---------------------------------------------------------------------------


def test_empty_batch_returns_zero_and_changes_nothing_even_when_stale() -> None:
    catalog, one, _ = world()
    catalog.insert(builtin("unrelated"))
    before = set_state(one)
    assert one.activate_many([], catalog) == 0
    assert set_state(one) == before


def test_batch_applies_all_with_one_schema_generation_advance() -> None:
    catalog, one, _ = world()
    grants = [grant_for(catalog, sid("s1"), t) for t in (READ, LOOKUP, FETCH)]
    assert one.activate_many(grants, catalog) == 3
    assert [t for t, _ in one.activated()] == sorted([READ, LOOKUP, FETCH])
    assert one.schema_generation == 1


def test_duplicate_request() -> None:
    catalog, one, two = world()
    g = grant_for(catalog, sid("s1"), LOOKUP)
    err = rejects(
        BulkDuplicateRequest,
        lambda: one.activate_many([g, grant_for(catalog, sid("s1"), FETCH), g], catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.code == "BulkActivationError.DuplicateRequest"
    assert err.payload() == {"tool": LOOKUP.text}


def test_duplicate_is_detected_by_tool_id_before_the_duplicate_is_validated() -> None:
    catalog, one, two = world()
    good = grant_for(catalog, sid("s1"), LOOKUP)
    bad_same_tool = forged("s1", LOOKUP, 0, "00")
    err = rejects(
        BulkDuplicateRequest,
        lambda: one.activate_many([good, bad_same_tool], catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.payload() == {"tool": LOOKUP.text}


def test_duplicate_request_beats_a_later_grant_error() -> None:
    catalog, one, two = world()
    g = grant_for(catalog, sid("s1"), LOOKUP)
    stale = forged("s1", FETCH, 1, "00")
    rejects(
        BulkDuplicateRequest,
        lambda: one.activate_many([g, g, stale], catalog),
        catalogs=[catalog],
        sets=[one, two],
    )


def test_grant_error_in_first_grant_beats_duplicate_at_third() -> None:
    catalog, one, two = world()
    stale = forged("s1", LOOKUP, 1, "00")
    err = rejects(
        BulkGrant,
        lambda: one.activate_many([stale, grant_for(catalog, sid("s1"), FETCH), stale], catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.code == "BulkActivationError.Grant.StaleGeneration"
    assert err.payload() == {"grant": 1, "catalog": 6}
    assert isinstance(err.inner, ActivationStaleGeneration)
    assert err.__cause__ is err.inner


@pytest.mark.parametrize(
    ("make_state", "code", "payload"),
    [
        ("session", "BulkActivationError.Grant.SessionMismatch", {}),
        ("unknown", "BulkActivationError.Grant.UnknownTool", {"tool": MISSING.text}),
        ("digest", "BulkActivationError.Grant.DigestMismatch", {"tool": LOOKUP.text}),
        ("stale_set", "BulkActivationError.Grant.StaleSnapshot", {"set": 6, "catalog": 7}),
        ("already", "BulkActivationError.Grant.AlreadyActivated", {"tool": LOOKUP.text}),
        ("core", "BulkActivationError.Grant.AlreadyCore", {"tool": BASH.text}),
    ],
)
def test_grant_errors_are_wrapped(make_state: str, code: str, payload: dict[str, object]) -> None:
    catalog, one, two = world()
    if make_state == "session":
        bad = forged("s2", LOOKUP, 6, "00")
    elif make_state == "unknown":
        bad = forged("s1", MISSING, 6, "00")
    elif make_state == "digest":
        bad = forged("s1", LOOKUP, 6, "00")
    elif make_state == "stale_set":
        catalog.insert(builtin("unrelated"))
        bad = grant_for(catalog, sid("s1"), LOOKUP)
    elif make_state == "already":
        one.activate(grant_for(catalog, sid("s1"), LOOKUP), catalog)
        bad = grant_for(catalog, sid("s1"), LOOKUP)
    else:
        bad = grant_for(catalog, sid("s1"), BASH)
    err = rejects(
        BulkGrant,
        lambda: one.activate_many([bad], catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.code == code
    assert err.payload() == payload


def test_untrusted_source_and_provenance_mismatch() -> None:
    catalog, one, two = world()
    err = rejects(
        BulkUntrustedSource,
        lambda: one.activate_many([grant_for(catalog, sid("s1"), DYN)], catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.code == "BulkActivationError.UntrustedSource"
    assert err.payload() == {"tool": DYN.text}
    err2 = rejects(
        BulkSourceProvenanceMismatch,
        lambda: one.activate_many([grant_for(catalog, sid("s1"), MISMATCH)], catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err2.code == "BulkActivationError.SourceProvenanceMismatch"
    assert err2.payload() == {"tool": MISMATCH.text}


def test_activate_validation_comes_before_trust_within_one_grant() -> None:
    catalog, one, two = world()
    one.activate(grant_for(catalog, sid("s1"), DYN), catalog)  # low level: no trust check
    err = rejects(
        BulkGrant,
        lambda: one.activate_many([grant_for(catalog, sid("s1"), DYN)], catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.code == "BulkActivationError.Grant.AlreadyActivated"


def test_first_failing_grant_in_request_order_decides() -> None:
    catalog, one, two = world()
    untrusted = grant_for(catalog, sid("s1"), DYN)
    stale = forged("s1", FETCH, 1, "00")
    good = grant_for(catalog, sid("s1"), LOOKUP)
    rejects(
        BulkUntrustedSource,
        lambda: one.activate_many([good, untrusted, stale], catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    err = rejects(
        BulkGrant,
        lambda: one.activate_many([good, stale, untrusted], catalog),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.code == "BulkActivationError.Grant.StaleGeneration"
    # ToolId order would put mcp.srv:mismatch after unknown:…; request order decides instead
    rejects(
        BulkSourceProvenanceMismatch,
        lambda: one.activate_many([grant_for(catalog, sid("s1"), MISMATCH), untrusted], catalog),
        catalogs=[catalog],
        sets=[one, two],
    )


# --- revoke ----------------------------------------------------------------------------------


def test_revoke_core_tool() -> None:
    catalog, one, two = world()
    err = rejects(
        RevocationCoreTool, lambda: one.revoke_exact(BASH), catalogs=[catalog], sets=[one, two]
    )
    assert err.code == "ExactRevocationError.CoreTool"
    assert err.payload() == {"tool": BASH.text}


def test_revoke_not_activated() -> None:
    catalog, one, two = world()
    for tool in (LOOKUP, MISSING):
        err = rejects(
            RevocationNotActivated,
            lambda t=tool: one.revoke_exact(t),  # type: ignore[misc]
            catalogs=[catalog],
            sets=[one, two],
        )
        assert err.code == "ExactRevocationError.NotActivated"
        assert err.payload() == {"tool": tool.text}


def test_revoke_removes_and_advances() -> None:
    catalog, one, _ = world()
    one.activate_many([grant_for(catalog, sid("s1"), t) for t in (LOOKUP, FETCH)], catalog)
    one.revoke_exact(LOOKUP)
    assert [t for t, _ in one.activated()] == [FETCH]
    assert one.schema_generation == 2
    catalog.insert(builtin("unrelated"))  # a stale set can still revoke
    one.revoke_exact(FETCH)
    assert one.activated() == ()
    assert one.schema_generation == 3


# --- rebuild ---------------------------------------------------------------------------------

A, B, C, D, E, F = (ToolId.mcp("srv", n) for n in "abcdef")


def rebuild_world() -> tuple[ToolCatalog, SessionToolSet]:
    catalog = catalog_of(builtin("bash"), *(mcp("srv", n) for n in "abcdef"))
    tool_set = SessionToolSet.progressive_core_for_catalog(sid("s1"), catalog)
    tool_set.activate_many([grant_for(catalog, sid("s1"), t) for t in (A, B, C, D, E, F)], catalog)
    return catalog, tool_set


def test_rebuild_carries_matching_and_drops_removed_and_drifted() -> None:
    catalog, old = rebuild_world()
    old_state = set_state(old)
    catalog.remove(A)  # removed
    catalog.upsert(B, mcp("srv", "b", OTHER_SCHEMA))  # digest drift
    # coherent imposter: same id and schema, another self-consistent source and provenance
    catalog.upsert(C, record(C, McpSource("other", "c"), McpConfig("other")))
    # provenance drift to Unverified
    catalog.upsert(D, mcp("srv", "d", provenance=Unverified()))
    # same digest, same provenance, but untrusted now (source no longer agrees)
    catalog.upsert(E, record(E, McpSource("evil", "e"), McpConfig("srv")))
    new, dropped = old.rebuilt_for_catalog(catalog, progressive=True)
    assert dropped == (
        DroppedActivation(A, DropReason.REMOVED),
        DroppedActivation(B, DropReason.DRIFTED),
        DroppedActivation(C, DropReason.DRIFTED),
        DroppedActivation(D, DropReason.DRIFTED),
        DroppedActivation(E, DropReason.DRIFTED),
    )
    ((carried_id, carried),) = new.activated()
    rec = catalog.get(F)
    assert rec is not None
    assert carried_id == F
    assert carried.grant == SessionActivationGrant(
        sid("s1"), F, catalog.generation, rec.schema_digest
    )
    assert carried.provenance == rec.provenance
    assert new.catalog_generation == catalog.generation
    assert not new.is_stale(catalog)
    assert new.schema_generation == old.schema_generation + 1
    assert [t for t, _ in new.core()] == [BASH]
    assert set_state(old) == old_state  # the old set is untouched


def test_rebuild_without_drops_keeps_schema_generation() -> None:
    catalog, old = rebuild_world()
    catalog.insert(builtin("unrelated"))
    new, dropped = old.rebuilt_for_catalog(catalog, progressive=True)
    assert dropped == ()
    assert new.schema_generation == old.schema_generation == 1
    assert [t for t, _ in new.activated()] == [A, B, C, D, E, F]
    assert all(a.grant.catalog_generation == catalog.generation for _, a in new.activated())


def test_now_core_activations_are_silently_not_carried() -> None:
    catalog = catalog_of(builtin("bash"), builtin("read"), mcp("srv", "a"))
    old = SessionToolSet.new(sid("s1"), [BASH], catalog)
    old.activate_many([grant_for(catalog, sid("s1"), t) for t in (READ, A)], catalog)
    new, dropped = old.rebuilt_for_catalog(catalog, progressive=True)  # read is progressive core
    assert dropped == ()
    assert [t for t, _ in new.core()] == [BASH, READ]
    assert [t for t, _ in new.activated()] == [A]
    assert new.schema_generation == old.schema_generation
    default, dropped_default = old.rebuilt_for_catalog(catalog, progressive=False)
    assert dropped_default == ()
    assert default.activated() == ()  # every trusted record is default core


def test_now_core_even_when_drifted_is_not_reported() -> None:
    catalog = catalog_of(builtin("bash"), builtin("read"))
    old = SessionToolSet.new(sid("s1"), [BASH], catalog)
    old.activate(grant_for(catalog, sid("s1"), READ), catalog)
    catalog.upsert(READ, builtin("read", OTHER_SCHEMA))
    new, dropped = old.rebuilt_for_catalog(catalog, progressive=True)
    assert dropped == ()
    assert new.schema_generation == old.schema_generation
    assert new.activated() == ()


def test_rebuild_of_a_set_without_activations_is_a_fresh_build() -> None:
    catalog, _ = rebuild_world()
    empty = SessionToolSet.new(sid("s9"), [], catalog)
    new, dropped = empty.rebuilt_for_catalog(catalog, progressive=False)
    assert dropped == ()
    assert set_state(new) == set_state(SessionToolSet.default_core_for_catalog(sid("s9"), catalog))


@pytest.mark.parametrize("progressive", [True, False])
def test_carry_forward_false_is_exactly_a_fresh_set(progressive: bool) -> None:
    catalog, old = rebuild_world()
    catalog.remove(A)
    old_state = set_state(old)
    new, dropped = rebuild_session_set(old, catalog, progressive=progressive, carry_forward=False)
    fresh = SessionToolSet.fresh_for_catalog(sid("s1"), catalog, progressive=progressive)
    assert dropped == ()
    assert set_state(new) == set_state(fresh)
    assert new.activated() == ()
    assert new.schema_generation == 0
    assert set_state(old) == old_state


def test_rebuild_session_set_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog, old = rebuild_world()
    monkeypatch.setenv("SYNAPS_TOOLSET_CARRY_FORWARD", "0")
    new, _ = rebuild_session_set(old, catalog, progressive=True)
    assert new.activated() == ()
    monkeypatch.setenv("SYNAPS_TOOLSET_CARRY_FORWARD", "1")
    carried, _ = rebuild_session_set(old, catalog, progressive=True)
    assert len(carried.activated()) == 6


@pytest.mark.parametrize(
    ("value", "enabled"),
    [
        (None, True),
        ("0", False),
        ("1", True),
        ("", True),
        ("00", True),
        (" 0", True),
        ("0 ", True),
        ("0\n", True),
        ("false", True),
        ("no", True),
        ("off", True),
    ],
)
def test_carry_forward_enabled_only_exactly_zero_disables(
    value: str | None, enabled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    environ = {} if value is None else {"SYNAPS_TOOLSET_CARRY_FORWARD": value}
    assert carry_forward_enabled(environ) is enabled
    if value is None:
        monkeypatch.delenv("SYNAPS_TOOLSET_CARRY_FORWARD", raising=False)
    else:
        monkeypatch.setenv("SYNAPS_TOOLSET_CARRY_FORWARD", value)
    assert carry_forward_enabled() is enabled


def test_rebuild_regrants_at_current_generation_for_the_gate() -> None:
    catalog, old = rebuild_world()
    catalog.rebase_past(CatalogGeneration(100))
    new, _ = old.rebuilt_for_catalog(catalog, progressive=True)
    assert {a.grant.catalog_generation.value for _, a in new.activated()} == {101}
