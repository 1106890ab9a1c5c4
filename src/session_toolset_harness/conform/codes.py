"""Every error CODE a PROTOCOL.md adapter can be asked to produce, derived from SPEC.md.

Kept in one place so that ``--coverage`` can list the codes no vector reaches and ``--validate``
can reject a vector that expects a misspelt code. The nesting follows PROTOCOL.md: the dotted path
from the outermost enum to the innermost variant (``HostActivationError.Bulk.Grant.StaleSnapshot``).

Some nested codes exist in the type system but cannot be produced through the host entry points,
because the issuance step that runs first already rejects the same condition (for example
``HostActivationError.Bulk.UntrustedSource``: issuance checks source trust before the batch does).
They are listed in ``UNREACHABLE`` with the reason, so full coverage means "every reachable code".
"""

from __future__ import annotations

from typing import Final

PROTOCOL_CODE: Final = "Protocol"

TOOL_ID_ERROR: Final = ("Empty", "Oversized", "MissingNamespace", "InvalidNamespace", "InvalidName")
SESSION_ID_ERROR: Final = ("Empty", "Oversized", "ControlCharacters")
ACTIVATION_GRANT_ERROR: Final = (
    "EmptySessionId",
    "OversizedSessionId",
    "ControlCharacterSessionId",
)
CATALOG_ERROR: Final = ("DuplicateToolId", "GenerationExhausted")
SESSION_TOOL_SET_ERROR: Final = ("UnknownCoreTool",)
ACTIVATION_ERROR: Final = (
    "SessionMismatch",
    "UnknownTool",
    "StaleGeneration",
    "DigestMismatch",
    "StaleSnapshot",
    "AlreadyActivated",
    "AlreadyCore",
)
EXACT_REVOCATION_ERROR: Final = ("CoreTool", "NotActivated")
TOOL_AUTHORIZATION_ERROR: Final = (
    "NotCataloged",
    "SchemaDigestMismatch",
    "NotActivated",
    "SourceProvenanceMismatch",
    "UntrustedSource",
    "UnknownTool",
)
GRANT_ISSUANCE_ERROR: Final = ("UnknownTool", "UntrustedSource", "SourceProvenanceMismatch")


def _prefixed(prefix: str, variants: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{prefix}.{variant}" for variant in variants)


def _bulk_variants() -> tuple[str, ...]:
    """BulkActivationError's variants, relative to the enum (``Grant.*`` wraps ActivationError)."""
    return (
        "DuplicateRequest",
        *_prefixed("Grant", ACTIVATION_ERROR),
        "UntrustedSource",
        "SourceProvenanceMismatch",
    )


def _host_variants() -> tuple[str, ...]:
    return (
        "ConfirmationRequired",
        *_prefixed("Issuance", GRANT_ISSUANCE_ERROR),
        *_prefixed("Bulk", _bulk_variants()),
    )


KNOWN_CODES: Final[tuple[str, ...]] = (
    PROTOCOL_CODE,
    *_prefixed("ToolIdError", TOOL_ID_ERROR),
    *_prefixed("SessionIdError", SESSION_ID_ERROR),
    "CatalogGenerationOverflow",
    *_prefixed("ActivationGrantError", ACTIVATION_GRANT_ERROR),
    *_prefixed("CatalogError", CATALOG_ERROR),
    *_prefixed("SessionToolSetError", SESSION_TOOL_SET_ERROR),
    *_prefixed("ActivationError", ACTIVATION_ERROR),
    *_prefixed("BulkActivationError", _bulk_variants()),
    *_prefixed("ExactRevocationError", EXACT_REVOCATION_ERROR),
    *_prefixed("ToolAuthorizationError", TOOL_AUTHORIZATION_ERROR),
    *_prefixed("GrantIssuanceError", GRANT_ISSUANCE_ERROR),
    *_prefixed("HostActivationError", _host_variants()),
)

_ISSUED_FIRST = "the host issues the grant first, at the current session, generation and digest"
_TRUST_FIRST = "issuance checks source trust before the batch does"

UNREACHABLE: Final[dict[str, str]] = {
    "HostActivationError.Bulk.Grant.SessionMismatch": _ISSUED_FIRST,
    "HostActivationError.Bulk.Grant.UnknownTool": "issuance rejects an uncataloged tool first",
    "HostActivationError.Bulk.Grant.StaleGeneration": _ISSUED_FIRST,
    "HostActivationError.Bulk.Grant.DigestMismatch": _ISSUED_FIRST,
    "HostActivationError.Bulk.UntrustedSource": _TRUST_FIRST,
    "HostActivationError.Bulk.SourceProvenanceMismatch": _TRUST_FIRST,
}

REACHABLE_CODES: Final[tuple[str, ...]] = tuple(c for c in KNOWN_CODES if c not in UNREACHABLE)

GATE_DENIAL_PREFIX: Final = "ToolAuthorizationError."
"""Replies whose code starts with this are gate denials: their message must stay under 512 bytes."""

GATE_MESSAGE_LIMIT_BYTES: Final = 512


FIELD_ERROR_FAMILIES: Final = ("ToolIdError.", "SessionIdError.", "ActivationGrantError.")
"""Codes a request field's boundary parsing answers (PROTOCOL.md): with ``Protocol``, the *field
errors*, which precede every operation error."""


def is_field_error(code: str) -> bool:
    """True for ``Protocol`` and the boundary-parsing codes of request fields."""
    return code == PROTOCOL_CODE or code.startswith(FIELD_ERROR_FAMILIES)


def is_known(code: str) -> bool:
    """True for a code this module lists (reachable or not)."""
    return code in _KNOWN_SET


_KNOWN_SET: Final = frozenset(KNOWN_CODES)
