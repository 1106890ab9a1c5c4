"""``CapabilityRecord``: one cataloged tool (SPEC.md §2).

A record is a value: its schema digest is computed once, at construction, from a private deep
copy of the schema, so nothing a caller does to its own JSON afterwards can make the record's
digest and schema disagree.  The implementation *factory* is stored but never called here: only
the execution gate calls it, after every check passed (SPEC.md §4 step 5).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

from .digest import SchemaDigest
from .json_value import JsonValue, validate_json_value
from .source import CapabilitySource, SourceTrust, TrustProvenance, source_trust
from .tool_id import ToolId

__all__ = [
    "SUMMARY_MAX_BYTES",
    "TAGS_MAX",
    "TAG_MAX_BYTES",
    "CapabilityRecord",
    "ToolFactory",
    "bound_utf8",
]

SUMMARY_MAX_BYTES: Final = 256
TAGS_MAX: Final = 8
TAG_MAX_BYTES: Final = 32

#: Produces a tool's implementation.  Called by the execution gate only, once per authorization.
ToolFactory = Callable[[], object]


def bound_utf8(text: str, limit: int) -> str:
    """The longest prefix of ``text`` of at most ``limit`` UTF-8 bytes, on a character boundary."""
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", "ignore")


def _no_implementation() -> object:
    return None


@dataclass(frozen=True, slots=True, init=False)
class CapabilityRecord:
    """An immutable catalog entry.

    Every way of building one bounds the summary and tags, takes a private copy of the schema
    and derives the digest and the source trust from it, so no record can exist whose digest
    disagrees with its schema or whose summary exceeds its bound.
    """

    id: ToolId
    source: CapabilitySource
    provenance: TrustProvenance
    schema_digest: SchemaDigest
    summary: str
    tags: tuple[str, ...]
    runtime_name: str
    factory: ToolFactory = field(compare=False, repr=False)
    _schema: JsonValue = field(compare=False, repr=False)
    #: SPEC.md §2 source trust, computed once: records are immutable and the gate asks on
    #: every call.
    trust: SourceTrust = field(compare=False)

    def __init__(
        self,
        id: ToolId,
        source: CapabilitySource,
        provenance: TrustProvenance,
        schema: JsonValue,
        *,
        summary: str = "",
        tags: Iterable[str] = (),
        runtime_name: str | None = None,
        factory: ToolFactory = _no_implementation,
    ) -> None:
        """Build a record: bound the summary and tags, copy the schema and digest it.

        ``runtime_name`` is the name the live tool registry knows the tool by (it defaults to
        the id text); it feeds wire-name aliases, never the identity.
        """
        owned = copy.deepcopy(validate_json_value(schema))
        init = object.__setattr__  # frozen: assignment goes around __setattr__, once
        init(self, "id", id)
        init(self, "source", source)
        init(self, "provenance", provenance)
        init(self, "schema_digest", SchemaDigest.of(owned))
        init(self, "summary", bound_utf8(summary, SUMMARY_MAX_BYTES))
        init(self, "tags", tuple(bound_utf8(tag, TAG_MAX_BYTES) for tag in list(tags)[:TAGS_MAX]))
        init(self, "runtime_name", id.text if runtime_name is None else runtime_name)
        init(self, "factory", factory)
        init(self, "_schema", owned)
        init(self, "trust", source_trust(source, provenance))

    @classmethod
    def new(
        cls,
        id: ToolId,
        source: CapabilitySource,
        provenance: TrustProvenance,
        schema: JsonValue,
        *,
        summary: str = "",
        tags: Iterable[str] = (),
        runtime_name: str | None = None,
        factory: ToolFactory = _no_implementation,
    ) -> CapabilityRecord:
        """The same as the constructor; reads like the other builders (``SessionToolSet.new``)."""
        return cls(
            id,
            source,
            provenance,
            schema,
            summary=summary,
            tags=tags,
            runtime_name=runtime_name,
            factory=factory,
        )

    @property
    def schema(self) -> JsonValue:
        """A copy of the schema (the record's own copy must stay equal to its digest)."""
        return copy.deepcopy(self._schema)
