"""The adapter's world (PROTOCOL.md "World"): one catalog, named sets and grants, and the
per-id factory call counters that let vectors observe when the gate acquires a tool."""

from __future__ import annotations

from collections import Counter

from ..catalog import ToolCatalog
from ..grant import SessionActivationGrant
from ..record import ToolFactory
from ..tool_id import ToolId
from ..toolset import SessionToolSet
from .fields import ProtocolError

__all__ = ["World"]


class World:
    __slots__ = ("catalog", "factory_calls", "grants", "sets")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Back to the PROTOCOL.md start state: empty catalog at generation 0, nothing named."""
        self.catalog = ToolCatalog()
        self.sets: dict[str, SessionToolSet] = {}
        self.grants: dict[str, SessionActivationGrant] = {}
        self.factory_calls: Counter[str] = Counter()

    def factory_for(self, tool_id: ToolId) -> ToolFactory:
        """A factory that counts its calls under the id (any record with that id)."""
        key = tool_id.text

        def factory() -> object:
            self.factory_calls[key] += 1
            return f"implementation of {key}"

        return factory

    def tool_set(self, name: str) -> SessionToolSet:
        found = self.sets.get(name)
        if found is None:
            raise ProtocolError("unknown set name")
        return found

    def grant(self, name: str) -> SessionActivationGrant:
        found = self.grants.get(name)
        if found is None:
            raise ProtocolError("unknown grant name")
        return found
