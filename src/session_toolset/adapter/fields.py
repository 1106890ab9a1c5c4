"""Typed, validating access to the fields of one PROTOCOL.md request.

PROTOCOL.md wants every field validated before the operation runs, in the order the op's row lists
them, each completely (presence, JSON type, name lookup, boundary parsing) before the next: so a
handler reads its fields through :class:`Request` one after another in that order, each accessor
finishing that field (a ToolId field is parsed right there), and only then calls the
implementation.  Shape problems
(missing field, wrong JSON type, unknown name) raise :class:`ProtocolError`; a field that names a
ToolId or SessionId is parsed by the implementation itself and fails with its typed error.
"""

from __future__ import annotations

from typing import Final

from ..generation import GENERATION_MAX, CatalogGeneration
from ..json_value import JsonValue
from ..session_id import SessionId
from ..source import (
    BuiltinRuntime,
    BuiltinSource,
    CapabilitySource,
    ExtensionManifest,
    ExtensionSource,
    McpConfig,
    McpSource,
    PluginConfig,
    PluginSource,
    TrustProvenance,
    UnknownSource,
    Unverified,
)
from ..tool_id import ToolId

__all__ = ["ProtocolError", "Request"]

_NAME_MAX_CHARS: Final = 40


class ProtocolError(Exception):
    """The request itself is malformed (PROTOCOL.md error code ``Protocol``)."""


def _show(name: str) -> str:
    """A field or value name for a message, bounded so messages never echo unbounded input."""
    return repr(name if len(name) <= _NAME_MAX_CHARS else name[:_NAME_MAX_CHARS] + "…")


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class Request:
    """One request object; every accessor validates and raises :class:`ProtocolError`."""

    __slots__ = ("_fields",)

    def __init__(self, fields: dict[str, JsonValue]) -> None:
        self._fields = fields

    def _required(self, name: str) -> JsonValue:
        if name not in self._fields:
            raise ProtocolError(f"missing field {_show(name)}")
        return self._fields[name]

    def _wrong(self, name: str, wanted: str, value: object) -> ProtocolError:
        return ProtocolError(f"field {_show(name)} must be {wanted}, got {_json_type(value)}")

    # --- scalars --------------------------------------------------------------------------

    def string(self, name: str) -> str:
        value = self._required(name)
        if not isinstance(value, str):
            raise self._wrong(name, "a string", value)
        return value

    def optional_string(self, name: str) -> str | None:
        """Absent → None; otherwise a string (``null`` is a wrong type: PROTOCOL.md accepts it
        only where an op's row says "or null")."""
        if name not in self._fields:
            return None
        return self.string(name)

    def nullable_string(self, name: str) -> str | None:
        """Required, but may be null."""
        value = self._required(name)
        if value is not None and not isinstance(value, str):
            raise self._wrong(name, "a string or null", value)
        return value

    def boolean(self, name: str, default: bool | None = None) -> bool:
        if name not in self._fields and default is not None:
            return default
        value = self._required(name)
        if not isinstance(value, bool):
            raise self._wrong(name, "a boolean", value)
        return value

    def u64(self, name: str) -> int:
        value = self._required(name)
        # bool is an int subclass in Python, but `true` is not a number in JSON.
        if type(value) is not int:
            raise self._wrong(name, "an integer", value)
        if not 0 <= value <= GENERATION_MAX:
            raise ProtocolError(f"field {_show(name)} must be in 0..2^64-1")
        return value

    def generation(self, name: str) -> CatalogGeneration:
        return CatalogGeneration(self.u64(name))

    def json(self, name: str) -> JsonValue:
        return self._required(name)

    # --- identities -----------------------------------------------------------------------

    def tool_id(self, name: str) -> ToolId:
        return ToolId.parse(self.string(name))

    def nullable_tool_id(self, name: str) -> ToolId | None:
        text = self.nullable_string(name)
        return None if text is None else ToolId.parse(text)

    def optional_tool_id(self, name: str) -> ToolId | None:
        """Absent → None; otherwise a strictly parsed ToolId (``null`` is a wrong type)."""
        text = self.optional_string(name)
        return None if text is None else ToolId.parse(text)

    def session_id(self, name: str) -> SessionId:
        return SessionId.parse(self.string(name))

    def strings(self, name: str) -> list[str]:
        """A list field, typed as a whole (an array of strings) before any element is used."""
        value = self._required(name)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._wrong(name, "an array of strings", value)
        return [v for v in value if isinstance(v, str)]

    def optional_strings(self, name: str) -> list[str]:
        """Absent → []; otherwise an array of strings (``null`` is a wrong type)."""
        return self.strings(name) if name in self._fields else []

    def tool_ids(self, name: str) -> list[ToolId]:
        """The whole list typed first, then each element parsed in list order."""
        return [ToolId.parse(text) for text in self.strings(name)]

    # --- sources and provenances ----------------------------------------------------------

    def _object(self, name: str) -> Request:
        value = self._required(name)
        if not isinstance(value, dict):
            raise self._wrong(name, "an object", value)
        return Request(value)

    def source(self, name: str) -> tuple[CapabilitySource, str]:
        """A SOURCE value and the builtin name that feeds a builtin's derived id."""
        obj = self._object(name)
        kind = obj.string("kind")
        if kind == "builtin":
            return BuiltinSource(), obj.string("name")
        if kind == "extension":
            return ExtensionSource(obj.string("extension_id"), obj.string("tool_name")), ""
        if kind == "mcp":
            return McpSource(obj.string("server_id"), obj.string("server_tool_name")), ""
        if kind == "plugin":
            return PluginSource(obj.string("plugin_id"), obj.string("tool_name")), ""
        if kind == "unknown":
            return UnknownSource(obj.string("runtime_name")), ""
        raise ProtocolError(f"unknown source kind {_show(kind)}")

    def provenance(self, name: str) -> TrustProvenance:
        obj = self._object(name)
        kind = obj.string("kind")
        if kind == "builtin_runtime":
            return BuiltinRuntime()
        if kind == "extension_manifest":
            return ExtensionManifest(obj.string("extension_id"))
        if kind == "mcp_config":
            return McpConfig(obj.string("server_id"))
        if kind == "plugin_config":
            return PluginConfig(obj.string("plugin_id"))
        if kind == "unverified":
            return Unverified()
        raise ProtocolError(f"unknown provenance kind {_show(kind)}")
