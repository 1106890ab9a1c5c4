"""Counterexamples as PROTOCOL.md vectors (`prove --emit-vectors DIR`).

Every refutation found by `search` - a profile refuting an obligation, or a mutant refuting one -
holds a concrete trace from the initial state and a final action.  Here that trace becomes one
vector file: ``hello``, ``reset``, the trace as PROTOCOL.md requests (grants named and forged or
issued first), the final action, then observation steps (``snapshot`` of every set name of the
exploration domain, ``catalog_state``, ``factory_calls`` of every tool).  Every expectation is
the reply of the model's expected world (`session_toolset_model.world.World`, the one expected
side that explore and the golden vectors use too) under the DEFAULT profile: the reference
implementation (and any conforming one) passes the vector, and the variant that produced the
counterexample answers at least one step differently (`World` under that variant is the replay;
the tests check both).

Schemas: the abstract digest labels ``d0``/``d1`` of the exploration become the schemas
``{"type": "object", "x-v": 0}`` / ``{..., "x-v": 1}``, whose SPEC.md section 1.4 digests the
world computes; the label ``junk`` (matching no record) becomes the forged digest string ``"00"``.
This module never imports the implementation.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from session_toolset_model.concrete import Grant
from session_toolset_model.profiles import DEFAULT, DEFAULT_PROFILE, Variant
from session_toolset_model.world import World
from session_toolset_model.world.digest import schema_digest

from .explore import SET_NAMES, TOOLS, Action, source_of

__all__ = ["SCHEMAS", "World", "replay", "schema_digest", "vector", "vector_id", "write"]

SCHEMAS: dict[str, Any] = {"d0": {"type": "object", "x-v": 0}, "d1": {"type": "object", "x-v": 1}}
JUNK_DIGEST = "00"
"""The forged digest string of the label ``junk``: not a SHA-256 hex, so it matches no record."""

DIGESTS: dict[str, str] = {label: schema_digest(s) for label, s in SCHEMAS.items()}


def digest_hex(label: Any) -> str:
    return DIGESTS.get(label, JUNK_DIGEST)


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
    steps = [{"send": s, "expect": world.handle(s)} for s in sends]
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
        if not matches(step["expect"], world.handle(step["send"]))
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


def write(docs: Iterable[dict[str, Any]], directory: Path) -> list[Path]:
    """Write each vector as ``DIR/<obligation>--<variant>.json``; returns the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for doc in docs:
        path = directory / (doc["id"].split("/", 1)[1] + ".json")
        path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        out.append(path)
    return out
