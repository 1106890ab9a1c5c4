"""Live tools by runtime name, their API-safe aliases, and wire-name resolution (SPEC.md §4).

Model providers restrict tool names on the wire (``[A-Za-z0-9_-]``, 64 bytes), so every live
tool gets an *alias*: its runtime name with every other character replaced by ``_``, cut to 64
bytes.  Aliases are handed out deterministically — builtin-sourced tools first, then the rest,
each group in runtime-name byte order, ties by ToolId — and a collision gets the first free
``base_N`` (N = 2, 3, …).  Builtins going first means a third-party tool can never take a
builtin's plain alias.

Resolution returns the ToolId of the live tool itself, never anything derived from the wire
text, so an alias or a collision suffix cannot select a different identity than the tool it was
handed to.  Wire names are untrusted and unbounded; only their first
:data:`WIRE_NAME_MAX_BYTES` bytes are ever echoed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from .catalog import ToolCatalog
from .errors import AuthorizationUnknownTool
from .record import bound_utf8
from .source import BuiltinSource
from .tool_id import ToolId

__all__ = [
    "ALIAS_MAX_BYTES",
    "WIRE_NAME_MAX_BYTES",
    "RegisteredTool",
    "ResolvedToolCall",
    "ToolRegistry",
    "api_safe_alias_base",
]

WIRE_NAME_MAX_BYTES: Final = 128
ALIAS_MAX_BYTES: Final = 64

_UNSAFE = re.compile(r"[^A-Za-z0-9_\-]")


def api_safe_alias_base(runtime_name: str) -> str:
    """The runtime name with unsafe characters replaced by ``_``, cut to 64 bytes (ASCII)."""
    return _UNSAFE.sub("_", runtime_name)[:ALIAS_MAX_BYTES]


@dataclass(frozen=True, slots=True)
class ResolvedToolCall:
    """A call as received: the bounded wire name, the runtime name and the live tool's id."""

    wire_name: str
    runtime_name: str
    tool_id: ToolId

    def __post_init__(self) -> None:
        # The wire name is untrusted and unbounded; the value never holds more than the bound.
        bounded = bound_utf8(self.wire_name, WIRE_NAME_MAX_BYTES)
        if bounded is not self.wire_name:
            object.__setattr__(self, "wire_name", bounded)

    @classmethod
    def for_tool(
        cls, tool_id: ToolId, *, wire_name: str | None = None, runtime_name: str | None = None
    ) -> ResolvedToolCall:
        """A resolved call for a known tool (the wire name is bounded; defaults to the id)."""
        return cls(
            tool_id.text if wire_name is None else wire_name,
            tool_id.text if runtime_name is None else runtime_name,
            tool_id,
        )


@dataclass(frozen=True, slots=True)
class RegisteredTool:
    """One live tool as the registry sees it."""

    runtime_name: str
    tool_id: ToolId
    builtin: bool


class ToolRegistry:
    """An immutable snapshot of the live tools, with aliases computed once at construction."""

    __slots__ = ("_by_alias", "_by_runtime_name")

    def __init__(self, tools: Iterable[RegisteredTool]) -> None:
        ordered = sorted(
            tools,
            key=lambda t: (
                not t.builtin,
                t.runtime_name.encode("utf-8", "surrogatepass"),
                t.tool_id,
            ),
        )
        self._by_alias: dict[str, RegisteredTool] = {}
        self._by_runtime_name: dict[str, RegisteredTool] = {}
        for tool in ordered:
            self._by_alias[self._free_alias(api_safe_alias_base(tool.runtime_name))] = tool
            # With duplicate runtime names the first in hand-out order answers to the name.
            self._by_runtime_name.setdefault(tool.runtime_name, tool)

    @classmethod
    def from_catalog(cls, catalog: ToolCatalog) -> ToolRegistry:
        """The registry of every cataloged record under its runtime name."""
        return cls(
            RegisteredTool(r.runtime_name, r.id, isinstance(r.source, BuiltinSource))
            for r in catalog
        )

    def _free_alias(self, base: str) -> str:
        if base not in self._by_alias:
            return base
        n = 2
        while True:
            suffix = f"_{n}"
            candidate = base[: ALIAS_MAX_BYTES - len(suffix)] + suffix
            if candidate not in self._by_alias:
                return candidate
            n += 1

    def aliases(self) -> dict[str, ToolId]:
        """Every alias and the tool it selects."""
        return {alias: tool.tool_id for alias, tool in self._by_alias.items()}

    def alias_of(self, tool_id: ToolId) -> str | None:
        for alias, tool in self._by_alias.items():
            if tool.tool_id == tool_id:
                return alias
        return None

    def resolve(self, wire_name: str) -> ResolvedToolCall:
        """Alias match first, then runtime-name match; else ``UnknownTool`` (bounded echo)."""
        tool = self._by_alias.get(wire_name) or self._by_runtime_name.get(wire_name)
        if tool is None:
            raise AuthorizationUnknownTool(bound_utf8(wire_name, WIRE_NAME_MAX_BYTES))
        return ResolvedToolCall(wire_name, tool.runtime_name, tool.tool_id)
