"""``SessionToolSet``: one session's core tools plus its exact activations (SPEC.md §3).

A set is pinned to the catalog generation it was built against.  Core tools are pinned to the
digest *and* provenance their record had at build time; activations keep the grant they were
made with and the provenance the record had then.  The execution gate compares those pins with
the live records on every call, so drift of one tool denies that tool only.

Every mutating method validates everything first and mutates last, so a rejection leaves the set
exactly as it was ("no partial mutation").  A set never reads or writes another set: a new set
starts with zero activations and depends only on its session, its core ids and the catalog.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from .catalog import ToolCatalog
from .digest import SchemaDigest
from .errors import (
    ActivationAlreadyActivated,
    ActivationAlreadyCore,
    ActivationDigestMismatch,
    ActivationError,
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
from .generation import CatalogGeneration
from .grant import SessionActivationGrant
from .record import CapabilityRecord
from .session_id import SessionId
from .source import SourceTrust, TrustProvenance, Unverified
from .tool_id import ToolId

__all__ = [
    "PROGRESSIVE_CORE_TOOLS",
    "ActivatedTool",
    "CorePin",
    "DropReason",
    "DroppedActivation",
    "RuntimeLease",
    "SessionToolSet",
]

#: The builtin tools a progressive set starts with, when the catalog has them.
PROGRESSIVE_CORE_TOOLS: Final = tuple(
    ToolId.builtin(name)
    for name in (
        "bash",
        "read",
        "write",
        "edit",
        "grep",
        "find",
        "ls",
        "search_tools",
        "activate_tools",
        "search_skills",
        "load_skill",
    )
)


@dataclass(frozen=True, slots=True)
class CorePin:
    """What a core tool's record looked like when the set was built."""

    schema_digest: SchemaDigest
    provenance: TrustProvenance


class RuntimeLease(enum.Enum):
    """Whether the runtime holds the tool's implementation; activation never acquires it."""

    NOT_ACQUIRED = "not_acquired"


@dataclass(frozen=True, slots=True)
class ActivatedTool:
    """An exact activation: the grant it was made with and the record's provenance then."""

    grant: SessionActivationGrant
    provenance: TrustProvenance
    lease: RuntimeLease = RuntimeLease.NOT_ACQUIRED


class DropReason(enum.Enum):
    REMOVED = "removed"
    DRIFTED = "drifted"


@dataclass(frozen=True, slots=True)
class DroppedActivation:
    """An activation a rebuild did not carry forward, and why."""

    tool_id: ToolId
    reason: DropReason


def _pin(record: CapabilityRecord) -> CorePin:
    return CorePin(record.schema_digest, record.provenance)


class SessionToolSet:
    """The tool set of one session.  Mutable; see the module docstring for its guarantees."""

    __slots__ = ("_activated", "_catalog_generation", "_core", "_schema_generation", "_session")

    def __init__(
        self,
        session: SessionId,
        catalog_generation: CatalogGeneration,
        core: dict[ToolId, CorePin],
        activated: dict[ToolId, ActivatedTool],
        schema_generation: int,
    ) -> None:
        """Low-level constructor: takes ownership of the dicts.  Prefer :meth:`new` and the
        ``*_core_for_catalog`` builders, which derive pins from a catalog."""
        self._session = session
        self._catalog_generation = catalog_generation
        self._core = core
        self._activated = activated
        self._schema_generation = schema_generation

    # --- builders -------------------------------------------------------------------------

    @classmethod
    def new(
        cls, session: SessionId, core_ids: Iterable[ToolId], catalog: ToolCatalog
    ) -> SessionToolSet:
        """A set with the given core tools pinned to their current records, no activations."""
        core: dict[ToolId, CorePin] = {}
        for tool_id in core_ids:
            record = catalog.get(tool_id)
            if record is None:
                raise UnknownCoreTool(tool_id.text)
            core[tool_id] = _pin(record)
        return cls(session, catalog.generation, core, {}, 0)

    @classmethod
    def default_core_for_catalog(cls, session: SessionId, catalog: ToolCatalog) -> SessionToolSet:
        """Core = every record somebody vouches for (provenance other than ``Unverified``)."""
        core = {r.id: _pin(r) for r in catalog if not isinstance(r.provenance, Unverified)}
        return cls(session, catalog.generation, core, {}, 0)

    @classmethod
    def progressive_core_for_catalog(
        cls, session: SessionId, catalog: ToolCatalog
    ) -> SessionToolSet:
        """Core = the :data:`PROGRESSIVE_CORE_TOOLS` the catalog has; the rest is activated."""
        core: dict[ToolId, CorePin] = {}
        for tool_id in PROGRESSIVE_CORE_TOOLS:
            record = catalog.get(tool_id)
            if record is not None:
                core[tool_id] = _pin(record)
        return cls(session, catalog.generation, core, {}, 0)

    @classmethod
    def fresh_for_catalog(
        cls, session: SessionId, catalog: ToolCatalog, *, progressive: bool
    ) -> SessionToolSet:
        if progressive:
            return cls.progressive_core_for_catalog(session, catalog)
        return cls.default_core_for_catalog(session, catalog)

    def copy(self) -> SessionToolSet:
        """An independent set with the same state (pins and grants are immutable values)."""
        return SessionToolSet(
            self._session,
            self._catalog_generation,
            dict(self._core),
            dict(self._activated),
            self._schema_generation,
        )

    # --- reads ----------------------------------------------------------------------------

    @property
    def session(self) -> SessionId:
        return self._session

    @property
    def catalog_generation(self) -> CatalogGeneration:
        return self._catalog_generation

    @property
    def schema_generation(self) -> int:
        return self._schema_generation

    def core(self) -> tuple[tuple[ToolId, CorePin], ...]:
        """Core pins in ToolId order."""
        return tuple(sorted(self._core.items()))

    def activated(self) -> tuple[tuple[ToolId, ActivatedTool], ...]:
        """Exact activations in ToolId order."""
        return tuple(sorted(self._activated.items()))

    def core_pin(self, tool_id: ToolId) -> CorePin | None:
        return self._core.get(tool_id)

    def activation(self, tool_id: ToolId) -> ActivatedTool | None:
        return self._activated.get(tool_id)

    def is_stale(self, catalog: ToolCatalog) -> bool:
        """True when the catalog moved on since this set was built (never absorbed silently)."""
        return self._catalog_generation != catalog.generation

    # --- activation -----------------------------------------------------------------------

    def _check_grant(self, grant: SessionActivationGrant, catalog: ToolCatalog) -> CapabilityRecord:
        """SPEC.md §3 ``activate`` validation, in order; returns the granted record."""
        if grant.session_id != self._session:
            raise ActivationSessionMismatch()
        tool_id = grant.tool_id
        record = catalog.get(tool_id)
        if record is None:
            raise ActivationUnknownTool(tool_id.text)
        current = catalog.generation
        if grant.catalog_generation != current:
            raise ActivationStaleGeneration(grant.catalog_generation.value, current.value)
        if grant.schema_digest != record.schema_digest:
            raise ActivationDigestMismatch(tool_id.text)
        # A fresh grant cannot rescue a stale set: the set's pins predate the catalog.
        if self._catalog_generation != current:
            raise ActivationStaleSnapshot(self._catalog_generation.value, current.value)
        if tool_id in self._activated:
            raise ActivationAlreadyActivated(tool_id.text)
        if tool_id in self._core:
            raise ActivationAlreadyCore(tool_id.text)
        return record

    def activate(self, grant: SessionActivationGrant, catalog: ToolCatalog) -> None:
        """Record one exact activation.  This low-level path does not check source trust;
        hosts use :meth:`activate_many` (through :mod:`session_toolset.host`), which does."""
        record = self._check_grant(grant, catalog)
        self._activated[grant.tool_id] = ActivatedTool(grant, record.provenance)
        self._schema_generation += 1

    def activate_many(self, grants: Sequence[SessionActivationGrant], catalog: ToolCatalog) -> int:
        """Activate a batch atomically: all of it with one ``schema_generation`` advance, or
        nothing.  The first failing grant, in request order, decides the error."""
        if not grants:
            return 0
        seen: set[ToolId] = set()
        staged: list[tuple[ToolId, ActivatedTool]] = []
        for grant in grants:
            tool_id = grant.tool_id
            if tool_id in seen:
                raise BulkDuplicateRequest(tool_id.text)
            seen.add(tool_id)
            try:
                record = self._check_grant(grant, catalog)
            except ActivationError as err:
                raise BulkGrant(err) from err
            trust = record.trust
            if trust is SourceTrust.UNTRUSTED:
                raise BulkUntrustedSource(tool_id.text)
            if trust is SourceTrust.PROVENANCE_MISMATCH:
                raise BulkSourceProvenanceMismatch(tool_id.text)
            staged.append((tool_id, ActivatedTool(grant, record.provenance)))
        # Nothing can fail past this point: apply in ToolId order, advance once.
        staged.sort(key=lambda item: item[0])
        self._activated.update(staged)
        self._schema_generation += 1
        return len(staged)

    def revoke_exact(self, tool_id: ToolId) -> None:
        """Remove one exact activation (core tools cannot be revoked)."""
        if tool_id in self._core:
            raise RevocationCoreTool(tool_id.text)
        if tool_id not in self._activated:
            raise RevocationNotActivated(tool_id.text)
        del self._activated[tool_id]
        self._schema_generation += 1

    # --- rebuild --------------------------------------------------------------------------

    def rebuilt_for_catalog(
        self, catalog: ToolCatalog, *, progressive: bool
    ) -> tuple[SessionToolSet, tuple[DroppedActivation, ...]]:
        """A new set for the current catalog carrying only activations that still match.

        ``self`` is untouched.  An activation is carried (re-granted at the current
        generation) only when its record is present with the pinned digest and provenance and
        is trusted; otherwise it is reported as removed or drifted.
        """
        fresh = SessionToolSet.fresh_for_catalog(self._session, catalog, progressive=progressive)
        current = catalog.generation
        dropped: list[DroppedActivation] = []
        for tool_id, activated in self.activated():
            if tool_id in fresh._core:
                continue
            record = catalog.get(tool_id)
            if record is None:
                dropped.append(DroppedActivation(tool_id, DropReason.REMOVED))
            elif (
                record.schema_digest == activated.grant.schema_digest
                and record.provenance == activated.provenance
                and record.trust is SourceTrust.TRUSTED
            ):
                regrant = SessionActivationGrant(
                    self._session, tool_id, current, record.schema_digest
                )
                fresh._activated[tool_id] = ActivatedTool(regrant, record.provenance)
            else:
                dropped.append(DroppedActivation(tool_id, DropReason.DRIFTED))
        fresh._schema_generation = self._schema_generation + (1 if dropped else 0)
        return fresh, tuple(dropped)

    def __repr__(self) -> str:
        return (
            f"SessionToolSet(session={self._session.text!r}, "
            f"catalog_generation={self._catalog_generation.value}, "
            f"schema_generation={self._schema_generation}, "
            f"core={len(self._core)}, activated={len(self._activated)})"
        )
