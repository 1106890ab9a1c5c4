"""Every concrete error variant, triggered through the public API, with its PROTOCOL.md code.

The table below is the coverage contract: ``test_every_variant_has_a_trigger`` enumerates every
concrete error class in :mod:`session_toolset.errors` and fails when one has no row, so a new
variant cannot be added without a test that raises it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import pytest

import session_toolset.errors as errors_module
from impl.impl_support import (
    OTHER_SCHEMA,
    builtin,
    catalog_of,
    forged,
    grant_for,
    mcp,
    record,
    sid,
)
from session_toolset import (
    ActivationAuthority,
    BuiltinRuntime,
    CatalogGeneration,
    ExecutionGate,
    McpConfig,
    RegisteredTool,
    ResolvedToolCall,
    SchemaDigest,
    SessionActivationGrant,
    SessionId,
    SessionToolSet,
    ToolCatalog,
    ToolId,
    ToolRegistry,
    UnknownSource,
    activate_exact_for_user,
    activate_model_initiated,
    issue_exact_grant,
)
from session_toolset.errors import SessionToolsetError

pytestmark = pytest.mark.spec("1.1", "1.2", "1.3", "1.5", "2", "3", "4", "5")

BASH = ToolId.builtin("bash")
LOOKUP = ToolId.mcp("srv", "lookup")
DYN = ToolId.unclassified("dyn")
SKEW = ToolId.mcp("srv", "skew")
MISSING = ToolId.parse("mcp.srv:missing")
MAX = 2**64 - 1


def _world() -> tuple[ToolCatalog, SessionToolSet]:
    catalog = catalog_of(
        builtin("bash"),
        mcp("srv", "lookup"),
        record(DYN, UnknownSource("dyn"), BuiltinRuntime()),
        mcp("srv", "skew", provenance=McpConfig("other")),
    )
    return catalog, SessionToolSet.new(sid("s1"), [BASH, DYN, SKEW], catalog)


def _stale() -> tuple[ToolCatalog, SessionToolSet]:
    catalog, tool_set = _world()
    catalog.insert(builtin("unrelated"))
    return catalog, tool_set


def _activated() -> tuple[ToolCatalog, SessionToolSet]:
    catalog, tool_set = _world()
    tool_set.activate(grant_for(catalog, sid("s1"), LOOKUP), catalog)
    return catalog, tool_set


def _gate(catalog: ToolCatalog, tool_set: SessionToolSet, tool: ToolId) -> None:
    ExecutionGate.authorize(catalog, tool_set, ResolvedToolCall.for_tool(tool))


def t_catalog_duplicate() -> None:
    catalog_of(builtin("bash")).insert(builtin("bash"))


def t_catalog_exhausted() -> None:
    catalog = ToolCatalog()
    catalog.force_generation(CatalogGeneration(MAX))
    catalog.insert(builtin("bash"))


def t_overflow() -> None:
    CatalogGeneration(MAX).checked_next()


def t_unknown_core() -> None:
    catalog, _ = _world()
    SessionToolSet.new(sid(), [MISSING], catalog)


def t_session_mismatch() -> None:
    catalog, tool_set = _world()
    tool_set.activate(grant_for(catalog, sid("s2"), LOOKUP), catalog)


def t_unknown_tool() -> None:
    catalog, tool_set = _world()
    tool_set.activate(forged("s1", MISSING, 4, "00"), catalog)


def t_stale_generation() -> None:
    catalog, tool_set = _world()
    tool_set.activate(forged("s1", LOOKUP, 3, "00"), catalog)


def t_digest_mismatch() -> None:
    catalog, tool_set = _world()
    tool_set.activate(forged("s1", LOOKUP, 4, "00"), catalog)


def t_stale_snapshot() -> None:
    catalog, tool_set = _stale()
    tool_set.activate(grant_for(catalog, sid("s1"), LOOKUP), catalog)


def t_already_activated() -> None:
    catalog, tool_set = _activated()
    tool_set.activate(grant_for(catalog, sid("s1"), LOOKUP), catalog)


def t_already_core() -> None:
    catalog, tool_set = _world()
    tool_set.activate(grant_for(catalog, sid("s1"), BASH), catalog)


def t_bulk_duplicate() -> None:
    catalog, tool_set = _world()
    g = grant_for(catalog, sid("s1"), LOOKUP)
    tool_set.activate_many([g, g], catalog)


def t_bulk_grant() -> None:
    catalog, tool_set = _stale()
    tool_set.activate_many([grant_for(catalog, sid("s1"), LOOKUP)], catalog)


def t_bulk_untrusted() -> None:
    catalog = catalog_of(record(DYN, UnknownSource("dyn"), BuiltinRuntime()))
    SessionToolSet.new(sid("s1"), [], catalog).activate_many(
        [grant_for(catalog, sid("s1"), DYN)], catalog
    )


def t_bulk_mismatch() -> None:
    catalog = catalog_of(mcp("srv", "skew", provenance=McpConfig("other")))
    SessionToolSet.new(sid("s1"), [], catalog).activate_many(
        [grant_for(catalog, sid("s1"), SKEW)], catalog
    )


def t_revoke_core() -> None:
    _, tool_set = _world()
    tool_set.revoke_exact(BASH)


def t_revoke_not_activated() -> None:
    _, tool_set = _world()
    tool_set.revoke_exact(LOOKUP)


def t_not_cataloged() -> None:
    catalog, tool_set = _world()
    _gate(catalog, tool_set, MISSING)


def t_schema_digest_mismatch() -> None:
    catalog, tool_set = _world()
    catalog.upsert(BASH, builtin("bash", OTHER_SCHEMA))
    _gate(catalog, tool_set, BASH)


def t_not_activated() -> None:
    catalog, tool_set = _world()
    _gate(catalog, tool_set, LOOKUP)


def t_gate_mismatch() -> None:
    catalog, tool_set = _world()
    _gate(catalog, tool_set, SKEW)


def t_gate_untrusted() -> None:
    catalog, tool_set = _world()
    _gate(catalog, tool_set, DYN)


def t_gate_unknown_wire() -> None:
    ExecutionGate.resolve(ToolRegistry([RegisteredTool("bash", BASH, builtin=True)]), "nope")


def t_issue_unknown() -> None:
    catalog, _ = _world()
    issue_exact_grant(catalog, sid(), MISSING)


def t_issue_untrusted() -> None:
    catalog, _ = _world()
    issue_exact_grant(catalog, sid(), DYN)


def t_issue_mismatch() -> None:
    catalog, _ = _world()
    issue_exact_grant(catalog, sid(), SKEW)


def t_confirmation() -> None:
    catalog, tool_set = _world()
    activate_model_initiated(ActivationAuthority.UNAUTHORIZED, tool_set, catalog, [LOOKUP])


def t_host_issuance() -> None:
    catalog, tool_set = _world()
    activate_exact_for_user(tool_set, catalog, MISSING)


def t_host_bulk() -> None:
    catalog, tool_set = _stale()
    activate_model_initiated(ActivationAuthority.MODEL_CONFIRMED, tool_set, catalog, [LOOKUP])


@dataclass(frozen=True)
class Row:
    cls: str
    code: str
    payload: dict[str, object]
    trigger: Callable[[], object]


def _grant(session: str) -> Callable[[], object]:
    def trigger() -> object:
        return SessionActivationGrant.create(
            session, LOOKUP, CatalogGeneration(0), SchemaDigest.of({})
        )

    return trigger


def _tool_id(raw: str) -> Callable[[], object]:
    return lambda: ToolId.parse(raw)


def _session(raw: str) -> Callable[[], object]:
    return lambda: SessionId.parse(raw)


ROWS = [
    Row("ToolIdEmpty", "ToolIdError.Empty", {}, _tool_id("")),
    Row(
        "ToolIdOversized",
        "ToolIdError.Oversized",
        {"actual": 201, "limit": 200},
        _tool_id("a:" + "b" * 199),
    ),
    Row("ToolIdMissingNamespace", "ToolIdError.MissingNamespace", {}, _tool_id("ab")),
    Row("ToolIdInvalidNamespace", "ToolIdError.InvalidNamespace", {}, _tool_id("A:b")),
    Row("ToolIdInvalidName", "ToolIdError.InvalidName", {}, _tool_id("a:B")),
    Row("SessionIdEmpty", "SessionIdError.Empty", {}, _session("")),
    Row(
        "SessionIdOversized",
        "SessionIdError.Oversized",
        {"actual": 257, "limit": 256},
        _session("x" * 257),
    ),
    Row("SessionIdControlCharacters", "SessionIdError.ControlCharacters", {}, _session("a\x85")),
    Row("CatalogGenerationOverflow", "CatalogGenerationOverflow", {}, t_overflow),
    Row("ActivationGrantEmptySessionId", "ActivationGrantError.EmptySessionId", {}, _grant("")),
    Row(
        "ActivationGrantOversizedSessionId",
        "ActivationGrantError.OversizedSessionId",
        {"actual": 300, "limit": 256},
        _grant("é" * 150),
    ),
    Row(
        "ActivationGrantControlCharacterSessionId",
        "ActivationGrantError.ControlCharacterSessionId",
        {},
        _grant("\x1b[2J"),
    ),
    Row(
        "CatalogDuplicateToolId",
        "CatalogError.DuplicateToolId",
        {"tool": "builtin:bash"},
        t_catalog_duplicate,
    ),
    Row("CatalogGenerationExhausted", "CatalogError.GenerationExhausted", {}, t_catalog_exhausted),
    Row(
        "UnknownCoreTool",
        "SessionToolSetError.UnknownCoreTool",
        {"tool": MISSING.text},
        t_unknown_core,
    ),
    Row("ActivationSessionMismatch", "ActivationError.SessionMismatch", {}, t_session_mismatch),
    Row(
        "ActivationUnknownTool",
        "ActivationError.UnknownTool",
        {"tool": MISSING.text},
        t_unknown_tool,
    ),
    Row(
        "ActivationStaleGeneration",
        "ActivationError.StaleGeneration",
        {"grant": 3, "catalog": 4},
        t_stale_generation,
    ),
    Row(
        "ActivationDigestMismatch",
        "ActivationError.DigestMismatch",
        {"tool": LOOKUP.text},
        t_digest_mismatch,
    ),
    Row(
        "ActivationStaleSnapshot",
        "ActivationError.StaleSnapshot",
        {"set": 4, "catalog": 5},
        t_stale_snapshot,
    ),
    Row(
        "ActivationAlreadyActivated",
        "ActivationError.AlreadyActivated",
        {"tool": LOOKUP.text},
        t_already_activated,
    ),
    Row(
        "ActivationAlreadyCore", "ActivationError.AlreadyCore", {"tool": BASH.text}, t_already_core
    ),
    Row(
        "BulkDuplicateRequest",
        "BulkActivationError.DuplicateRequest",
        {"tool": LOOKUP.text},
        t_bulk_duplicate,
    ),
    Row(
        "BulkGrant",
        "BulkActivationError.Grant.StaleSnapshot",
        {"set": 4, "catalog": 5},
        t_bulk_grant,
    ),
    Row(
        "BulkUntrustedSource",
        "BulkActivationError.UntrustedSource",
        {"tool": DYN.text},
        t_bulk_untrusted,
    ),
    Row(
        "BulkSourceProvenanceMismatch",
        "BulkActivationError.SourceProvenanceMismatch",
        {"tool": SKEW.text},
        t_bulk_mismatch,
    ),
    Row("RevocationCoreTool", "ExactRevocationError.CoreTool", {"tool": BASH.text}, t_revoke_core),
    Row(
        "RevocationNotActivated",
        "ExactRevocationError.NotActivated",
        {"tool": LOOKUP.text},
        t_revoke_not_activated,
    ),
    Row(
        "AuthorizationNotCataloged",
        "ToolAuthorizationError.NotCataloged",
        {"tool": MISSING.text},
        t_not_cataloged,
    ),
    Row(
        "AuthorizationSchemaDigestMismatch",
        "ToolAuthorizationError.SchemaDigestMismatch",
        {"tool": BASH.text},
        t_schema_digest_mismatch,
    ),
    Row(
        "AuthorizationNotActivated",
        "ToolAuthorizationError.NotActivated",
        {"tool": LOOKUP.text},
        t_not_activated,
    ),
    Row(
        "AuthorizationSourceProvenanceMismatch",
        "ToolAuthorizationError.SourceProvenanceMismatch",
        {"tool": SKEW.text},
        t_gate_mismatch,
    ),
    Row(
        "AuthorizationUntrustedSource",
        "ToolAuthorizationError.UntrustedSource",
        {"tool": DYN.text},
        t_gate_untrusted,
    ),
    Row(
        "AuthorizationUnknownTool",
        "ToolAuthorizationError.UnknownTool",
        {"wire_name": "nope"},
        t_gate_unknown_wire,
    ),
    Row(
        "IssuanceUnknownTool",
        "GrantIssuanceError.UnknownTool",
        {"tool": MISSING.text},
        t_issue_unknown,
    ),
    Row(
        "IssuanceUntrustedSource",
        "GrantIssuanceError.UntrustedSource",
        {"tool": DYN.text},
        t_issue_untrusted,
    ),
    Row(
        "IssuanceSourceProvenanceMismatch",
        "GrantIssuanceError.SourceProvenanceMismatch",
        {"tool": SKEW.text},
        t_issue_mismatch,
    ),
    Row("HostConfirmationRequired", "HostActivationError.ConfirmationRequired", {}, t_confirmation),
    Row(
        "HostIssuance",
        "HostActivationError.Issuance.UnknownTool",
        {"tool": MISSING.text},
        t_host_issuance,
    ),
    Row(
        "HostBulk",
        "HostActivationError.Bulk.Grant.StaleSnapshot",
        {"set": 4, "catalog": 5},
        t_host_bulk,
    ),
]


def concrete_error_classes() -> set[str]:
    """Every concrete variant: subclasses with a non-empty ``variant``, plus the lone
    ``CatalogGenerationOverflow``."""
    found = set()
    for name, cls in inspect.getmembers(errors_module, inspect.isclass):
        if not issubclass(cls, SessionToolsetError) or cls.__module__ != errors_module.__name__:
            continue
        if cls.variant or cls is errors_module.CatalogGenerationOverflow:
            found.add(name)
    return found


def test_every_variant_has_a_trigger() -> None:
    table = [row.cls for row in ROWS]
    assert len(table) == len(set(table)), "duplicate rows"
    assert set(table) == concrete_error_classes()


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.cls)
def test_variant_is_raised_with_code_and_payload(row: Row) -> None:
    expected_cls = getattr(errors_module, row.cls)
    with pytest.raises(SessionToolsetError) as info:
        row.trigger()
    err = info.value
    assert type(err) is expected_cls
    assert err.code == row.code
    assert err.payload() == row.payload
    for key, value in row.payload.items():  # payload fields are typed attributes of the error
        inner: object = err
        while hasattr(inner, "inner"):
            inner = inner.inner
        assert getattr(inner, key) == value
    assert 0 < len(err.message.encode("utf-8")) < 512
    assert str(err) == err.message


def test_wrappers_keep_the_inner_error_reachable() -> None:
    with pytest.raises(errors_module.HostBulk) as info:
        t_host_bulk()
    outer = info.value
    assert isinstance(outer.inner, errors_module.BulkGrant)
    assert isinstance(outer.inner.inner, errors_module.ActivationStaleSnapshot)
    assert outer.__cause__ is outer.inner
    assert outer.inner.__cause__ is outer.inner.inner
    assert outer.inner.code == "BulkActivationError.Grant.StaleSnapshot"
    assert outer.inner.inner.code == "ActivationError.StaleSnapshot"


def test_families_can_be_caught_whole() -> None:
    with pytest.raises(errors_module.ActivationError):
        t_stale_generation()
    with pytest.raises(errors_module.ToolAuthorizationError):
        t_gate_unknown_wire()
    with pytest.raises(errors_module.HostActivationError):
        t_confirmation()
    with pytest.raises(ValueError):  # identity errors are ValueErrors too
        ToolId.parse("")
