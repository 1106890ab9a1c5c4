"""Every outcome code of the model: ``ok`` or PROTOCOL.md's dotted error name.

The host entry points wrap inner errors (`HostActivationError.Bulk.Grant.StaleSnapshot`); the
wrapping is a fixed table applied by the definition (`wrap`), so the Z3 outcome sort is one flat
enumeration and codes compare by equality in both interpretations.
"""

from __future__ import annotations

from .algebra import Algebra, Term

OK = "ok"

ACTIVATION_CHECKS = (
    "SessionMismatch",
    "UnknownTool",
    "StaleGeneration",
    "DigestMismatch",
    "StaleSnapshot",
    "AlreadyActivated",
    "AlreadyCore",
)
"""SPEC.md section 3 `activate` checks, in order."""

ACTIVATION = tuple(f"ActivationError.{c}" for c in ACTIVATION_CHECKS)
BULK = (
    "BulkActivationError.DuplicateRequest",
    *(f"BulkActivationError.Grant.{c}" for c in ACTIVATION_CHECKS),
    "BulkActivationError.UntrustedSource",
    "BulkActivationError.SourceProvenanceMismatch",
)
ISSUANCE = (
    "GrantIssuanceError.UnknownTool",
    "GrantIssuanceError.UntrustedSource",
    "GrantIssuanceError.SourceProvenanceMismatch",
)
HOST = (
    "HostActivationError.ConfirmationRequired",
    *(f"HostActivationError.Issuance.{c.split('.', 1)[1]}" for c in ISSUANCE),
    *(f"HostActivationError.Bulk.{c.split('.', 1)[1]}" for c in BULK),
)
CATALOG = (
    "CatalogError.DuplicateToolId",
    "CatalogError.GenerationExhausted",
    "CatalogGenerationOverflow",
)
SETS = (
    "SessionToolSetError.UnknownCoreTool",
    "ExactRevocationError.CoreTool",
    "ExactRevocationError.NotActivated",
)
GATE = (
    "ToolAuthorizationError.NotCataloged",
    "ToolAuthorizationError.SchemaDigestMismatch",
    "ToolAuthorizationError.NotActivated",
    "ToolAuthorizationError.SourceProvenanceMismatch",
    "ToolAuthorizationError.UntrustedSource",
    "ToolAuthorizationError.StaleSet",
)
"""`StaleSet` exists only under the `generation-strict` profile (not a SPEC.md code)."""

ALL_CODES: tuple[str, ...] = (OK, *CATALOG, *SETS, *ACTIVATION, *BULK, *ISSUANCE, *HOST, *GATE)

WITH_TOOL = frozenset(
    c
    for c in ALL_CODES
    if c.split(".")[-1]
    not in {
        "ok",
        "SessionMismatch",
        "StaleGeneration",
        "StaleSnapshot",
        "GenerationExhausted",
        "CatalogGenerationOverflow",
        "ConfirmationRequired",
        "StaleSet",
    }
)
"""Codes whose innermost variant carries a ToolId (PROTOCOL.md payload field ``tool``)."""

TRUST_VALUES = ("trusted", "untrusted", "mismatch")
DROP_REASONS = ("none", "removed", "drifted")


def wrap(alg: Algebra, code: Term, prefix: str, inner: tuple[str, ...]) -> Term:
    """Map an inner error code to ``prefix`` + its suffix (e.g. Bulk wrapping); ``ok`` stays."""
    result = code
    for name in inner:
        suffix = name.split(".", 1)[1]
        result = alg.ite(alg.eq(code, alg.code(name)), alg.code(f"{prefix}.{suffix}"), result)
    return result
