"""Every error code a PROTOCOL.md adapter can be asked to produce, for ``--coverage`` (codes
no vector reaches) and ``--validate`` (a misspelt expected code).  The operations' codes are the
model's (`session_toolset_model.outcomes`), the field errors are listed here;
``tests/corpus/test_corpus.py`` checks the list against the reference implementation.

Nested codes the host entry points cannot produce (issuance rejects the same condition first)
are in `UNREACHABLE` with the reason: full coverage means every reachable code.
"""

from __future__ import annotations

from typing import Final

from session_toolset_model.outcomes import ALL_CODES as MODEL_CODES

PROTOCOL_CODE: Final = "Protocol"
FIELD_CODES: Final = (
    PROTOCOL_CODE,
    *(f"ToolIdError.{v}" for v in ("Empty", "Oversized", "MissingNamespace", "InvalidNamespace")),
    "ToolIdError.InvalidName",
    *(f"SessionIdError.{v}" for v in ("Empty", "Oversized", "ControlCharacters")),
    *(f"ActivationGrantError.{v}SessionId" for v in ("Empty", "Oversized", "ControlCharacter")),
)
"""The codes a request field's boundary parsing answers (PROTOCOL.md)."""
NOT_SPEC: Final = ("ok", "ToolAuthorizationError.StaleSet")
"""Model outcomes that are no error code of SPEC.md (``StaleSet``: a profile's own)."""

KNOWN_CODES: Final[tuple[str, ...]] = (
    *FIELD_CODES,
    *(code for code in MODEL_CODES if code not in (*NOT_SPEC, *FIELD_CODES)),
    "ToolAuthorizationError.UnknownTool",  # a wire name that names no tool (not in the model)
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


def is_field_error(code: str) -> bool:
    """True for ``Protocol`` and the boundary-parsing codes of request fields (they precede
    every operation error)."""
    return code == PROTOCOL_CODE or code.startswith(
        ("ToolIdError.", "SessionIdError.", "ActivationGrantError.")
    )


is_known: Final = frozenset(KNOWN_CODES).__contains__
"""True for a code this module lists (reachable or not)."""
