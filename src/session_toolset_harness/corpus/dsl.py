"""A tiny DSL for writing PROTOCOL.md vectors with explicit, hand-reasoned expectations.

A :class:`Vector` starts with ``hello`` and ``reset`` (PROTOCOL.md, World) and grows one step per
call: ``v.ok(op, expect, **request)`` expects success with the given reply fields,
``v.fail(op, code, payload, **request)`` expects a typed rejection with that code and payload;
``v.line(text, expect)`` and ``v.raw(data, expect)`` send an exact line (PROTOCOL.md ``send_line``
/ ``send_hex``) for what a request object cannot say.
Nothing here ever looks at message wording or at fields SPEC.md leaves open.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

Json: TypeAlias = Any
Obj: TypeAlias = dict[str, Any]

PROTOCOL_VERSION = 1

#: SPEC.md 1.4: the tag of a vector whose expectation depends on a number literal the original
#: implementation's JSON parser mishandles (``tests/corpus/test_declared_differences.py`` finds
#: them), so a runner can set it apart with ``--exclude-tag declared-difference``.
DECLARED_DIFFERENCE = "declared-difference"

PROTOCOL_ERROR: Obj = {"ok": False, "error": "Protocol"}


class Vector:
    """One vector file under construction."""

    def __init__(self, vid: str, description: str, tags: tuple[str, ...] = ()) -> None:
        self.id = vid
        self.description = description
        self.tags = list(dict.fromkeys(tags))
        self.steps: list[Obj] = []
        self.step({"op": "hello"}, {"ok": True, "protocol": PROTOCOL_VERSION})
        self.step({"op": "reset"}, {"ok": True})

    @property
    def group(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.id.split("/", 1)[1]

    def step(self, send: Obj, expect: Obj) -> Vector:
        self.steps.append({"send": send, "expect": expect})
        return self

    def ok(self, op: str, expect: Obj | None = None, /, **request: Json) -> Vector:
        """A request that must succeed; ``expect`` lists reply fields (a subset)."""
        reply: Obj = {"ok": True}
        reply.update(expect or {})
        return self.step({"op": op, **request}, reply)

    def fail(self, op: str, code: str, payload: Obj | None = None, /, **request: Json) -> Vector:
        """A request that must be rejected with ``code`` (and the given payload fields)."""
        reply: Obj = {"ok": False, "error": code}
        reply.update(payload or {})
        return self.step({"op": op, **request}, reply)

    def protocol(self, request: Obj) -> Vector:
        """A malformed request: ``Protocol`` error (sent exactly as given)."""
        return self.step(request, dict(PROTOCOL_ERROR))

    def line(self, text: str, expect: Obj | None = None) -> Vector:
        """Send ``text`` as the exact request line (``send_line``); default expect: Protocol."""
        assert "\n" not in text, text
        self.steps.append({"send_line": text, "expect": dict(expect or PROTOCOL_ERROR)})
        return self

    def raw(self, data: bytes, expect: Obj | None = None) -> Vector:
        """Send ``data`` as the exact line bytes (``send_hex``); default expect: Protocol."""
        assert b"\n" not in data, data
        self.steps.append({"send_hex": data.hex(), "expect": dict(expect or PROTOCOL_ERROR)})
        return self

    def to_json(self) -> Obj:
        return {
            "protocol": PROTOCOL_VERSION,
            "id": self.id,
            "description": self.description,
            "tags": self.tags,
            "steps": self.steps,
        }


# --- values ------------------------------------------------------------------------------------


def src_builtin(name: str) -> Obj:
    return {"kind": "builtin", "name": name}


def src_ext(extension_id: str, tool_name: str) -> Obj:
    return {"kind": "extension", "extension_id": extension_id, "tool_name": tool_name}


def src_mcp(server_id: str, tool: str) -> Obj:
    return {"kind": "mcp", "server_id": server_id, "server_tool_name": tool}


def src_plugin(plugin_id: str, tool_name: str) -> Obj:
    return {"kind": "plugin", "plugin_id": plugin_id, "tool_name": tool_name}


def src_unknown(runtime_name: str) -> Obj:
    return {"kind": "unknown", "runtime_name": runtime_name}


P_BUILTIN: Obj = {"kind": "builtin_runtime"}
P_UNVERIFIED: Obj = {"kind": "unverified"}


def p_ext(extension_id: str) -> Obj:
    return {"kind": "extension_manifest", "extension_id": extension_id}


def p_mcp(server_id: str) -> Obj:
    return {"kind": "mcp_config", "server_id": server_id}


def p_plugin(plugin_id: str) -> Obj:
    return {"kind": "plugin_config", "plugin_id": plugin_id}


@dataclass(frozen=True)
class Rec:
    """A catalog record as a vector sends it, with what replies must show for it."""

    source: Obj
    provenance: Obj
    schema: Json = field(default_factory=lambda: {"type": "object"})
    explicit_id: str | None = None
    runtime_name: str | None = None

    @property
    def id(self) -> str:
        from session_toolset_harness.corpus.spec import derived_id

        return self.explicit_id if self.explicit_id is not None else derived_id(self.source)

    @property
    def digest(self) -> str:
        from session_toolset_harness.corpus.spec import digest

        return digest(self.schema)

    def request(self) -> Obj:
        """The ``catalog_insert`` request fields (without ``op``)."""
        fields: Obj = {
            "source": self.source,
            "provenance": self.provenance,
            "schema": self.schema,
        }
        if self.explicit_id is not None:
            fields["id"] = self.explicit_id
        if self.runtime_name is not None:
            fields["runtime_name"] = self.runtime_name
        return fields

    def reply_source(self) -> Obj:
        """PROTOCOL.md: a builtin source replies as ``{"kind": "builtin"}``."""
        if self.source["kind"] == "builtin":
            return {"kind": "builtin"}
        return dict(self.source)

    def state(self) -> Obj:
        """This record's entry in a ``catalog_state`` reply."""
        return {
            "id": self.id,
            "digest": self.digest,
            "source": self.reply_source(),
            "provenance": self.provenance,
        }

    def core(self) -> Obj:
        """This record's entry in a snapshot's ``core`` list."""
        return {"tool": self.id, "digest": self.digest, "provenance": self.provenance}

    def activated(self, generation: int) -> Obj:
        """This record's entry in a snapshot's ``activated`` list, granted at ``generation``."""
        return {
            "tool": self.id,
            "generation": generation,
            "digest": self.digest,
            "provenance": self.provenance,
            "lease": "not_acquired",
        }

    def grant(self, session: str, generation: int) -> Obj:
        return {
            "session": session,
            "tool": self.id,
            "generation": generation,
            "digest": self.digest,
        }


def insert(v: Vector, rec: Rec, generation: int) -> Vector:
    """``catalog_insert`` of ``rec`` expected to succeed at ``generation``."""
    return v.ok("catalog_insert", {"id": rec.id, "generation": generation}, **rec.request())


def upsert(v: Vector, replaced: str | None, rec: Rec, generation: int) -> Vector:
    return v.ok(
        "catalog_upsert",
        {"id": rec.id, "generation": generation},
        replaced=replaced,
        **rec.request(),
    )


def state(v: Vector, generation: int, records: list[Rec]) -> Vector:
    """``catalog_state``; ``records`` is written in the expected (ToolId byte) order."""
    return v.ok(
        "catalog_state", {"generation": generation, "records": [r.state() for r in records]}
    )


def snapshot(
    v: Vector,
    name: str,
    session: str,
    catalog_generation: int,
    schema_generation: int,
    core: list[Rec],
    activated: list[tuple[Rec, int]],
) -> Vector:
    """``snapshot``; both lists are written in the expected ToolId order."""
    return v.ok(
        "snapshot",
        {
            "session": session,
            "catalog_generation": catalog_generation,
            "schema_generation": schema_generation,
            "core": [r.core() for r in core],
            "activated": [r.activated(g) for r, g in activated],
        },
        set=name,
    )


def issue(v: Vector, name: str, session: str, rec: Rec, generation: int) -> Vector:
    """``issue_grant`` expected to succeed with a grant at ``generation`` and the record digest."""
    return v.ok(
        "issue_grant",
        {"grant": rec.grant(session, generation)},
        name=name,
        session=session,
        tool=rec.id,
    )


def forge(v: Vector, name: str, session: str, tool: str, generation: int, digest: str) -> Vector:
    grant = {"session": session, "tool": tool, "generation": generation, "digest": digest}
    return v.ok("forge_grant", {"grant": grant}, name=name, **grant)


def deny(v: Vector, set_name: str, tool: str, variant: str) -> Vector:
    """``authorize`` of ``tool`` in ``set_name`` expected to be denied with
    ``ToolAuthorizationError.<variant>`` naming the tool."""
    return v.fail(
        "authorize",
        f"ToolAuthorizationError.{variant}",
        {"tool": tool},
        set=set_name,
        tool=tool,
    )


def core_basis() -> Obj:
    return {"kind": "core"}


def exact_basis(generation: int) -> Obj:
    return {"kind": "exact", "catalog_generation": generation}
