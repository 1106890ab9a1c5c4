"""The error codes the corpus must reach, written from SPEC.md/PROTOCOL.md (not imported from the
runner or the implementation, so the corpus tests can cross-check all three).

A code is the dotted path from the outermost enum to the innermost variant (PROTOCOL.md, Replies).
``UNREACHABLE`` lists nested codes that exist in the type system but that no request can produce
through PROTOCOL.md; the reasons are spelled out in ``UNREACHABLE.md`` beside this file.
"""

from __future__ import annotations

from typing import Final

OPS: Final[tuple[str, ...]] = (
    "hello",
    "reset",
    "tool_id_parse",
    "tool_id",
    "session_id_parse",
    "digest",
    "catalog_insert",
    "catalog_upsert",
    "catalog_remove",
    "catalog_rebase_past",
    "catalog_set_generation",
    "catalog_state",
    "factory_calls",
    "issue_grant",
    "forge_grant",
    "set_new",
    "set_default_core",
    "set_progressive_core",
    "activate",
    "activate_many",
    "activate_user",
    "activate_model",
    "revoke",
    "rebuild",
    "route",
    "is_stale",
    "snapshot",
    "resolve",
    "authorize",
    "authorize_wire",
    "carry_forward_enabled",
)
"""Every op of PROTOCOL.md's table."""

_ACTIVATION = (
    "SessionMismatch",
    "UnknownTool",
    "StaleGeneration",
    "DigestMismatch",
    "StaleSnapshot",
    "AlreadyActivated",
    "AlreadyCore",
)
_ISSUANCE = ("UnknownTool", "UntrustedSource", "SourceProvenanceMismatch")
_BULK = (
    "DuplicateRequest",
    *(f"Grant.{a}" for a in _ACTIVATION),
    "UntrustedSource",
    "SourceProvenanceMismatch",
)

FAMILIES: Final[dict[str, tuple[str, ...]]] = {
    "ToolIdError": ("Empty", "Oversized", "MissingNamespace", "InvalidNamespace", "InvalidName"),
    "SessionIdError": ("Empty", "Oversized", "ControlCharacters"),
    "ActivationGrantError": ("EmptySessionId", "OversizedSessionId", "ControlCharacterSessionId"),
    "CatalogError": ("DuplicateToolId", "GenerationExhausted"),
    "SessionToolSetError": ("UnknownCoreTool",),
    "ActivationError": _ACTIVATION,
    "BulkActivationError": _BULK,
    "ExactRevocationError": ("CoreTool", "NotActivated"),
    "ToolAuthorizationError": (
        "NotCataloged",
        "SchemaDigestMismatch",
        "NotActivated",
        "SourceProvenanceMismatch",
        "UntrustedSource",
        "UnknownTool",
    ),
    "GrantIssuanceError": _ISSUANCE,
    "HostActivationError": (
        "ConfirmationRequired",
        *(f"Issuance.{i}" for i in _ISSUANCE),
        *(f"Bulk.{b}" for b in _BULK),
    ),
}

ALL_CODES: Final[tuple[str, ...]] = (
    "Protocol",
    "CatalogGenerationOverflow",
    *(f"{family}.{variant}" for family, variants in FAMILIES.items() for variant in variants),
)

_FRESH = (
    "activate_user/activate_model issue the grant themselves, for the set's own session, at the "
    "catalog's current generation and the record's current digest, immediately before the batch"
)
_TRUST = (
    "issuance checks source trust (UntrustedSource / SourceProvenanceMismatch) before the batch "
    "runs, so an untrusted record fails as HostActivationError.Issuance.* instead"
)

UNREACHABLE: Final[dict[str, str]] = {
    "HostActivationError.Bulk.Grant.SessionMismatch": _FRESH,
    "HostActivationError.Bulk.Grant.UnknownTool": (
        "issuance rejects an uncataloged tool first (HostActivationError.Issuance.UnknownTool)"
    ),
    "HostActivationError.Bulk.Grant.StaleGeneration": _FRESH,
    "HostActivationError.Bulk.Grant.DigestMismatch": _FRESH,
    "HostActivationError.Bulk.UntrustedSource": _TRUST,
    "HostActivationError.Bulk.SourceProvenanceMismatch": _TRUST,
}

REACHABLE: Final[tuple[str, ...]] = tuple(c for c in ALL_CODES if c not in UNREACHABLE)
