"""Rendering the corpus to files, deterministically, and checking files against the builder."""

from __future__ import annotations

import json
from pathlib import Path

from session_toolset_harness.corpus import derived
from session_toolset_harness.corpus.dsl import Vector
from session_toolset_harness.corpus.groups import (
    activate,
    batch,
    catalog,
    digest,
    edges,
    fields,
    gate,
    host,
    identity,
    invariants,
    lifecycle,
    lines,
    protocol,
    resolve,
    sets,
)

#: The packaged corpus directory (the runner's default ``--vectors``).
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "vectors"

#: Directories under the corpus that this builder does not own: ``original`` is recorded from
#: the original implementation, ``model-cex`` holds the proofs' counterexamples, written by
#: ``session-toolset prove --all-profiles --emit-vectors`` (checked by
#: ``tests/proofs/test_vectors.py``), and ``hazards`` the hazards' traces, written by
#: ``session-toolset prove --hazards --emit-hazard-vectors`` (checked by
#: ``tests/proofs/test_hazards.py``).
FOREIGN_DIRS = frozenset({"original", "model-cex", "hazards"})

_MODULES = (
    protocol,
    lines,
    fields,
    identity,
    digest,
    edges,
    catalog,
    sets,
    activate,
    batch,
    host,
    lifecycle,
    gate,
    resolve,
    invariants,
)


def all_vectors() -> list[Vector]:
    """Every vector of the corpus, in a stable order; ids are unique."""
    found: list[Vector] = []
    for module in _MODULES:
        found.extend(module.vectors())
    ids = [v.id for v in found]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate vector ids: {duplicates}")
    for vector in found:
        if vector.group in FOREIGN_DIRS or vector.group in derived.GROUPS:
            raise ValueError(f"{vector.id}: group {vector.group!r} is reserved")
    return found


def render(vector: Vector) -> str:
    """The exact file text of one vector: ASCII JSON, one-space indent, trailing newline."""
    return json.dumps(vector.to_json(), indent=1, ensure_ascii=True) + "\n"


def expected_files() -> dict[Path, str]:
    """Relative path → file text for every generated vector."""
    files = {Path(v.group) / f"{v.name}.json": render(v) for v in all_vectors()}
    return {**files, **derived.files()}  # the model's and the edge families' vectors


def _owned_files(out: Path) -> set[Path]:
    """Generated-looking files currently on disk (relative), outside the foreign directories."""
    if not out.is_dir():
        return set()
    return {
        p.relative_to(out)
        for p in out.rglob("*.json")
        if p.relative_to(out).parts[0] not in FOREIGN_DIRS and len(p.relative_to(out).parts) > 1
    }


def write(out: Path = DEFAULT_OUT) -> list[Path]:
    """(Re)write every vector under ``out``; delete stale generated files. Returns written paths."""
    files = expected_files()
    for stale in sorted(_owned_files(out) - set(files)):
        (out / stale).unlink()
    written: list[Path] = []
    for relative, text in sorted(files.items()):
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        written.append(target)
    return written


def check(out: Path = DEFAULT_OUT) -> list[str]:
    """Differences between ``out`` and the builder's output; empty when they agree."""
    files = expected_files()
    problems: list[str] = []
    for relative, text in sorted(files.items()):
        target = out / relative
        if not target.exists():
            problems.append(f"missing: {relative}")
        elif target.read_text(encoding="utf-8") != text:
            problems.append(f"differs from the builder: {relative}")
    for extra in sorted(_owned_files(out) - set(files)):
        problems.append(f"not produced by the builder: {extra}")
    return problems
