"""Which part of SPEC.md (or PROTOCOL.md) a reply answers to: a violation names it.

An expected error code's family decides first (a ToolId that should have been refused is a
section 1.1 matter whatever the op); otherwise the op does.  Pure data: the tables below.
"""

from __future__ import annotations

from typing import Any, Final

PROTOCOL: Final = "PROTOCOL.md"

BY_CODE: Final[dict[str, str]] = {
    "Protocol": PROTOCOL,
    "ToolIdError": "SPEC.md 1.1 ToolId",
    "SessionIdError": "SPEC.md 1.2 SessionId",
    "CatalogGenerationOverflow": "SPEC.md 1.3 CatalogGeneration",
    "ActivationGrantError": "SPEC.md 1.5 SessionActivationGrant",
    "CatalogError": "SPEC.md 2 Catalog",
    "SessionToolSetError": "SPEC.md 3 SessionToolSet",
    "ActivationError": "SPEC.md 3 SessionToolSet (activate)",
    "BulkActivationError": "SPEC.md 3 SessionToolSet (activate_many)",
    "ExactRevocationError": "SPEC.md 3 SessionToolSet (revoke_exact)",
    "ToolAuthorizationError": "SPEC.md 4 Execution gate",
    "GrantIssuanceError": "SPEC.md 5 Host entry points (issue_exact_grant)",
    "HostActivationError": "SPEC.md 5 Host entry points",
}

BY_OP: Final[dict[str, str]] = {
    "hello": PROTOCOL,
    "reset": PROTOCOL,
    "tool_id_parse": "SPEC.md 1.1 ToolId",
    "tool_id": "SPEC.md 1.1 ToolId",
    "session_id_parse": "SPEC.md 1.2 SessionId",
    "catalog_rebase_past": "SPEC.md 1.3 CatalogGeneration",
    "catalog_set_generation": "SPEC.md 1.3 CatalogGeneration",
    "digest": "SPEC.md 1.4 SchemaDigest",
    "forge_grant": "SPEC.md 1.5 SessionActivationGrant",
    "catalog_insert": "SPEC.md 2 Catalog",
    "catalog_upsert": "SPEC.md 2 Catalog",
    "catalog_remove": "SPEC.md 2 Catalog",
    "catalog_state": "SPEC.md 2 Catalog",
    "set_new": "SPEC.md 3 SessionToolSet",
    "set_default_core": "SPEC.md 3 SessionToolSet",
    "set_progressive_core": "SPEC.md 3 SessionToolSet",
    "activate": "SPEC.md 3 SessionToolSet (activate)",
    "activate_many": "SPEC.md 3 SessionToolSet (activate_many)",
    "revoke": "SPEC.md 3 SessionToolSet (revoke_exact)",
    "rebuild": "SPEC.md 3 SessionToolSet (rebuilt_for_catalog)",
    "is_stale": "SPEC.md 3 SessionToolSet",
    "snapshot": "SPEC.md 3 SessionToolSet",
    "carry_forward_enabled": "SPEC.md 3 SessionToolSet (carry_forward_enabled)",
    "resolve": "SPEC.md 4 Execution gate (resolve)",
    "authorize": "SPEC.md 4 Execution gate",
    "authorize_wire": "SPEC.md 4 Execution gate (authorize_wire_call)",
    "factory_calls": "SPEC.md 4 Execution gate (factory call)",
    "issue_grant": "SPEC.md 5 Host entry points (issue_exact_grant)",
    "activate_user": "SPEC.md 5 Host entry points (activate_exact_for_user)",
    "activate_model": "SPEC.md 5 Host entry points (activate_model_initiated)",
    "route": "SPEC.md 5 Host entry points (route_session_set)",
}


def section(op: str, expected: dict[str, Any]) -> str:
    """The section a reply of ``op`` that should have been ``expected`` answers to."""
    code = expected.get("error")
    if isinstance(code, str):
        found = BY_CODE.get(code.partition(".")[0])
        if found is not None:
            return found
    return BY_OP.get(op, PROTOCOL)
