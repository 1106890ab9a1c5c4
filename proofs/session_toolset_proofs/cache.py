"""Z3 answers cached by the exact text of the query, for the spec author's edit loop.

Every check `prove` asks Z3 goes through `solve.answer`: a fresh solver, the assertions, fixed
seeds and an rlimit budget.  With a cache active (`session-toolset prove` turns one on unless
``--no-cache``), the answer is looked up under a key that is the SHA-256 of everything that
can change it:

* the query's exact SMT-LIB text as Z3 prints it (`z3.Solver.to_smt2`: every sort, datatype
  and symbol declaration and every assertion, side definitions and pins included), with its
  numbered names (fresh symbols ``k!12``, ``first!3``, ``let`` variables ``$x351``)
  renumbered in order of first appearance - the numbers depend on what the process built and
  solved before, the query's meaning does not;
* the Z3 version, the seeds and the rlimit budget;
* the terms whose model values the caller reads (a counterexample's trace), with their names;
* `FORMAT`, bumped whenever what is stored changes.

A stored ``sat`` or ``unsat`` is a fact about its query text (the same text, up to the
renaming, is the same logical question), so after an edit every query whose text changed
misses the cache and is solved again, and no changed query can read a stale ``proved``.
``unknown`` is stored too, so an unchanged run reproduces the run that filled the cache
answer for answer.  What a hit cannot reproduce is Z3's search: Z3's answer to a query can
depend on what its process solved before (docs/proofs.md), so a query solved again after an
edit may, within the same budget, end otherwise than in a run from scratch - an ``unknown``
where that run found an answer, or the reverse, never ``sat`` for ``unsat``.
``--no-cache`` always solves from scratch.

Entries are small JSON files, one per query, under ``<dir>/<key[:2]>/<key>.json``, written
atomically (forked proof jobs write side by side).  A file that cannot be read is a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import z3  # type: ignore[import-untyped]

FORMAT = 1
"""Bumped whenever the stored value or the key's contents change."""

_FRESH = re.compile(r"(?<![\w.!|:'$?])([A-Za-z_][\w.]*!|[$?]x)(\d+)(?![\w!])")
"""A numbered name: a fresh symbol ``prefix!N`` (`z3.FreshConst`, `z3_interp.fresh`) or a
``let`` variable ``$xN`` / ``?xN`` (numbered by Z3's term ids)."""


def default_dir() -> Path:
    """``$XDG_CACHE_HOME/session-toolset/prove`` (``~/.cache/...`` without it)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "session-toolset" / "prove"


@dataclass
class Cache:
    """A directory of answers (see the module docstring)."""

    root: Path

    def key(self, text: str, rlimit: int, seed: int, reads: dict[str, Any] | None) -> str:
        """The key of a query (see the module docstring)."""
        parts = (
            f"format {FORMAT}",
            f"z3 {z3.get_full_version()}",
            f"seed {seed}",
            f"rlimit {rlimit}",
            *(f"read {name} {term.sexpr()}" for name, term in sorted((reads or {}).items())),
            text,
        )
        names: dict[str, str] = {}

        def number(m: re.Match[str]) -> str:
            return names.setdefault(m.group(0), f"{m.group(1)}{len(names)}")

        whole = _FRESH.sub(number, "\0".join(parts))
        return hashlib.sha256(whole.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get_doc(self, key: str) -> Any:
        """The JSON document stored under ``key`` (None: none, or unreadable)."""
        try:
            return json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def get(self, key: str) -> tuple[str, dict[str, str]] | None:
        doc = self.get_doc(key)
        try:
            status, values = doc["status"], doc["values"]
        except (KeyError, TypeError):
            return None
        if status not in ("sat", "unsat", "unknown") or not isinstance(values, dict):
            return None
        return status, {str(k): str(v) for k, v in values.items()}

    def put(self, key: str, status: str, values: dict[str, str]) -> None:
        self.put_doc(key, {"status": status, "values": values})

    def put_doc(self, key: str, doc: Any) -> None:
        """Store the JSON document ``doc`` under ``key`` (atomically; errors ignored)."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(doc, out)
            os.replace(tmp, path)
        except OSError:  # a cache that cannot be written only costs time
            pass


def doc_key(*parts: str) -> str:
    """The key of a document that is not a Z3 answer (`search.Hint`)."""
    return hashlib.sha256("\0".join((f"format {FORMAT}", *parts)).encode()).hexdigest()


def usable(root: Path) -> str | None:
    """Why ``root`` cannot hold the cache (None when it can): checked before any proof runs."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=root, prefix=".probe-")
        os.close(fd)
        os.unlink(tmp)
    except OSError as err:
        return f"{root}: {err.strerror or err}"
    return None


ACTIVE: Cache | None = None
"""The cache `solve.answer` reads and writes (None: every check is solved).  Set before the
proof jobs fork, so every job process uses it."""


@dataclass
class Counts:
    """Checks of this process: solved by Z3, answered from the cache."""

    solved: int = 0
    reused: int = 0


COUNTS = Counts()
