"""``ToolCatalog``: the records a runtime knows, and the generation that names their state.

Every successful mutation advances the generation by exactly one, checked; a failed mutation
changes nothing (SPEC.md §2).  Each method therefore computes everything that can fail —
duplicate ids, the next generation — before it touches a single field.

Lookups are dict lookups (the execution gate calls :meth:`ToolCatalog.get` on every tool call,
so it must not depend on catalog size); ordered iteration sorts lazily and caches the order
until the next mutation.
"""

from __future__ import annotations

from collections.abc import Iterator

from .errors import CatalogDuplicateToolId, CatalogGenerationExhausted, CatalogGenerationOverflow
from .generation import CatalogGeneration
from .record import CapabilityRecord
from .tool_id import ToolId

__all__ = ["ToolCatalog"]


class ToolCatalog:
    """Records keyed by :class:`ToolId`, iterated in ToolId order, plus a generation."""

    __slots__ = ("_generation", "_order", "_records")

    def __init__(self) -> None:
        self._records: dict[ToolId, CapabilityRecord] = {}
        self._generation = CatalogGeneration(0)
        self._order: tuple[ToolId, ...] | None = ()

    # --- reads ----------------------------------------------------------------------------

    @property
    def generation(self) -> CatalogGeneration:
        return self._generation

    def get(self, tool_id: ToolId) -> CapabilityRecord | None:
        return self._records.get(tool_id)

    def __contains__(self, tool_id: object) -> bool:
        return tool_id in self._records

    def __len__(self) -> int:
        return len(self._records)

    def ids(self) -> tuple[ToolId, ...]:
        """Every cataloged id in ToolId order."""
        if self._order is None:
            self._order = tuple(sorted(self._records))
        return self._order

    def __iter__(self) -> Iterator[CapabilityRecord]:
        """Records in ToolId order."""
        records = self._records
        return (records[tool_id] for tool_id in self.ids())

    # --- mutations ------------------------------------------------------------------------

    def _next_generation(self) -> CatalogGeneration:
        try:
            return self._generation.checked_next()
        except CatalogGenerationOverflow:
            raise CatalogGenerationExhausted() from None

    def insert(self, record: CapabilityRecord) -> CatalogGeneration:
        """Add a record under a new id; return the new generation."""
        if record.id in self._records:
            raise CatalogDuplicateToolId(record.id.text)
        nxt = self._next_generation()
        self._records[record.id] = record
        self._commit(nxt)
        return nxt

    def upsert(self, replaced: ToolId | None, record: CapabilityRecord) -> CatalogGeneration:
        """Replace ``replaced`` (if any) by ``record`` in one mutation; return the generation.

        ``replaced`` may be absent, in which case this is an insert that also tolerates
        ``record.id == replaced``.  Re-using another live record's id is refused: an upsert
        must not silently swallow a different tool.
        """
        if replaced != record.id and record.id in self._records:
            raise CatalogDuplicateToolId(record.id.text)
        nxt = self._next_generation()
        if replaced is not None and replaced != record.id:
            self._records.pop(replaced, None)
        self._records[record.id] = record
        self._commit(nxt)
        return nxt

    def remove(self, tool_id: ToolId) -> bool:
        """Drop ``tool_id``; True when it was present.  Absent is not an error and not a
        mutation (the generation stays)."""
        if tool_id not in self._records:
            return False
        nxt = self._next_generation()
        del self._records[tool_id]
        self._commit(nxt)
        return True

    def rebase_past(self, prior: CatalogGeneration) -> CatalogGeneration:
        """Move the generation to ``max(current, prior) + 1`` so a rebuilt catalog never reuses
        a generation value observed before; :class:`CatalogGenerationOverflow` at the top."""
        self._generation = max(self._generation, prior).checked_next()
        return self._generation

    def force_generation(self, value: CatalogGeneration) -> None:
        """Test seam (PROTOCOL.md ``catalog_set_generation``): set the counter only.

        Real hosts never call this: it can move the generation backwards, which is exactly
        what the generation is there to prevent.  It exists so conformance vectors can reach
        the 2^64-1 boundary without 2^64 mutations.
        """
        self._generation = value

    def _commit(self, nxt: CatalogGeneration) -> None:
        self._generation = nxt
        self._order = None

    def __repr__(self) -> str:
        return f"ToolCatalog(generation={self._generation.value}, records={len(self._records)})"
