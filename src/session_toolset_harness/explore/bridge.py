"""The expected side: PROTOCOL.md requests answered from the model's oracle.

`ExpectedWorld.handle(request)` returns the reply a conforming adapter must give, without the
``message`` text (never compared).  What the model covers comes from `Oracle`; what it leaves out
is supplied here, by construction rather than by asking the implementation:

* identities: fields are looked up in the pools of `pools` (valid ids, sessions, and hostile
  texts with the SPEC.md §1.1-1.2 error derived by hand); a text in neither is out of scope;
* digests: each pooled schema's digest *label* is the hex the system under test returned for
  the ``digest`` op at the start of the run.  The oracle only compares labels, so a wrong but
  consistent digest function cannot fail exploration; the digest vectors (shared
  ``digest.json``) are what check digest values;
* sources: the oracle keeps a record's source trust only, so the source each record was
  cataloged with is kept in a side table for ``catalog_state``;
* named grants: grant names are protocol bookkeeping, kept here.

Requests outside the explorer's scope (unpooled texts, several hostile fields at once) raise
`OutOfScope`: the machine never generates them, and a hand-written vector that does is refused
rather than answered with a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from session_toolset_model.concrete import Grant
from session_toolset_model.oracle import Oracle
from session_toolset_model.values import Provenance, Source

from . import pools

Reply = dict[str, Any]


class OutOfScope(Exception):
    """The request cannot be answered from the model and the pools."""


class _FieldError(Exception):
    def __init__(self, code: str, payload: dict[str, Any]) -> None:
        super().__init__(code)
        self.code = code
        self.payload = payload


def _protocol() -> Reply:
    return {"ok": False, "error": "Protocol"}


def _tool(raw: Any) -> str:
    if raw in pools.TOOL_BY_ID:
        return str(raw)
    if isinstance(raw, str) and raw in pools.HOSTILE_TOOL_IDS:
        code, payload = pools.HOSTILE_TOOL_IDS[raw]
        raise _FieldError(code, dict(payload))
    raise OutOfScope(f"tool id {raw!r} is not pooled")


def _session(raw: Any, *, grant: bool = False) -> str:
    if raw in pools.SESSIONS:
        return str(raw)
    if isinstance(raw, str) and raw in pools.HOSTILE_SESSIONS:
        code, payload = (pools.grant_session_error if grant else pools.session_error)(raw)
        raise _FieldError(code, payload)
    raise OutOfScope(f"session {raw!r} is not pooled")


def grant_json(g: Grant) -> Reply:
    return {"session": g.session, "tool": g.tool, "generation": g.gen, "digest": g.digest}


class ExpectedWorld:
    """One expected world: the oracle plus the protocol bookkeeping the model leaves out."""

    def __init__(self, digests: Mapping[str, str]) -> None:
        """``digests``: `pools.schema_key(schema)` → digest label (hex from the SUT)."""
        self.digests = dict(digests)
        self.oracle = Oracle()
        self.grants: dict[str, Grant] = {}
        self.sources: dict[str, Source] = {}
        self._seen: object = None
        self._observed: dict[str, Any] = {}
        self._ops: dict[str, Callable[[Mapping[str, Any]], Reply]] = {
            name[4:]: getattr(self, name) for name in dir(self) if name.startswith("_op_")
        }

    def reset(self) -> None:
        self.oracle.reset()
        self.grants.clear()
        self.sources.clear()

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

    def handle(self, req: Mapping[str, Any]) -> Reply:
        """The expected reply (``ok`` + fields, or ``error`` + payload) to one request."""
        op = self._ops.get(req.get("op", ""))
        if op is None:
            raise OutOfScope(f"op {req.get('op')!r} is outside the model")
        try:
            return op(req)
        except _FieldError as err:
            return {"ok": False, "error": err.code, **err.payload}
        except KeyError as err:
            raise OutOfScope(f"request field missing: {err}") from None

    # -- helpers ---------------------------------------------------------------------------
    @staticmethod
    def _reply(result: tuple[str, dict[str, Any]]) -> Reply:
        code, payload = result
        if code == "ok":
            return {"ok": True, **payload}
        if code == "Protocol":
            return _protocol()
        return {"ok": False, "error": code, **payload}

    def _label(self, schema: Any) -> str:
        key = pools.schema_key(schema)
        if key not in self.digests:
            raise OutOfScope("schema is not pooled")
        return self.digests[key]

    def _record_fields(self, req: Mapping[str, Any]) -> tuple[str, str, Source, Provenance]:
        source = pools.source_from_json(req["source"])
        prov = pools.provenance_from_json(req["provenance"])
        label = self._label(req["schema"])
        raw_id = req.get("id")
        tool = pools.derived_id(source) if raw_id is None else _tool(raw_id)
        return tool, label, source, prov

    def _catalog_changed(self, reply: Reply, tool: str | None, source: Source | None) -> Reply:
        if reply["ok"] and tool is not None and source is not None:
            self.sources[tool] = source
        present = self.observe()["records"]
        self.sources = {t: s for t, s in self.sources.items() if t in present}
        return reply

    def _has_set(self, name: Any) -> bool:
        return isinstance(name, str) and name in self.observe()["sets"]

    # -- ops -------------------------------------------------------------------------------
    def _op_hello(self, req: Mapping[str, Any]) -> Reply:
        return {"ok": True, "protocol": 1}

    def _op_reset(self, req: Mapping[str, Any]) -> Reply:
        self.reset()
        return {"ok": True}

    def _op_digest(self, req: Mapping[str, Any]) -> Reply:
        return {"ok": True, "digest": self._label(req["schema"])}

    def _op_catalog_insert(self, req: Mapping[str, Any]) -> Reply:
        tool, label, source, prov = self._record_fields(req)
        reply = self._reply(self.oracle.catalog_insert(tool, label, source, prov))
        return self._catalog_changed(reply, tool, source)

    def _op_catalog_upsert(self, req: Mapping[str, Any]) -> Reply:
        replaced = None if req["replaced"] is None else _tool(req["replaced"])
        tool, label, source, prov = self._record_fields(req)
        reply = self._reply(self.oracle.catalog_upsert(replaced, tool, label, source, prov))
        return self._catalog_changed(reply, tool, source)

    def _op_catalog_remove(self, req: Mapping[str, Any]) -> Reply:
        reply = self._reply(self.oracle.catalog_remove(_tool(req["id"])))
        return self._catalog_changed(reply, None, None)

    def _op_catalog_rebase_past(self, req: Mapping[str, Any]) -> Reply:
        return self._reply(self.oracle.catalog_rebase_past(int(req["prior"])))

    def _op_catalog_set_generation(self, req: Mapping[str, Any]) -> Reply:
        return self._reply(self.oracle.catalog_set_generation(int(req["value"])))

    def _op_catalog_state(self, req: Mapping[str, Any]) -> Reply:
        obs = self.observe()
        records = [
            {
                "id": tool,
                "digest": rec["digest"],
                "source": pools.source_reply(self.sources[tool]),
                "provenance": rec["provenance"].to_json(),
            }
            for tool, rec in sorted(obs["records"].items())
        ]
        return {"ok": True, "generation": obs["generation"], "records": records}

    def _op_factory_calls(self, req: Mapping[str, Any]) -> Reply:
        tool = _tool(req["tool"])
        return {"ok": True, "calls": self.observe()["factory_calls"].get(tool, 0)}

    def _op_issue_grant(self, req: Mapping[str, Any]) -> Reply:
        name = str(req["name"])
        session, tool = _session(req["session"]), _tool(req["tool"])
        code, payload = self.oracle.issue_grant(session, tool)
        if code != "ok":
            return self._reply((code, payload))
        grant: Grant = payload["grant"]
        self.grants[name] = grant
        return {"ok": True, "grant": grant_json(grant)}

    def _op_forge_grant(self, req: Mapping[str, Any]) -> Reply:
        name = str(req["name"])
        session, tool = _session(req["session"], grant=True), _tool(req["tool"])
        grant = Grant(session, tool, int(req["generation"]), str(req["digest"]))
        self.grants[name] = grant
        return {"ok": True, "grant": grant_json(grant)}

    def _op_set_new(self, req: Mapping[str, Any]) -> Reply:
        name, session = str(req["name"]), _session(req["session"])
        core = [_tool(t) for t in req["core"]]
        return self._reply(self.oracle.set_new(name, session, core))

    def _op_set_default_core(self, req: Mapping[str, Any]) -> Reply:
        name, session = str(req["name"]), _session(req["session"])
        return self._reply(self.oracle.set_default_core(name, session))

    def _op_set_progressive_core(self, req: Mapping[str, Any]) -> Reply:
        name, session = str(req["name"]), _session(req["session"])
        return self._reply(self.oracle.set_progressive_core(name, session))

    def _op_activate(self, req: Mapping[str, Any]) -> Reply:
        grant = self.grants.get(req["grant"])
        if not self._has_set(req["set"]) or grant is None:
            return _protocol()
        return self._reply(self.oracle.activate(req["set"], grant))

    def _op_activate_many(self, req: Mapping[str, Any]) -> Reply:
        grants = [self.grants.get(n) for n in req["grants"]]
        if not self._has_set(req["set"]) or any(g is None for g in grants):
            return _protocol()
        return self._reply(
            self.oracle.activate_many(req["set"], [g for g in grants if g is not None])
        )

    def _op_activate_user(self, req: Mapping[str, Any]) -> Reply:
        if not self._has_set(req["set"]):
            return _protocol()
        return self._reply(self.oracle.activate_user(req["set"], _tool(req["tool"])))

    def _op_activate_model(self, req: Mapping[str, Any]) -> Reply:
        if not self._has_set(req["set"]) or req["authority"] not in (
            "model_confirmed",
            "unauthorized",
        ):
            return _protocol()
        tools = [_tool(t) for t in req["tools"]]
        return self._reply(self.oracle.activate_model(req["set"], req["authority"], tools))

    def _op_revoke(self, req: Mapping[str, Any]) -> Reply:
        if not self._has_set(req["set"]):
            return _protocol()
        return self._reply(self.oracle.revoke(req["set"], _tool(req["tool"])))

    def _op_rebuild(self, req: Mapping[str, Any]) -> Reply:
        if not self._has_set(req["set"]):
            return _protocol()
        carry = bool(req.get("carry_forward", True))
        return self._reply(
            self.oracle.rebuild(req["set"], str(req["into"]), bool(req["progressive"]), carry)
        )

    def _op_route(self, req: Mapping[str, Any]) -> Reply:
        name = req["set"]
        if name is not None and not self._has_set(name):
            return _protocol()
        fallback = _session(req["fallback_session"])
        return self._reply(self.oracle.route(name, str(req["into"]), fallback))

    def _op_is_stale(self, req: Mapping[str, Any]) -> Reply:
        if not self._has_set(req["set"]):
            return _protocol()
        return self._reply(self.oracle.is_stale(req["set"]))

    def _op_snapshot(self, req: Mapping[str, Any]) -> Reply:
        if not self._has_set(req["set"]):
            return _protocol()
        s = self.observe()["sets"][req["set"]]
        return {
            "ok": True,
            "session": s["session"],
            "catalog_generation": s["catalog_generation"],
            "schema_generation": s["schema_generation"],
            "core": [
                {"tool": t, "digest": p["digest"], "provenance": p["provenance"].to_json()}
                for t, p in s["core"].items()
            ],
            "activated": [
                {
                    "tool": t,
                    "generation": a["generation"],
                    "digest": a["digest"],
                    "provenance": a["provenance"].to_json(),
                    "lease": "not_acquired",
                }
                for t, a in s["activated"].items()
            ],
        }

    def _op_authorize_wire(self, req: Mapping[str, Any]) -> Reply:
        """Only for pooled wire names that resolve to nothing (resolution is outside the model)."""
        if not self._has_set(req["set"]):
            return _protocol()
        wire = req["wire_name"]
        if wire not in pools.UNMATCHED_WIRE_NAMES:
            raise OutOfScope("wire name is not pooled")
        bounded = pools.UNMATCHED_WIRE_NAMES[wire]
        return {"ok": False, "error": "ToolAuthorizationError.UnknownTool", "wire_name": bounded}

    def _op_authorize(self, req: Mapping[str, Any]) -> Reply:
        if not self._has_set(req["set"]):
            return _protocol()
        return self._reply(self.oracle.authorize(req["set"], _tool(req["tool"])))
