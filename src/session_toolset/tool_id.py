"""``ToolId``: the identity of one tool, ``namespace:name`` (SPEC.md §1.1).

Two ways in, with different contracts:

* :meth:`ToolId.parse` is strict and keeps the text verbatim.  It never lowercases, trims or
  sanitizes, because an id that was silently rewritten could name a different tool.
* The source-aware constructors (:meth:`ToolId.builtin`, :meth:`ToolId.mcp` …) never fail: they
  *encode* raw, untrusted segment text so that any input maps to a canonical id, and distinct
  raw inputs map to distinct ids (``enc-`` hex is injective; ``sha-`` is collision-resistant).
  Raw text that merely looks like an encoding (``enc-…``/``sha-…``) is itself encoded, so a
  source can never impersonate another source's encoded segment.

Ids compare by the byte-wise order of their UTF-8 text.  A valid id is ASCII, where code-point
order and byte order coincide, so plain ``str`` comparison is exact.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Final

from .errors import (
    ToolIdEmpty,
    ToolIdInvalidName,
    ToolIdInvalidNamespace,
    ToolIdMissingNamespace,
    ToolIdOversized,
)

__all__ = ["NAMESPACE_MAX_BYTES", "NAME_MAX_BYTES", "TOOL_ID_MAX_BYTES", "ToolId"]

TOOL_ID_MAX_BYTES: Final = 200
NAMESPACE_MAX_BYTES: Final = 64
NAME_MAX_BYTES: Final = 128

# Budgets of the owner segment inside a prefixed namespace: "ext." + 60 = 64, "plugin." + 57 = 64.
_EXTENSION_OWNER_BYTES: Final = 60
_MCP_OWNER_BYTES: Final = 60
_PLUGIN_OWNER_BYTES: Final = 57

_CANONICAL = re.compile(r"[a-z0-9][a-z0-9_.\-]*\Z")
_SHA_HEX_CHARS: Final = 40


def is_canonical_segment(text: str, budget: int) -> bool:
    """True when ``text`` is non-empty, at most ``budget`` bytes, ``[a-z0-9][a-z0-9_.-]*``."""
    # The pattern admits ASCII only, so len(text) is the byte length once it matches.
    return _CANONICAL.match(text) is not None and len(text) <= budget


def encode_segment(raw: str, budget: int) -> str:
    """Map raw segment text to a canonical segment of at most ``budget`` bytes (SPEC.md §1.1)."""
    if is_canonical_segment(raw, budget) and not raw.startswith(("enc-", "sha-")):
        return raw
    raw_bytes = raw.encode("utf-8", "surrogatepass")
    encoded = "enc-" + raw_bytes.hex()
    if len(encoded) <= budget:
        return encoded
    return "sha-" + hashlib.sha256(raw_bytes).hexdigest()[:_SHA_HEX_CHARS]


@dataclass(frozen=True, order=True, slots=True)
class ToolId:
    """A validated tool identity.  Constructing one directly validates exactly like
    :meth:`parse`, so every ``ToolId`` in existence is canonical."""

    text: str

    def __post_init__(self) -> None:
        _validate(self.text)

    @classmethod
    def parse(cls, raw: str) -> ToolId:
        """Parse ``raw`` strictly; raise a :class:`~session_toolset.errors.ToolIdError`."""
        return cls(raw)

    @property
    def namespace(self) -> str:
        return self.text.partition(":")[0]

    @property
    def name(self) -> str:
        return self.text.partition(":")[2]

    @classmethod
    def builtin(cls, name: str) -> ToolId:
        return cls("builtin:" + encode_segment(name, NAME_MAX_BYTES))

    @classmethod
    def unclassified(cls, name: str) -> ToolId:
        return cls("unknown:" + encode_segment(name, NAME_MAX_BYTES))

    @classmethod
    def extension(cls, extension_id: str, tool: str) -> ToolId:
        owner = encode_segment(extension_id, _EXTENSION_OWNER_BYTES)
        return cls(f"ext.{owner}:{encode_segment(tool, NAME_MAX_BYTES)}")

    @classmethod
    def mcp(cls, server_id: str, tool: str) -> ToolId:
        owner = encode_segment(server_id, _MCP_OWNER_BYTES)
        return cls(f"mcp.{owner}:{encode_segment(tool, NAME_MAX_BYTES)}")

    @classmethod
    def plugin(cls, plugin_id: str, tool: str) -> ToolId:
        owner = encode_segment(plugin_id, _PLUGIN_OWNER_BYTES)
        return cls(f"plugin.{owner}:{encode_segment(tool, NAME_MAX_BYTES)}")

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"ToolId({self.text!r})"

    # Ids key every catalog, set and registry lookup the gate makes on each call; hashing and
    # comparing the text directly avoids building a one-element tuple per lookup, as the
    # generated dataclass methods do.  Same semantics: equal ids have equal text.
    def __hash__(self) -> int:
        return hash(self.text)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ToolId):
            return self.text == other.text
        return NotImplemented


def _validate(raw: str) -> None:
    """SPEC.md §1.1 check order: empty, oversized, missing ':', namespace, then name."""
    if not isinstance(raw, str):
        raise TypeError(f"ToolId text must be str, not {type(raw).__name__}")
    if not raw:
        raise ToolIdEmpty()
    size = len(raw.encode("utf-8", "surrogatepass"))
    if size > TOOL_ID_MAX_BYTES:
        raise ToolIdOversized(size, TOOL_ID_MAX_BYTES)
    namespace, colon, name = raw.partition(":")
    if not colon:
        raise ToolIdMissingNamespace()
    if not is_canonical_segment(namespace, NAMESPACE_MAX_BYTES):
        raise ToolIdInvalidNamespace()
    # A second ':' lands in ``name`` and fails the canonical pattern, as SPEC.md requires.
    if not is_canonical_segment(name, NAME_MAX_BYTES):
        raise ToolIdInvalidName()
