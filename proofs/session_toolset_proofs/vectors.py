"""Counterexamples as PROTOCOL.md vectors (`prove --emit-vectors DIR`).

Every refutation found by `search` - a profile refuting an obligation, or a mutant refuting one -
holds a concrete trace from the initial state and a final action.  Here that trace becomes one
vector file: ``hello``, ``reset``, the trace as PROTOCOL.md requests (grants named and forged or
issued first), the final action, then observation steps (``snapshot`` of every set name of the
exploration domain, ``catalog_state``, ``factory_calls`` of every tool).  Every expectation is
the reply of the model's expected world (`session_toolset_model.world.World`, the one expected
side that explore and the model vectors use too) under the DEFAULT profile: the reference
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

from session_toolset_model.enumerate import Action, trace_requests
from session_toolset_model.profiles import DEFAULT, DEFAULT_PROFILE, Variant
from session_toolset_model.world import World

__all__ = ["World", "replay", "vector", "vector_id", "write"]


def variant_label(v: Variant) -> str:
    return v.label if v.label is not None else v.profile


def vector_id(obligation: str, v: Variant) -> str:
    """The id of the vector of a counterexample (``--emit-vectors`` names the file after it)."""
    return f"model-cex/{obligation}--{variant_label(v)}"


def vector(
    obligation: str, v: Variant, trace: Iterable[Action], final: Action | None
) -> dict[str, Any]:
    """The vector of one counterexample: expectations from the default-profile oracle."""
    actions = [*trace, *([final] if final is not None else [])]
    sends = [{"op": "hello"}, {"op": "reset"}, *trace_requests(actions, observe=True)]
    world = World(DEFAULT)
    steps = [{"send": s, "expect": world.handle(s)} for s in sends]
    label = variant_label(v)
    what = f"mutant {v.label}" if v.label is not None else f"profile {v.profile}"
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
            f"mutant:{v.label}" if v.label is not None else f"profile:{v.profile}",
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
