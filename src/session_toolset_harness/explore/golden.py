"""Model-generated golden vectors: the oracle enumerated exhaustively over a small scope, frozen
as conformance vectors in ``vectors/model/``.

    python -m session_toolset_harness.explore.golden build [--out DIR]   # (re)write the files
    python -m session_toolset_harness.explore.golden check [--out DIR]   # exit 1 if they differ

Scope: 2 sessions, 3 tools (one in the progressive core), 2 digests, 2 flavors (source and
provenance) per tool, and the fixed alphabet `ALPHABET` of concrete requests over set names
A/B and grant names g1/g2.  A breadth-first search to `DEPTH` expands every distinct world (the
oracle state plus named grants and record sources; `Protocol` replies are not expanded), keeping
the shortest sequence to each.  Every (operation, outcome) pair first reached by some sequence is
a target; a greedy set cover then keeps the fewest shortest sequences that together reach every
target.  Each becomes one vector: the sequence, then the observable state (``catalog_state``,
``snapshot`` of each set, ``factory_calls`` of each tool).  Expectations come from the model
package's expected world (`session_toolset_model.world`); digest fields are omitted (the digest
vectors own digest values), so vectors match on codes, ids, generations, provenances, sources,
``applied``, ``dropped``, ``stale`` and ``basis``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from session_toolset_model.world import World

from . import pools

Reply = dict[str, Any]
DEPTH = 4
MAX = pools.MAX_GENERATION
GOLDEN_TOOLS = ("builtin:read", "ext.acme:lint", "mcp.srv:query")
GOLDEN_SCHEMAS = pools.SCHEMAS[:2]


def _record(tool: str, flavor: int, schema: int) -> Reply:
    f = pools.TOOL_BY_ID[tool].flavors[flavor]
    return {
        "source": f.source.to_json(),
        "provenance": f.provenance.to_json(),
        "id": tool,
        "schema": GOLDEN_SCHEMAS[schema],
    }


def _alphabet() -> list[Reply]:
    ops: list[Reply] = []
    for tool in GOLDEN_TOOLS:
        ops += [{"op": "catalog_insert", **_record(tool, f, 0)} for f in (0, 1)]
        ops.append({"op": "catalog_upsert", "replaced": tool, **_record(tool, 0, 1)})
        ops.append({"op": "catalog_remove", "id": tool})
        ops.append({"op": "issue_grant", "name": "g1", "session": "s1", "tool": tool})
        ops.append({"op": "activate_user", "set": "A", "tool": tool})
        ops.append({"op": "revoke", "set": "A", "tool": tool})
        ops.append({"op": "authorize", "set": "A", "tool": tool})
    ops += [
        {"op": "catalog_upsert", "replaced": "builtin:read", **_record("ext.acme:lint", 0, 0)},
        {"op": "catalog_set_generation", "value": 1},
        {"op": "catalog_set_generation", "value": MAX},
        {"op": "catalog_rebase_past", "prior": 0},
        {"op": "catalog_rebase_past", "prior": MAX},
        {"op": "set_progressive_core", "name": "A", "session": "s1"},
        {"op": "set_default_core", "name": "A", "session": "s1"},
        {"op": "set_new", "name": "B", "session": "s2", "core": ["builtin:read"]},
        {"op": "issue_grant", "name": "g2", "session": "s2", "tool": "ext.acme:lint"},
        {"op": "activate", "set": "A", "grant": "g1"},
        {"op": "activate", "set": "B", "grant": "g2"},
        {"op": "activate_many", "set": "A", "grants": ["g1", "g2"]},
        {"op": "activate_many", "set": "A", "grants": ["g1", "g1"]},
        {
            "op": "activate_model",
            "set": "A",
            "authority": "model_confirmed",
            "tools": ["ext.acme:lint", "mcp.srv:query"],
        },
        {
            "op": "activate_model",
            "set": "A",
            "authority": "unauthorized",
            "tools": ["ext.acme:lint"],
        },
        {"op": "rebuild", "set": "A", "into": "A", "progressive": True},
        {"op": "rebuild", "set": "A", "into": "B", "progressive": True, "carry_forward": False},
        {"op": "route", "set": "A", "into": "B", "fallback_session": "s2"},
        {"op": "route", "set": None, "into": "B", "fallback_session": "s2"},
        {"op": "is_stale", "set": "A"},
    ]
    return ops


ALPHABET = _alphabet()


def _outcome(reply: Reply) -> str:
    return "ok" if reply["ok"] else str(reply["error"])


def enumerate_targets(depth: int = DEPTH) -> dict[tuple[str, str], tuple[int, ...]]:
    """(op, outcome) → the first (shortest) alphabet-index sequence that ends reaching it."""
    world = World()
    frontier: list[tuple[tuple[int, ...], Any]] = [((), world.save())]
    seen = {world.key()}
    first: dict[tuple[str, str], tuple[int, ...]] = {}
    for _level in range(depth):
        nxt = []
        for path, snap in frontier:
            for index, request in enumerate(ALPHABET):
                world.restore(snap)
                reply = world.handle(request)
                code = _outcome(reply)
                if code == "Protocol":
                    continue
                first.setdefault((request["op"], code), (*path, index))
                key = world.key()
                if key not in seen:
                    seen.add(key)
                    nxt.append(((*path, index), world.save()))
        frontier = nxt
    return first


def _pairs_along(path: tuple[int, ...]) -> set[tuple[str, str]]:
    world = World()
    return {(ALPHABET[i]["op"], _outcome(world.handle(ALPHABET[i]))) for i in path}


def choose(first: dict[tuple[str, str], tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Greedy set cover: repeatedly the sequence reaching most uncovered targets (shorter and
    then lexicographically smaller sequences first on ties), until every target is covered."""
    candidates = sorted(set(first.values()), key=lambda p: (len(p), p))
    covers = {p: _pairs_along(p) & set(first) for p in candidates}
    uncovered = set(first)
    chosen: list[tuple[int, ...]] = []
    while uncovered:
        best = max(candidates, key=lambda p: (len(covers[p] & uncovered), -len(p)))
        chosen.append(best)
        uncovered -= covers[best]
    return chosen


def _strip_digests(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_digests(v) for k, v in value.items() if k != "digest"}
    if isinstance(value, list):
        return [_strip_digests(v) for v in value]
    return value


def vector_for(number: int, path: tuple[int, ...]) -> dict[str, Any]:
    world = World()
    steps: list[dict[str, Any]] = [
        {"send": {"op": "hello"}, "expect": {"ok": True, "protocol": 1}},
        {"send": {"op": "reset"}, "expect": {"ok": True}},
    ]
    reached = []
    for i in path:
        request = ALPHABET[i]
        reply = world.handle(request)
        reached.append(f"{request['op']}:{_outcome(reply)}")
        steps.append({"send": request, "expect": _strip_digests(reply)})
    observe: list[Reply] = [{"op": "catalog_state"}]
    observe += [{"op": "snapshot", "set": n} for n in world.set_names()]
    observe += [{"op": "factory_calls", "tool": t} for t in GOLDEN_TOOLS]
    steps += [{"send": r, "expect": _strip_digests(world.handle(r))} for r in observe]
    return {
        "protocol": 1,
        "id": f"model/model-{number:03d}",
        "description": "Generated from the model's oracle by `python -m "
        "session_toolset_harness.explore.golden build` (exhaustive small-scope search, greedy "
        "cover of (operation, outcome) pairs; digest fields omitted). Reaches: "
        + ", ".join(reached),
        "tags": ["model", "generated"],
        "steps": steps,
    }


def build_vectors(depth: int = DEPTH) -> dict[str, str]:
    """File name → file text of every golden vector."""
    chosen = choose(enumerate_targets(depth))
    files = {}
    for number, path in enumerate(sorted(chosen, key=lambda p: (len(p), p)), 1):
        text = json.dumps(vector_for(number, path), indent=1, ensure_ascii=False) + "\n"
        files[f"model-{number:03d}.json"] = text
    return files


def default_dir() -> Path:
    return Path(str(resources.files("session_toolset_harness").joinpath("vectors/model")))


def _existing(directory: Path) -> Iterator[Path]:
    return iter(sorted(directory.glob("*.json"))) if directory.is_dir() else iter(())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m session_toolset_harness.explore.golden")
    parser.add_argument("command", choices=["build", "check"])
    parser.add_argument("--out", type=Path, default=None, help="vector directory")
    args = parser.parse_args(argv)
    directory = args.out or default_dir()
    files = build_vectors()
    if args.command == "build":
        directory.mkdir(parents=True, exist_ok=True)
        for stale in _existing(directory):
            if stale.name not in files:
                stale.unlink()
        for name, text in files.items():
            (directory / name).write_text(text, encoding="utf-8")
        print(f"wrote {len(files)} vectors to {directory}")
        return 0
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in _existing(directory)}
    differing = sorted(n for n in set(files) | set(on_disk) if files.get(n) != on_disk.get(n))
    for name in differing:
        print(f"differs: {name}", file=sys.stderr)
    if not differing:
        print(f"{len(files)} golden vectors up to date in {directory}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
