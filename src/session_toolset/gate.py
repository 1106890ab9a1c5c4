"""The execution gate: authorizes every tool call just before its implementation is acquired.

:meth:`ExecutionGate.authorize` checks, in this order (SPEC.md §4):

1. the called tool has a record in the catalog            → else ``NotCataloged``
2. the set's pin for it still matches the record's digest  → else ``SchemaDigestMismatch``
   (core: the core pin; activated: the grant, which must also cover session, tool and the
   current digest — the generation is deliberately not compared) → else ``NotActivated``
3. the pinned provenance equals the record's provenance    → else ``SourceProvenanceMismatch``
4. the record's source is trusted                          → else ``UntrustedSource`` /
                                                             ``SourceProvenanceMismatch``
5. only then: call the record's factory, exactly once, and return an
   :class:`AuthorizedToolCall`.

Generation drift alone never denies a call: only drift of the called tool's own record does.
Step 3 catches the *coherent imposter*: a record re-registered under the same id with the same
schema and a different but self-consistent source and provenance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .catalog import ToolCatalog
from .errors import (
    AuthorizationNotActivated,
    AuthorizationNotCataloged,
    AuthorizationSchemaDigestMismatch,
    AuthorizationSourceProvenanceMismatch,
    AuthorizationUntrustedSource,
)
from .generation import CatalogGeneration
from .registry import ResolvedToolCall, ToolRegistry
from .source import SourceTrust, TrustProvenance
from .toolset import SessionToolSet

__all__ = [
    "ActivationBasis",
    "AuthorizedToolCall",
    "CoreBasis",
    "ExactBasis",
    "ExecutionGate",
]


@dataclass(frozen=True, slots=True)
class CoreBasis:
    """Authorized because the tool is one of the set's core tools."""


@dataclass(frozen=True, slots=True)
class ExactBasis:
    """Authorized by an exact activation granted at ``catalog_generation``."""

    catalog_generation: CatalogGeneration


ActivationBasis = CoreBasis | ExactBasis

# Only this module holds the token, so only the gate can mint an AuthorizedToolCall.
_GATE_TOKEN: Final = object()


class AuthorizedToolCall(tuple[ResolvedToolCall, object, ActivationBasis]):
    """Proof that the gate authorized a call: the resolved call, the implementation the
    factory produced, and the basis.

    Constructing one outside the gate raises TypeError.  It is an immutable tuple underneath:
    nothing can be reassigned or deleted after the gate created it, and creating it costs one
    tuple allocation on the hot path.
    """

    __slots__ = ()

    def __new__(
        cls,
        token: object,
        resolved: ResolvedToolCall,
        implementation: object,
        basis: ActivationBasis,
    ) -> AuthorizedToolCall:
        if token is not _GATE_TOKEN:
            raise TypeError("an AuthorizedToolCall can only be created by ExecutionGate")
        return tuple.__new__(cls, (resolved, implementation, basis))

    @property
    def resolved(self) -> ResolvedToolCall:
        return self[0]

    @property
    def implementation(self) -> object:
        return self[1]

    @property
    def basis(self) -> ActivationBasis:
        return self[2]

    def __repr__(self) -> str:
        return f"AuthorizedToolCall(tool={self.resolved.tool_id.text!r}, basis={self.basis!r})"


_CORE_BASIS: Final = CoreBasis()


class ExecutionGate:
    """Stateless: every decision is a function of the catalog, the set and the call."""

    @staticmethod
    def authorize(
        catalog: ToolCatalog, tool_set: SessionToolSet, resolved: ResolvedToolCall
    ) -> AuthorizedToolCall:
        tool_id = resolved.tool_id
        record = catalog.get(tool_id)
        if record is None:
            raise AuthorizationNotCataloged(tool_id.text)
        basis: ActivationBasis
        pinned: TrustProvenance
        pin = tool_set.core_pin(tool_id)
        if pin is not None:
            if pin.schema_digest != record.schema_digest:
                raise AuthorizationSchemaDigestMismatch(tool_id.text)
            basis, pinned = _CORE_BASIS, pin.provenance
        else:
            activated = tool_set.activation(tool_id)
            if activated is None:
                raise AuthorizationNotActivated(tool_id.text)
            grant = activated.grant
            if grant.schema_digest != record.schema_digest:
                raise AuthorizationSchemaDigestMismatch(tool_id.text)
            if not grant.covers_call(tool_set.session, tool_id, record.schema_digest):
                raise AuthorizationNotActivated(tool_id.text)
            basis, pinned = ExactBasis(grant.catalog_generation), activated.provenance
        if pinned != record.provenance:
            raise AuthorizationSourceProvenanceMismatch(tool_id.text)
        trust = record.trust
        if trust is not SourceTrust.TRUSTED:
            if trust is SourceTrust.UNTRUSTED:
                raise AuthorizationUntrustedSource(tool_id.text)
            raise AuthorizationSourceProvenanceMismatch(tool_id.text)
        return AuthorizedToolCall(_GATE_TOKEN, resolved, record.factory(), basis)

    @staticmethod
    def resolve(registry: ToolRegistry, wire_name: str) -> ResolvedToolCall:
        """Map a wire name to the live tool it names (alias first, then runtime name)."""
        return registry.resolve(wire_name)

    @staticmethod
    def authorize_wire_call(
        catalog: ToolCatalog, tool_set: SessionToolSet, registry: ToolRegistry, wire_name: str
    ) -> AuthorizedToolCall:
        """Resolve and authorize against one registry snapshot (the caller passes the
        registry built for this catalog state, so resolution and checks see the same tools)."""
        return ExecutionGate.authorize(catalog, tool_set, registry.resolve(wire_name))
