"""`World`: one PROTOCOL.md adapter world as an executable specification.

``World().handle(request)`` / ``handle_line(data)`` return the reply a conforming adapter gives,
without ``message`` (never compared).  Catalog, sets, activation, the gate and the host entry
points are the model's oracle (`..oracle.Oracle`, the one definition the proofs check); this
module adds only what PROTOCOL.md and SPEC.md section 1 and 4 define around it:

* the request line (`json_text`) and field validation in row order (`fields`);
* identities (`identity`), SchemaDigest (`digest`) - a record's digest label in the oracle is
  its real hex digest;
* named sets are the oracle's; named grants are kept here; each record's source and runtime name
  are kept here (the oracle keeps only its source *trust*), for ``catalog_state`` and
  ``resolve`` (`alias`).

A request whose answer SPEC.md leaves open raises `OutOfScope` (today: a line nested deeper than
the 127 levels SPEC.md 1.4 requires, when it is otherwise valid).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from ..concrete import ConcreteAlgebra, Grant
from ..oracle import Oracle
from ..profiles import DEFAULT, Variant
from ..values import Source
from . import alias, identity
from .digest import schema_digest
from .fields import Fields, ProtocolFault, derived_id, source_reply
from .json_text import MAX_DEPTH, Malformed, parse_line

Reply = dict[str, Any]
PROTOCOL: Final[Reply] = {"ok": False, "error": "Protocol"}
AUTHORITIES: Final = ("model_confirmed", "unauthorized")


class OutOfScope(Exception):
    """SPEC.md/PROTOCOL.md leave the answer to this request open."""


@dataclass(frozen=True)
class RecordInfo:
    """What the oracle does not keep of a cataloged record."""

    source: Source
    runtime_name: str


def grant_json(g: Grant) -> Reply:
    return {"session": g.session, "tool": g.tool, "generation": g.gen, "digest": g.digest}


def request_line(request: Any) -> bytes:
    """A request as the runner sends it: compact JSON, raw UTF-8 unless a lone surrogate forces
    ASCII escapes (PROTOCOL.md's vector ``send``)."""
    text = json.dumps(request, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(request, ensure_ascii=True, separators=(",", ":")).encode("ascii")


class World:
    """The oracle plus the protocol's bookkeeping; ``handle`` answers one request."""

    def __init__(self, variant: Variant = DEFAULT, alg: ConcreteAlgebra | None = None) -> None:
        """``alg``: the oracle's concrete interpretation (default: the plain one)."""
        self.variant = variant
        self.oracle = Oracle(variant, alg)
        self.grants: dict[str, Grant] = {}
        self.records: dict[str, RecordInfo] = {}
        self._seen: object = None
        self._observed: dict[str, Any] = {}
        self._ops: dict[str, Callable[[Fields], Reply]] = {
            name[4:]: getattr(self, name) for name in dir(self) if name.startswith("_op_")
        }

    # -- whole-world access (explore) --------------------------------------------------------
    def reset(self) -> None:
        self.oracle.reset()
        self.grants.clear()
        self.records.clear()

    def key(self) -> tuple[object, ...]:
        """A hashable value equal for equal worlds."""
        return (
            self.oracle.state,
            tuple(sorted(self.grants.items())),
            tuple(sorted(self.records.items())),
        )

    def save(self) -> tuple[Any, dict[str, Grant], dict[str, RecordInfo]]:
        return (self.oracle.state, dict(self.grants), dict(self.records))

    def restore(self, saved: tuple[Any, dict[str, Grant], dict[str, RecordInfo]]) -> None:
        self.oracle.state, grants, records = saved
        self.grants, self.records = dict(grants), dict(records)

    def observe(self) -> dict[str, Any]:
        """`Oracle.observe`, computed once per oracle state (states are immutable values)."""
        if self._seen is not self.oracle.state:
            self._observed = self.oracle.observe()
            self._seen = self.oracle.state
        return self._observed

    def set_names(self) -> list[str]:
        return sorted(self.observe()["sets"])

    def generation(self) -> int:
        gen: int = self.observe()["generation"]
        return gen

    def record_digest(self, tool: str) -> str | None:
        record = self.observe()["records"].get(tool)
        return None if record is None else str(record["digest"])

    def live(self) -> list[alias.Live]:
        """The registry: every cataloged record under its runtime name."""
        return [
            alias.Live(info.runtime_name, tool, info.source.kind == "builtin")
            for tool, info in self.records.items()
        ]

    # -- requests ----------------------------------------------------------------------------
    def handle(self, request: Any) -> Reply:
        """The reply to a request object, sent as the runner would send it."""
        return self.handle_line(request_line(request))

    def handle_line(self, data: bytes) -> Reply:
        """The reply to one raw request line (its bytes, without the newline)."""
        try:
            parsed = parse_line(data)
        except Malformed:
            return dict(PROTOCOL)
        if parsed.depth > MAX_DEPTH:
            raise OutOfScope(f"nesting {parsed.depth} > {MAX_DEPTH}: SPEC.md 1.4 leaves it open")
        return self.answer(parsed.value)

    def answer(self, request: Any) -> Reply:
        """The reply to an already-parsed request value (what `handle_line` does after the
        line's JSON: the explorer's constant observation requests skip re-parsing their own
        text at every step)."""
        if not isinstance(request, dict):
            return dict(PROTOCOL)
        op = request.get("op")
        handler = self._ops.get(op) if isinstance(op, str) else None
        if handler is None:
            return dict(PROTOCOL)
        try:
            return handler(Fields(request))
        except ProtocolFault:
            return dict(PROTOCOL)
        except identity.IdentityError as err:
            return {"ok": False, "error": err.code, **err.payload}

    # -- helpers -----------------------------------------------------------------------------
    @staticmethod
    def _reply(result: tuple[str, dict[str, Any]]) -> Reply:
        code, payload = result
        if code == "ok":
            return {"ok": True, **payload}
        if code == "Protocol":
            return dict(PROTOCOL)
        return {"ok": False, "error": code, **payload}

    def _set(self, f: Fields, name: str = "set") -> str:
        set_name = f.string(name)
        if set_name not in self.observe()["sets"]:
            raise ProtocolFault(f"unknown set {set_name!r}")
        return set_name

    def _grant(self, name: str) -> Grant:
        grant = self.grants.get(name)
        if grant is None:
            raise ProtocolFault(f"unknown grant {name!r}")
        return grant

    def _record(self, f: Fields) -> tuple[str, str, Source, Any, str]:
        """The catalog_insert fields in row order: source, provenance, schema, id,
        runtime_name, summary, tags.  Summary and tags are validated only: no reply shows them."""
        source = f.source("source")
        provenance = f.provenance("provenance")
        digest = schema_digest(f.value("schema"))
        explicit = f.optional("id", f.tool)
        runtime_name = f.optional("runtime_name", f.string)
        f.optional("summary", f.string)
        f.optional("tags", f.strings)
        tool = derived_id(source) if explicit is None else explicit
        return tool, digest, source, provenance, tool if runtime_name is None else runtime_name

    def _cataloged(self, reply: Reply, tool: str, info: RecordInfo | None) -> Reply:
        if reply["ok"] and info is not None:
            self.records[tool] = info
        present = self.observe()["records"]
        self.records = {t: i for t, i in self.records.items() if t in present}
        return reply

    # -- identities --------------------------------------------------------------------------
    def _op_hello(self, f: Fields) -> Reply:
        return {"ok": True, "protocol": 1}

    def _op_reset(self, f: Fields) -> Reply:
        self.reset()
        return {"ok": True}

    def _op_tool_id_parse(self, f: Fields) -> Reply:
        return {"ok": True, "id": f.tool("raw")}

    def _op_tool_id(self, f: Fields) -> Reply:
        return {"ok": True, "id": derived_id(f.source("source"))}

    def _op_session_id_parse(self, f: Fields) -> Reply:
        f.session("raw")
        return {"ok": True}

    def _op_digest(self, f: Fields) -> Reply:
        return {"ok": True, "digest": schema_digest(f.value("schema"))}

    def _op_carry_forward_enabled(self, f: Fields) -> Reply:
        return {"ok": True, "enabled": f.nullable_string("env") != "0"}

    # -- catalog -----------------------------------------------------------------------------
    def _op_catalog_insert(self, f: Fields) -> Reply:
        tool, digest, source, prov, runtime_name = self._record(f)
        reply = self._reply(self.oracle.catalog_insert(tool, digest, source, prov))
        return self._cataloged(reply, tool, RecordInfo(source, runtime_name))

    def _op_catalog_upsert(self, f: Fields) -> Reply:
        replaced = f.nullable_tool("replaced")
        tool, digest, source, prov, runtime_name = self._record(f)
        reply = self._reply(self.oracle.catalog_upsert(replaced, tool, digest, source, prov))
        return self._cataloged(reply, tool, RecordInfo(source, runtime_name))

    def _op_catalog_remove(self, f: Fields) -> Reply:
        tool = f.tool("id")
        return self._cataloged(self._reply(self.oracle.catalog_remove(tool)), tool, None)

    def _op_catalog_rebase_past(self, f: Fields) -> Reply:
        return self._reply(self.oracle.catalog_rebase_past(f.u64("prior")))

    def _op_catalog_set_generation(self, f: Fields) -> Reply:
        return self._reply(self.oracle.catalog_set_generation(f.u64("value")))

    def _op_catalog_state(self, f: Fields) -> Reply:
        obs = self.observe()
        records = [
            {
                "id": tool,
                "digest": rec["digest"],
                "source": source_reply(self.records[tool].source),
                "provenance": rec["provenance"].to_json(),
            }
            for tool, rec in sorted(obs["records"].items(), key=lambda kv: kv[0].encode())
        ]
        return {"ok": True, "generation": obs["generation"], "records": records}

    def _op_factory_calls(self, f: Fields) -> Reply:
        tool = f.tool("tool")
        return {"ok": True, "calls": self.observe()["factory_calls"].get(tool, 0)}

    # -- grants ------------------------------------------------------------------------------
    def _op_issue_grant(self, f: Fields) -> Reply:
        name, session, tool = f.string("name"), f.session("session"), f.tool("tool")
        code, payload = self.oracle.issue_grant(session, tool)
        if code != "ok":
            return self._reply((code, payload))
        grant: Grant = payload["grant"]
        self.grants[name] = grant
        return {"ok": True, "grant": grant_json(grant)}

    def _op_forge_grant(self, f: Fields) -> Reply:
        name, session = f.string("name"), f.grant_session("session")
        tool, generation, digest = f.tool("tool"), f.u64("generation"), f.string("digest")
        grant = Grant(session, tool, generation, digest)
        self.grants[name] = grant
        return {"ok": True, "grant": grant_json(grant)}

    # -- sets --------------------------------------------------------------------------------
    def _op_set_new(self, f: Fields) -> Reply:
        name, session, core = f.string("name"), f.session("session"), f.tools("core")
        return self._reply(self.oracle.set_new(name, session, core))

    def _op_set_default_core(self, f: Fields) -> Reply:
        name, session = f.string("name"), f.session("session")
        return self._reply(self.oracle.set_default_core(name, session))

    def _op_set_progressive_core(self, f: Fields) -> Reply:
        name, session = f.string("name"), f.session("session")
        return self._reply(self.oracle.set_progressive_core(name, session))

    def _op_activate(self, f: Fields) -> Reply:
        name = self._set(f)
        grant = self._grant(f.string("grant"))
        return self._reply(self.oracle.activate(name, grant))

    def _op_activate_many(self, f: Fields) -> Reply:
        name = self._set(f)
        grants = [self._grant(g) for g in f.strings("grants")]
        return self._reply(self.oracle.activate_many(name, grants))

    def _op_activate_user(self, f: Fields) -> Reply:
        name = self._set(f)
        return self._reply(self.oracle.activate_user(name, f.tool("tool")))

    def _op_activate_model(self, f: Fields) -> Reply:
        name = self._set(f)
        authority = f.string("authority")
        if authority not in AUTHORITIES:
            raise ProtocolFault(f"unknown authority {authority!r}")
        return self._reply(self.oracle.activate_model(name, authority, f.tools("tools")))

    def _op_revoke(self, f: Fields) -> Reply:
        name = self._set(f)
        return self._reply(self.oracle.revoke(name, f.tool("tool")))

    def _op_rebuild(self, f: Fields) -> Reply:
        name, into, progressive = self._set(f), f.string("into"), f.boolean("progressive")
        carry = f.optional("carry_forward", f.boolean)
        return self._reply(
            self.oracle.rebuild(name, into, progressive, True if carry is None else carry)
        )

    def _op_route(self, f: Fields) -> Reply:
        retained = f.nullable_string("set")
        if retained is not None and retained not in self.observe()["sets"]:
            raise ProtocolFault(f"unknown set {retained!r}")
        into, fallback = f.string("into"), f.session("fallback_session")
        return self._reply(self.oracle.route(retained, into, fallback))

    def _op_is_stale(self, f: Fields) -> Reply:
        return self._reply(self.oracle.is_stale(self._set(f)))

    def _op_snapshot(self, f: Fields) -> Reply:
        s = self.observe()["sets"][self._set(f)]
        order = lambda kv: kv[0].encode()  # noqa: E731 - ToolId order is byte order
        return {
            "ok": True,
            "session": s["session"],
            "catalog_generation": s["catalog_generation"],
            "schema_generation": s["schema_generation"],
            "core": [
                {"tool": t, "digest": p["digest"], "provenance": p["provenance"].to_json()}
                for t, p in sorted(s["core"].items(), key=order)
            ],
            "activated": [
                {
                    "tool": t,
                    "generation": a["generation"],
                    "digest": a["digest"],
                    "provenance": a["provenance"].to_json(),
                    "lease": "not_acquired",
                }
                for t, a in sorted(s["activated"].items(), key=order)
            ],
        }

    # -- the gate ----------------------------------------------------------------------------
    def _resolved(self, wire_name: str) -> tuple[str, alias.Live] | Reply:
        found = alias.resolve(self.live(), wire_name)
        if found is None:
            return {
                "ok": False,
                "error": "ToolAuthorizationError.UnknownTool",
                "wire_name": alias.bounded(wire_name),
            }
        return found

    def _op_resolve(self, f: Fields) -> Reply:
        wire_name = f.string("wire_name")
        found = self._resolved(wire_name)
        if isinstance(found, dict):
            return found
        _alias, entry = found
        return {
            "ok": True,
            "wire_name": alias.bounded(wire_name),
            "runtime_name": entry.runtime_name,
            "tool": entry.tool,
        }

    def _op_authorize(self, f: Fields) -> Reply:
        name, tool = self._set(f), f.tool("tool")
        f.optional("wire_name", f.string)
        return self._reply(self.oracle.authorize(name, tool))

    def _op_authorize_wire(self, f: Fields) -> Reply:
        name, wire_name = self._set(f), f.string("wire_name")
        found = self._resolved(wire_name)
        if isinstance(found, dict):
            return found
        return self._reply(self.oracle.authorize(name, found[1].tool))
