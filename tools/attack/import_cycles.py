"""Import cycles among a package's modules (module-level imports, and all imports), from `ast`.

python tools/attack/import_cycles.py [PACKAGE_DIR...]   # default: the project's four packages

Exit status 0 when no package has a circle, 1 when one has, 2 for a directory that is not there.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def modname(root: Path, path: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def edges(root: Path, toplevel_only: bool) -> dict[str, set[str]]:
    mods = {modname(root, p): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        tree = ast.parse(p.read_text())
        is_pkg = p.name == "__init__.py"
        nodes: list[ast.AST] = list(tree.body) if toplevel_only else list(ast.walk(tree))
        for node in nodes:
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = m.split(".") if is_pkg else m.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                subs = [f"{mod}.{a.name}" for a in node.names]
                # `from pkg import submodule` needs the submodule, not a circle through pkg/__init__
                targets = [t for t in subs if t in mods] or [mod]
            for t in targets:
                if t in mods and t != m:
                    graph[m].add(t)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            strong(v)
    return out


PACKAGES = (
    "src/session_toolset",
    "src/session_toolset_harness",
    "model/session_toolset_model",
    "proofs/session_toolset_proofs",
)


def main(argv: list[str]) -> int:
    here = Path(__file__).resolve().parents[2]
    roots = [Path(a) for a in argv] or [here / p for p in PACKAGES]
    missing = [r for r in roots if not r.is_dir()]
    if missing:
        print(f"import_cycles: error: not a package directory: {missing[0]}", file=sys.stderr)
        return 2
    status = 0
    for root in roots:
        for label, top in (("module-level imports", True), ("all imports", False)):
            found = cycles(edges(root, top))
            print(f"{root.name}, {label}: {len(found)} circle(s)")
            for comp in found:
                print("   ", " <-> ".join(comp))
            status = status or int(bool(found))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
