"""Host entry points (SPEC.md 5): issuance, user and model activation, routing."""

from __future__ import annotations

import pytest

from impl.impl_support import (
    CountingFactory,
    builtin,
    catalog_of,
    mcp,
    observe,
    record,
    rejects,
    set_state,
    sid,
)
from session_toolset import (
    ActivationAuthority,
    BuiltinRuntime,
    McpConfig,
    SessionActivationGrant,
    SessionToolSet,
    SharedSessionToolSet,
    ToolCatalog,
    ToolId,
    UnknownSource,
    activate_exact_for_user,
    activate_model_initiated,
    issue_exact_grant,
    route_session_set,
)
from session_toolset.errors import (
    ActivationStaleSnapshot,
    BulkGrant,
    HostBulk,
    HostConfirmationRequired,
    HostIssuance,
    IssuanceSourceProvenanceMismatch,
    IssuanceUnknownTool,
    IssuanceUntrustedSource,
)

pytestmark = pytest.mark.spec("5", "6.atomic-batches", "6.no-partial-mutation")

BASH = ToolId.builtin("bash")
LOOKUP = ToolId.mcp("srv", "lookup")
FETCH = ToolId.mcp("srv", "fetch")
DYN = ToolId.unclassified("dyn")
SKEW = ToolId.mcp("srv", "skew")
MISSING = ToolId.parse("mcp.srv:missing")


def world() -> tuple[ToolCatalog, SessionToolSet, SessionToolSet, CountingFactory]:
    factory = CountingFactory()
    catalog = catalog_of(
        builtin("bash", factory=factory),
        mcp("srv", "lookup", factory=factory),
        mcp("srv", "fetch", factory=factory),
        record(DYN, UnknownSource("dyn"), BuiltinRuntime(), factory=factory),
        mcp("srv", "skew", provenance=McpConfig("other"), factory=factory),
    )
    one = SessionToolSet.new(sid("s1"), [BASH], catalog)
    two = SessionToolSet.new(sid("s2"), [], catalog)
    return catalog, one, two, factory


# --- issue_exact_grant -----------------------------------------------------------------------


def test_issue_grant_at_current_generation_and_digest_and_pure() -> None:
    catalog, one, two, factory = world()
    before = observe([catalog], [one, two], [factory])
    grant = issue_exact_grant(catalog, sid("anyone"), LOOKUP)
    rec = catalog.get(LOOKUP)
    assert rec is not None
    assert grant == SessionActivationGrant(
        sid("anyone"), LOOKUP, catalog.generation, rec.schema_digest
    )
    assert observe([catalog], [one, two], [factory]) == before


def test_issue_unknown_tool() -> None:
    catalog, one, two, factory = world()
    err = rejects(
        IssuanceUnknownTool,
        lambda: issue_exact_grant(catalog, sid("s1"), MISSING),
        catalogs=[catalog],
        sets=[one, two],
        factories=[factory],
    )
    assert err.code == "GrantIssuanceError.UnknownTool"
    assert err.payload() == {"tool": MISSING.text}


def test_issue_untrusted_and_mismatched() -> None:
    catalog, one, two, factory = world()
    err = rejects(
        IssuanceUntrustedSource,
        lambda: issue_exact_grant(catalog, sid("s1"), DYN),
        catalogs=[catalog],
        sets=[one, two],
        factories=[factory],
    )
    assert err.code == "GrantIssuanceError.UntrustedSource"
    assert err.payload() == {"tool": DYN.text}
    err2 = rejects(
        IssuanceSourceProvenanceMismatch,
        lambda: issue_exact_grant(catalog, sid("s1"), SKEW),
        catalogs=[catalog],
        sets=[one, two],
        factories=[factory],
    )
    assert err2.code == "GrantIssuanceError.SourceProvenanceMismatch"
    assert err2.payload() == {"tool": SKEW.text}


# --- activate_exact_for_user -----------------------------------------------------------------


def test_user_activation_succeeds_for_the_sets_session() -> None:
    catalog, one, two, factory = world()
    before_two = set_state(two)
    assert activate_exact_for_user(one, catalog, LOOKUP) == 1
    ((tool_id, item),) = one.activated()
    assert tool_id == LOOKUP
    assert item.grant.session_id == one.session
    assert one.schema_generation == 1
    assert set_state(two) == before_two
    assert factory.calls == 0


def test_user_activation_issuance_errors_are_wrapped() -> None:
    catalog, one, two, factory = world()
    for tool, code in (
        (MISSING, "HostActivationError.Issuance.UnknownTool"),
        (DYN, "HostActivationError.Issuance.UntrustedSource"),
        (SKEW, "HostActivationError.Issuance.SourceProvenanceMismatch"),
    ):
        err = rejects(
            HostIssuance,
            lambda t=tool: activate_exact_for_user(one, catalog, t),  # type: ignore[misc]
            catalogs=[catalog],
            sets=[one, two],
            factories=[factory],
        )
        assert err.code == code
        assert err.payload() == {"tool": tool.text}
        assert err.__cause__ is err.inner


def test_user_activation_bulk_errors_are_wrapped_twice() -> None:
    catalog, one, two, factory = world()
    err = rejects(
        HostBulk,
        lambda: activate_exact_for_user(one, catalog, BASH),
        catalogs=[catalog],
        sets=[one, two],
        factories=[factory],
    )
    assert err.code == "HostActivationError.Bulk.Grant.AlreadyCore"
    assert err.payload() == {"tool": BASH.text}
    activate_exact_for_user(one, catalog, LOOKUP)
    err = rejects(
        HostBulk,
        lambda: activate_exact_for_user(one, catalog, LOOKUP),
        catalogs=[catalog],
        sets=[one, two],
    )
    assert err.code == "HostActivationError.Bulk.Grant.AlreadyActivated"


def test_user_activation_on_a_stale_set_is_stale_snapshot() -> None:
    catalog, one, two, factory = world()
    catalog.insert(builtin("unrelated"))
    err = rejects(
        HostBulk,
        lambda: activate_exact_for_user(one, catalog, LOOKUP),
        catalogs=[catalog],
        sets=[one, two],
        factories=[factory],
    )
    assert err.code == "HostActivationError.Bulk.Grant.StaleSnapshot"
    assert err.payload() == {"set": 5, "catalog": 6}
    assert isinstance(err.inner, BulkGrant)
    assert isinstance(err.inner.inner, ActivationStaleSnapshot)


# --- activate_model_initiated ----------------------------------------------------------------


def test_unauthorized_is_confirmation_required_before_anything_else() -> None:
    catalog, one, two, factory = world()
    catalog.insert(builtin("unrelated"))  # stale set
    for tools in ([], [LOOKUP], [MISSING, DYN, LOOKUP, LOOKUP, BASH]):
        err = rejects(
            HostConfirmationRequired,
            lambda ts=tools: activate_model_initiated(  # type: ignore[misc]
                ActivationAuthority.UNAUTHORIZED, one, catalog, ts
            ),
            catalogs=[catalog],
            sets=[one, two],
            factories=[factory],
        )
        assert err.code == "HostActivationError.ConfirmationRequired"
        assert err.payload() == {}


def test_confirmed_applies_the_batch_atomically() -> None:
    catalog, one, _, factory = world()
    n = activate_model_initiated(ActivationAuthority.MODEL_CONFIRMED, one, catalog, [FETCH, LOOKUP])
    assert n == 2
    assert [t for t, _ in one.activated()] == [FETCH, LOOKUP]
    assert one.schema_generation == 1
    assert factory.calls == 0


def test_confirmed_empty_request_applies_nothing() -> None:
    catalog, one, _, _ = world()
    before = set_state(one)
    assert activate_model_initiated(ActivationAuthority.MODEL_CONFIRMED, one, catalog, []) == 0
    assert set_state(one) == before


def test_confirmed_first_issuance_failure_wins_and_nothing_applies() -> None:
    catalog, one, two, factory = world()
    err = rejects(
        HostIssuance,
        lambda: activate_model_initiated(
            ActivationAuthority.MODEL_CONFIRMED, one, catalog, [LOOKUP, SKEW, MISSING]
        ),
        catalogs=[catalog],
        sets=[one, two],
        factories=[factory],
    )
    assert err.code == "HostActivationError.Issuance.SourceProvenanceMismatch"
    assert err.payload() == {"tool": SKEW.text}


def test_every_grant_is_issued_before_the_bulk_is_applied() -> None:
    # First id would fail in the bulk step (already core), the second at issuance: issuance
    # of every grant comes first, so the issuance error wins.
    catalog, one, two, factory = world()
    err = rejects(
        HostIssuance,
        lambda: activate_model_initiated(
            ActivationAuthority.MODEL_CONFIRMED, one, catalog, [BASH, MISSING]
        ),
        catalogs=[catalog],
        sets=[one, two],
        factories=[factory],
    )
    assert err.code == "HostActivationError.Issuance.UnknownTool"
    assert err.payload() == {"tool": MISSING.text}


def test_confirmed_duplicate_is_bulk_duplicate_request() -> None:
    catalog, one, two, factory = world()
    err = rejects(
        HostBulk,
        lambda: activate_model_initiated(
            ActivationAuthority.MODEL_CONFIRMED, one, catalog, [LOOKUP, FETCH, LOOKUP]
        ),
        catalogs=[catalog],
        sets=[one, two],
        factories=[factory],
    )
    assert err.code == "HostActivationError.Bulk.DuplicateRequest"
    assert err.payload() == {"tool": LOOKUP.text}


def test_confirmed_bulk_grant_error_in_request_order() -> None:
    catalog, one, two, factory = world()
    activate_exact_for_user(one, catalog, FETCH)
    err = rejects(
        HostBulk,
        lambda: activate_model_initiated(
            ActivationAuthority.MODEL_CONFIRMED, one, catalog, [LOOKUP, BASH, FETCH]
        ),
        catalogs=[catalog],
        sets=[one, two],
        factories=[factory],
    )
    assert err.code == "HostActivationError.Bulk.Grant.AlreadyCore"


# --- route_session_set -----------------------------------------------------------------------


def test_route_returns_a_copy_of_the_retained_set_as_is_even_when_stale() -> None:
    catalog, one, _, _ = world()
    activate_exact_for_user(one, catalog, LOOKUP)
    shared = SharedSessionToolSet(one)
    catalog.insert(builtin("unrelated"))
    routed = route_session_set(shared, catalog, lambda: sid("fallback"))
    assert set_state(routed) == set_state(one)
    assert routed.is_stale(catalog)
    routed.revoke_exact(LOOKUP)  # the copy is independent of the retained set
    assert len(shared.snapshot().activated()) == 1


def test_route_with_a_plain_retained_set() -> None:
    catalog, one, _, _ = world()
    routed = route_session_set(one, catalog, lambda: sid("fallback"))
    assert set_state(routed) == set_state(one)
    assert routed is not one


def test_route_without_a_retained_set_builds_a_default_set() -> None:
    catalog, _, _, _ = world()
    routed = route_session_set(None, catalog, lambda: sid("fallback"))
    expected = SessionToolSet.default_core_for_catalog(sid("fallback"), catalog)
    assert set_state(routed) == set_state(expected)
    assert routed.activated() == ()
