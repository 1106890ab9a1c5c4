"""PROTOCOL.md field validation: each field completely (presence, JSON type, name lookup,
boundary parsing) in the order of the op's row; the first faulty field decides the reply.

A shape fault raises `ProtocolFault` (reply ``Protocol``); a boundary-parse fault raises
`identity.IdentityError` with its typed code.  ``null`` is a value of the wrong type unless the
row says "or null"; an optional field may only be absent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

from ..values import Provenance, Source
from . import identity

U64_MAX: Final = 2**64 - 1
T = TypeVar("T")
_ABSENT: Final = object()

_SOURCE_FIELDS: Final = {
    "builtin": ("name",),
    "extension": ("extension_id", "tool_name"),
    "mcp": ("server_id", "server_tool_name"),
    "plugin": ("plugin_id", "tool_name"),
    "unknown": ("runtime_name",),
}
_PROVENANCE_FIELD: Final = {
    "builtin_runtime": None,
    "extension_manifest": "extension_id",
    "mcp_config": "server_id",
    "plugin_config": "plugin_id",
    "unverified": None,
}


class ProtocolFault(Exception):
    """The request is malformed as a request: the reply is ``Protocol``."""


class Fields:
    """Typed reads of one request object (or of a SOURCE/PROVENANCE object inside it)."""

    def __init__(self, obj: Mapping[str, Any]) -> None:
        self.obj = obj

    def value(self, name: str) -> Any:
        if name not in self.obj:
            raise ProtocolFault(f"missing field {name!r}")
        return self.obj[name]

    def string(self, name: str) -> str:
        value = self.value(name)
        if not isinstance(value, str):
            raise ProtocolFault(f"field {name!r} must be a string")
        return value

    def nullable_string(self, name: str) -> str | None:
        value = self.value(name)
        if value is not None and not isinstance(value, str):
            raise ProtocolFault(f"field {name!r} must be a string or null")
        return value

    def optional(self, name: str, read: Callable[[str], T]) -> T | None:
        """Absent: None; present: read as the required field (so ``null`` is a wrong type)."""
        return None if name not in self.obj else read(name)

    def boolean(self, name: str) -> bool:
        value = self.value(name)
        if not isinstance(value, bool):
            raise ProtocolFault(f"field {name!r} must be a boolean")
        return value

    def u64(self, name: str) -> int:
        value = self.value(name)
        if type(value) is not int or not 0 <= value <= U64_MAX:
            raise ProtocolFault(f"field {name!r} must be an integer in 0..2^64-1")
        return value

    def strings(self, name: str) -> list[str]:
        """A list field, typed as a whole (a list of strings) before any element is used."""
        value = self.value(name)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ProtocolFault(f"field {name!r} must be a list of strings")
        return list(value)

    def tool(self, name: str) -> str:
        return identity.parse_tool_id(self.string(name))

    def nullable_tool(self, name: str) -> str | None:
        text = self.nullable_string(name)
        return None if text is None else identity.parse_tool_id(text)

    def tools(self, name: str) -> list[str]:
        """The whole list typed first, then each element parsed in list order."""
        return [identity.parse_tool_id(t) for t in self.strings(name)]

    def session(self, name: str) -> str:
        return identity.parse_session(self.string(name))

    def grant_session(self, name: str) -> str:
        return identity.grant_session(self.string(name))

    def _object(self, name: str) -> Fields:
        value = self.value(name)
        if not isinstance(value, dict):
            raise ProtocolFault(f"field {name!r} must be an object")
        return Fields(value)

    def source(self, name: str) -> Source:
        """A SOURCE; a builtin's ``name`` is kept as the source's name (it feeds the id)."""
        obj = self._object(name)
        kind = obj.string("kind")
        keys = _SOURCE_FIELDS.get(kind)
        if keys is None:
            raise ProtocolFault(f"unknown source kind {kind!r}")
        parts = [obj.string(k) for k in keys]
        if len(parts) == 1:
            return Source(kind, name=parts[0])
        return Source(kind, parts[0], parts[1])

    def provenance(self, name: str) -> Provenance:
        obj = self._object(name)
        kind = obj.string("kind")
        if kind not in _PROVENANCE_FIELD:
            raise ProtocolFault(f"unknown provenance kind {kind!r}")
        key = _PROVENANCE_FIELD[kind]
        return Provenance(kind) if key is None else Provenance(kind, obj.string(key))


def derived_id(source: Source) -> str:
    """The source-aware constructor SPEC.md 1.1 names for each source kind."""
    if source.kind == "builtin":
        return identity.builtin(source.name)
    if source.kind == "unknown":
        return identity.unclassified(source.name)
    constructor = {"extension": identity.extension, "mcp": identity.mcp, "plugin": identity.plugin}
    return constructor[source.kind](source.owner, source.name)


def source_reply(source: Source) -> dict[str, str]:
    """A SOURCE as replies carry it: a builtin source stores no name (PROTOCOL.md, Values)."""
    return {"kind": "builtin"} if source.kind == "builtin" else source.to_json()
