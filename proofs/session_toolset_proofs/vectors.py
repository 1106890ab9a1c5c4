"""Counterexamples as PROTOCOL.md vectors (`prove --emit-vectors DIR`).

Every refutation found by `search` - a profile refuting an obligation, or a mutant refuting one -
holds a concrete trace from the initial state and a final action.  Here that trace becomes one
vector file: ``hello``, ``reset``, the trace as PROTOCOL.md requests (grants named and forged or
issued first), the final action, then observation steps (``snapshot`` of every set name of the
exploration domain, ``catalog_state``, ``factory_calls`` of every tool).  Every expectation is
the reply of the DEFAULT-profile concrete oracle: the reference implementation (and any
conforming one) passes the vector, and the variant that produced the counterexample answers at
least one step differently (`World` under that variant is the replay; the tests check both).

Schemas: the abstract digest labels ``d0``/``d1`` of the exploration become the schemas
``{"type": "object", "x-v": 0}`` / ``{..., "x-v": 1}``, whose SPEC.md section 1.4 digests are
computed here (`schema_digest`); the label ``junk`` (matching no record) becomes the forged digest
string ``"00"``.  This module never imports the implementation.
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from session_toolset_model.concrete import Grant
from session_toolset_model.oracle import Oracle, Reply
from session_toolset_model.profiles import DEFAULT, DEFAULT_PROFILE, Variant
from session_toolset_model.values import Provenance, Source

from .explore import JUNK, SET_NAMES, TOOLS, Action, source_of

SCHEMAS: dict[str, Any] = {"d0": {"type": "object", "x-v": 0}, "d1": {"type": "object", "x-v": 1}}
JUNK_DIGEST = "00"
"""The forged digest string of the label ``junk``: not a SHA-256 hex, so it matches no record."""


# -- SPEC.md section 1.4 for the JSON values used here (no floats) -------------------------------
def _frame(tag: int, payload: bytes, count: int | None = None) -> bytes:
    n = len(payload) if count is None else count
    return bytes([tag]) + struct.pack("<Q", n) + (payload if count is None else b"")


def _encode(v: Any) -> bytes:
    if v is None:
        return b"\x00"
    if isinstance(v, bool):
        return b"\x01" + (b"\x01" if v else b"\x00")
    if isinstance(v, int):
        return _frame(2, str(v).encode())
    if isinstance(v, str):
        return _frame(3, v.encode())
    if isinstance(v, list):
        return _frame(4, b"", len(v)) + b"".join(_encode(e) for e in v)
    if isinstance(v, dict):
        out = _frame(5, b"", len(v))
        for k in sorted(v, key=lambda key: key.encode()):
            out += _frame(6, k.encode()) + _encode(v[k])
        return out
    raise TypeError(f"no SPEC.md 1.4 encoding here for {type(v).__name__}")


def schema_digest(v: Any) -> str:
    """SPEC.md section 1.4 SchemaDigest of a JSON value made of null/bool/int/str/list/object."""
    return hashlib.sha256(_encode(v)).hexdigest()


DIGESTS: dict[str, str] = {label: schema_digest(s) for label, s in SCHEMAS.items()}


def digest_hex(label: Any) -> str:
    return DIGESTS.get(label, JUNK_DIGEST)


def digest_label(hex_digest: str) -> str:
    for label, h in DIGESTS.items():
        if h == hex_digest:
            return label
    return JUNK


def schema_label(schema: Any) -> str:
    for label, s in SCHEMAS.items():
        if s == schema:
            return label
    raise ValueError(f"not a schema of the exploration domain: {schema!r}")


_OWNER = {"extension": "extension_id", "mcp": "server_id", "plugin": "plugin_id"}
_TOOL_NAME = {"extension": "tool_name", "mcp": "server_tool_name", "plugin": "tool_name"}
_PROV_OWNER = {
    "extension_manifest": "extension_id",
    "mcp_config": "server_id",
    "plugin_config": "plugin_id",
}


def source_from_json(j: dict[str, Any]) -> Source:
    kind = j["kind"]
    if kind == "builtin":
        return Source("builtin", "", j.get("name", ""))
    if kind == "unknown":
        return Source("unknown", "", j["runtime_name"])
    return Source(kind, j[_OWNER[kind]], j[_TOOL_NAME[kind]])


def provenance_from_json(j: dict[str, Any]) -> Provenance:
    key = _PROV_OWNER.get(j["kind"])
    return Provenance(j["kind"], "" if key is None else j[key])


def grant_json(g: Grant) -> dict[str, Any]:
    return {
        "session": g.session,
        "tool": g.tool,
        "generation": g.gen,
        "digest": digest_hex(g.digest),
    }


def _plain(x: Any) -> Any:
    if isinstance(x, Grant):
        return grant_json(x)
    if isinstance(x, Provenance):
        return x.to_json()
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_plain(e) for e in x]
    return x


PROTOCOL_ERROR = {"ok": False, "error": "Protocol"}


class World:
    """PROTOCOL.md requests (of the ops the vectors use) answered by the concrete oracle of one
    variant.  Replies carry only what the oracle knows (never a ``message``)."""

    def __init__(self, variant: Variant = DEFAULT) -> None:
        self.oracle = Oracle(variant)
        self.grants: dict[str, Grant] = {}

    def reply(self, req: dict[str, Any]) -> dict[str, Any]:
        op = req["op"]
        o = self.oracle
        if op == "hello":
            return {"ok": True, "protocol": 1}
        if op == "reset":
            o.reset()
            self.grants.clear()
            return {"ok": True}
        if op in ("catalog_insert", "catalog_upsert"):
            label = schema_label(req["schema"])
            src = source_from_json(req["source"])
            prov = provenance_from_json(req["provenance"])
            if op == "catalog_insert":
                return self._wrap(o.catalog_insert(req["id"], label, src, prov))
            return self._wrap(o.catalog_upsert(req["replaced"], req["id"], label, src, prov))
        if op == "catalog_remove":
            return self._wrap(o.catalog_remove(req["id"]))
        if op == "catalog_rebase_past":
            return self._wrap(o.catalog_rebase_past(req["prior"]))
        if op == "catalog_state":
            return self._catalog_state()
        if op == "factory_calls":
            return {"ok": True, "calls": o.observe()["factory_calls"].get(req["tool"], 0)}
        if op == "issue_grant":
            code, payload = o.issue_grant(req["session"], req["tool"])
            if code == "ok":
                self.grants[req["name"]] = payload["grant"]
            return self._wrap((code, payload))
        if op == "forge_grant":
            g = Grant(req["session"], req["tool"], req["generation"], digest_label(req["digest"]))
            self.grants[req["name"]] = g
            return {"ok": True, "grant": {**grant_json(g), "digest": req["digest"]}}
        if op == "set_new":
            return self._wrap(o.set_new(req["name"], req["session"], req["core"]))
        if op == "set_default_core":
            return self._wrap(o.set_default_core(req["name"], req["session"]))
        if op == "set_progressive_core":
            return self._wrap(o.set_progressive_core(req["name"], req["session"]))
        if op == "snapshot":
            return self._snapshot(req["set"])
        if op in ("activate", "activate_many"):
            names = [req["grant"]] if op == "activate" else req["grants"]
            if any(n not in self.grants for n in names):
                return dict(PROTOCOL_ERROR)
            if op == "activate":
                return self._wrap(o.activate(req["set"], self.grants[req["grant"]]))
            return self._wrap(o.activate_many(req["set"], [self.grants[n] for n in names]))
        if op == "activate_user":
            return self._wrap(o.activate_user(req["set"], req["tool"]))
        if op == "activate_model":
            return self._wrap(o.activate_model(req["set"], req["authority"], req["tools"]))
        if op == "revoke":
            return self._wrap(o.revoke(req["set"], req["tool"]))
        if op == "rebuild":
            carry = req.get("carry_forward", True)
            return self._wrap(o.rebuild(req["set"], req["into"], req["progressive"], carry))
        if op == "route":
            return self._wrap(o.route(req["set"], req["into"], req["fallback_session"]))
        if op == "is_stale":
            return self._wrap(o.is_stale(req["set"]))
        if op == "authorize":
            return self._wrap(o.authorize(req["set"], req["tool"]))
        raise KeyError(f"op {op!r} is not used by model counterexample vectors")

    @staticmethod
    def _wrap(r: Reply) -> dict[str, Any]:
        code, payload = r
        if code == "ok":
            return {"ok": True, **_plain(payload)}
        return {"ok": False, "error": code, **_plain(payload)}

    def _catalog_state(self) -> dict[str, Any]:
        obs = self.oracle.observe()
        records = [
            {
                "id": t,
                "digest": digest_hex(r["digest"]),
                "source": _reply_source(source_of(t, r["provenance"], r["trust"]).to_json()),
                "provenance": r["provenance"].to_json(),
            }
            for t, r in sorted(obs["records"].items())
        ]
        return {"ok": True, "generation": obs["generation"], "records": records}

    def _snapshot(self, name: str) -> dict[str, Any]:
        s = self.oracle.observe()["sets"].get(name)
        if s is None:
            return dict(PROTOCOL_ERROR)
        return {
            "ok": True,
            "session": s["session"],
            "catalog_generation": s["catalog_generation"],
            "schema_generation": s["schema_generation"],
            "core": [
                {
                    "tool": t,
                    "digest": digest_hex(p["digest"]),
                    "provenance": p["provenance"].to_json(),
                }
                for t, p in sorted(s["core"].items())
            ],
            "activated": [
                {
                    "tool": t,
                    "generation": a["generation"],
                    "digest": digest_hex(a["digest"]),
                    "provenance": a["provenance"].to_json(),
                    "lease": "not_acquired",
                }
                for t, a in sorted(s["activated"].items())
            ],
        }


class _Namer:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return f"g{self.n}"


def _forge(g: Grant, name: str) -> dict[str, Any]:
    return {
        "op": "forge_grant",
        "name": name,
        "session": g.session,
        "tool": g.tool,
        "generation": g.gen,
        "digest": digest_hex(g.digest),
    }


def _record(op: str, a: dict[str, Any]) -> dict[str, Any]:
    req: dict[str, Any] = {"op": op}
    if op == "catalog_upsert":
        req["replaced"] = a["replaced"] if a["has_replaced"] else None
    req.update(
        {
            "id": a["tool"],
            "source": source_of(a["tool"], a["prov"], a["trust"]).to_json(),
            "provenance": a["prov"].to_json(),
            "schema": SCHEMAS[a["digest"]],
        }
    )
    return req


def requests(act: Action, name: _Namer) -> list[dict[str, Any]]:
    """The PROTOCOL.md requests performing one model action (grant setup first)."""
    op, a = act.op, act.kwargs
    if op in ("catalog_insert", "catalog_upsert"):
        return [_record(op, a)]
    if op == "catalog_remove":
        return [{"op": op, "id": a["tool"]}]
    if op == "catalog_rebase_past":
        return [{"op": op, "prior": a["prior"]}]
    if op == "set_new":
        return [{"op": op, "name": a["name"], "session": a["session"], "core": list(a["core_ids"])}]
    if op in ("set_default_core", "set_progressive_core"):
        return [{"op": op, "name": a["name"], "session": a["session"]}]
    if op == "is_stale":
        return [{"op": op, "set": a["name"]}]
    if op == "activate":
        g = name()
        return [_forge(a["grant"], g), {"op": op, "set": a["name"], "grant": g}]
    if op == "activate_many":
        names = [name() for _ in a["grants"]]
        forged = [_forge(g, n) for g, n in zip(a["grants"], names, strict=True)]
        return [*forged, {"op": op, "set": a["name"], "grants": names}]
    if op in ("revoke", "authorize", "activate_user"):
        return [{"op": op, "set": a["name"], "tool": a["tool"]}]
    if op == "rebuild":
        return [
            {
                "op": op,
                "set": a["name"],
                "into": a["into"],
                "progressive": a["progressive"],
                "carry_forward": a["carry_forward"],
            }
        ]
    if op == "issue_grant":
        return [{"op": op, "name": name(), "session": a["session"], "tool": a["tool"]}]
    if op == "activate_model":
        authority = "model_confirmed" if a["confirmed"] else "unauthorized"
        return [{"op": op, "set": a["name"], "authority": authority, "tools": list(a["tools"])}]
    if op == "route":
        return [
            {
                "op": op,
                "set": a["retained"] if a["has_retained"] else None,
                "into": a["into"],
                "fallback_session": a["fallback_session"],
            }
        ]
    raise KeyError(op)


def observations() -> list[dict[str, Any]]:
    """What the vector looks at after the final action: every set name, the catalog, and the
    factory counter of every tool of the domain."""
    return [
        *({"op": "snapshot", "set": n} for n in SET_NAMES),
        {"op": "catalog_state"},
        *({"op": "factory_calls", "tool": t} for t in TOOLS),
    ]


def variant_label(v: Variant) -> str:
    return v.mutant if v.mutant is not None else v.profile


def vector_id(obligation: str, v: Variant) -> str:
    """The id of the vector of a counterexample (``--emit-vectors`` names the file after it)."""
    return f"model-cex/{obligation}--{variant_label(v)}"


def vector(
    obligation: str, v: Variant, trace: Iterable[Action], final: Action | None
) -> dict[str, Any]:
    """The vector of one counterexample: expectations from the default-profile oracle."""
    name = _Namer()
    sends: list[dict[str, Any]] = [{"op": "hello"}, {"op": "reset"}]
    for act in [*trace, *([final] if final is not None else [])]:
        sends.extend(requests(act, name))
    sends.extend(observations())
    world = World(DEFAULT)
    steps = [{"send": s, "expect": world.reply(s)} for s in sends]
    label = variant_label(v)
    what = f"mutant {v.mutant}" if v.mutant is not None else f"profile {v.profile}"
    final_op = final.op if final is not None else "none"
    return {
        "protocol": 1,
        "id": vector_id(obligation, v),
        "description": (
            f"Counterexample to the model obligation {obligation} under the {what}, found by "
            f"`session-toolset prove` and replayed from the initial state; final operation "
            f"{final_op}. Every expectation is the {DEFAULT_PROFILE} (SPEC.md) answer: the "
            f"{label} variant answers at least one step differently."
        ),
        "tags": [
            "model-cex",
            f"obligation:{obligation}",
            f"mutant:{v.mutant}" if v.mutant is not None else f"profile:{v.profile}",
            f"op:{final_op}",
        ],
        "steps": steps,
    }


def replay(doc: dict[str, Any], v: Variant) -> list[int]:
    """Indices of the steps whose expectation the oracle of ``v`` does not meet."""
    world = World(v)
    return [
        i
        for i, step in enumerate(doc["steps"])
        if not matches(step["expect"], world.reply(step["send"]))
    ]


def matches(expect: Any, actual: Any) -> bool:
    """PROTOCOL.md's subset rule: objects by subset, lists same length and order, scalars equal
    and of the same JSON type."""
    if isinstance(expect, dict):
        return isinstance(actual, dict) and all(
            k in actual and matches(e, actual[k]) for k, e in expect.items()
        )
    if isinstance(expect, list):
        return (
            isinstance(actual, list)
            and len(expect) == len(actual)
            and all(matches(e, a) for e, a in zip(expect, actual, strict=True))
        )
    return type(expect) is type(actual) and bool(expect == actual)


def _reply_source(source: dict[str, str]) -> dict[str, str]:
    """PROTOCOL.md: "in replies a builtin source is {"kind":"builtin"} (the record stores no
    name)"."""
    return {"kind": "builtin"} if source["kind"] == "builtin" else source


def write(docs: Iterable[dict[str, Any]], directory: Path) -> list[Path]:
    """Write each vector as ``DIR/<obligation>--<variant>.json``; returns the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for doc in docs:
        path = directory / (doc["id"].split("/", 1)[1] + ".json")
        path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        out.append(path)
    return out
