"""The adapter's world (PROTOCOL.md "World"): one catalog, named sets and grants, and the
per-id factory call counters that let vectors observe when the gate acquires a tool.

Each named set is held as SPEC.md §5 says a runtime holds a session's set: one retained
:class:`SharedSessionToolSet` that activation mutates and the gate and the next round read.  So
the corpus drives the lock-protected wrapper a runtime actually uses, not only the bare set
underneath it."""

from __future__ import annotations

from collections import Counter

from ..catalog import ToolCatalog
from ..grant import SessionActivationGrant
from ..record import ToolFactory
from ..shared import SharedSessionToolSet
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
        self.sets: dict[str, SharedSessionToolSet] = {}
        self.grants: dict[str, SessionActivationGrant] = {}
        self.factory_calls: Counter[str] = Counter()

    def factory_for(self, tool_id: ToolId) -> ToolFactory:
        """A factory that counts its calls under the id (any record with that id)."""
        key = tool_id.text

        def factory() -> object:
            self.factory_calls[key] += 1
            return f"implementation of {key}"

        return factory

    def tool_set(self, name: str) -> SharedSessionToolSet:
        found = self.sets.get(name)
        if found is None:
            raise ProtocolError("unknown set name")
        return found

    def install(self, name: str, tool_set: SessionToolSet) -> None:
        """Make ``tool_set`` the set named ``name``: the retained set's replacement when the name
        is taken (as a runtime installs the next round's set), a new retained set otherwise."""
        found = self.sets.get(name)
        if found is None:
            self.sets[name] = SharedSessionToolSet(tool_set)
        else:
            found.replace(tool_set)

    def grant(self, name: str) -> SessionActivationGrant:
        found = self.grants.get(name)
        if found is None:
            raise ProtocolError("unknown grant name")
        return found
