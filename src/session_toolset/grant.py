"""``SessionActivationGrant``: the host's permission to activate one tool exactly (SPEC.md §1.5).

A grant names the session, the tool, the catalog generation and the schema digest it was issued
against.  Its authority is exactly that four-tuple: :meth:`covers` matches nothing looser.
Construction checks only the session text, because grants are also forged deliberately (by
tests and hostile callers) and the *set* is where a grant's claims are checked against reality.
"""

from __future__ import annotations

from dataclasses import dataclass

from .digest import SchemaDigest
from .errors import (
    ActivationGrantControlCharacterSessionId,
    ActivationGrantEmptySessionId,
    ActivationGrantOversizedSessionId,
    SessionIdControlCharacters,
    SessionIdEmpty,
    SessionIdOversized,
)
from .generation import CatalogGeneration
from .session_id import SessionId
from .tool_id import ToolId

__all__ = ["SessionActivationGrant", "grant_session_id"]


def grant_session_id(session: str) -> SessionId:
    """The session of a grant under construction: SessionId rules, reported as
    ``ActivationGrantError`` variants (SPEC.md 1.5)."""
    try:
        return SessionId.parse(session)
    except SessionIdEmpty:
        raise ActivationGrantEmptySessionId() from None
    except SessionIdOversized as err:
        raise ActivationGrantOversizedSessionId(err.actual, err.limit) from None
    except SessionIdControlCharacters:
        raise ActivationGrantControlCharacterSessionId() from None


@dataclass(frozen=True, slots=True)
class SessionActivationGrant:
    """An exact activation grant.  Prefer :meth:`create` to build one from session text."""

    session_id: SessionId
    tool_id: ToolId
    catalog_generation: CatalogGeneration
    schema_digest: SchemaDigest

    @classmethod
    def create(
        cls,
        session: str,
        tool_id: ToolId,
        catalog_generation: CatalogGeneration,
        schema_digest: SchemaDigest,
    ) -> SessionActivationGrant:
        """Build a grant, mapping SessionId rules to ``ActivationGrantError`` variants."""
        return cls(grant_session_id(session), tool_id, catalog_generation, schema_digest)

    def covers(
        self,
        session_id: SessionId,
        tool_id: ToolId,
        catalog_generation: CatalogGeneration,
        schema_digest: SchemaDigest,
    ) -> bool:
        """True only for the exact four-tuple this grant was issued for."""
        return (
            self.session_id == session_id
            and self.tool_id == tool_id
            and self.catalog_generation == catalog_generation
            and self.schema_digest == schema_digest
        )

    def covers_call(
        self, session_id: SessionId, tool_id: ToolId, schema_digest: SchemaDigest
    ) -> bool:
        """The execution gate's check (SPEC.md §4): session, tool and *current* digest.

        The generation is deliberately not compared: a call is denied only when the called
        tool's own record drifted, never because unrelated catalog mutations advanced the
        generation (drift of this record shows up as a digest or provenance change).
        """
        return (
            self.session_id == session_id
            and self.tool_id == tool_id
            and self.schema_digest == schema_digest
        )
