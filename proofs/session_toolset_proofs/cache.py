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

import contextvars
import enum
import hashlib
import json
import os
import re
import sys
import tempfile
import types
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


PACKAGES = ("session_toolset_model", "session_toolset_proofs")
"""The packages whose code and data decide a check's result (the proofs import the model only)."""

_EPHEMERAL = {
    ("session_toolset_proofs.cache", "ACTIVE"),
    ("session_toolset_proofs.cache", "COUNTS"),
    ("session_toolset_proofs.report", "_WORK"),
    ("session_toolset_proofs.report", "_UNITS"),
}
"""Module globals that hold the state of a run, not code or data a result depends on."""


def code_key() -> str:
    """A digest of everything a check's result depends on besides its own name and variant:
    the bytes of every source file of `PACKAGES`, and the code and data as loaded in this
    process - every global of every loaded module of `PACKAGES`, functions by their bytecode,
    constants, names, defaults and closures, classes by their attributes, containers by their
    contents - so a function replaced or a constant changed after import (a test's monkeypatch)
    changes it as surely as an edited file; and the Z3 and Python versions.  Called in the
    parent of a run after its caches of built transitions and concrete results are emptied."""
    digest = hashlib.sha256(f"format {FORMAT}\0z3 {z3.get_full_version()}\0{sys.version}".encode())
    for package in PACKAGES:
        module = sys.modules.get(package)
        paths = getattr(module, "__path__", None) or []
        for base in paths:
            for path in sorted(Path(base).rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    digest.update(f"\0file {path.relative_to(base)}\0".encode())
                    digest.update(path.read_bytes())
    tokens = _Tokens()
    for name in sorted(sys.modules):
        if name.split(".")[0] not in PACKAGES:
            continue
        module = sys.modules[name]
        digest.update(f"\0module {name}".encode())
        for attr, value in sorted(vars(module).items()):
            if attr.startswith("__") or (name, attr) in _EPHEMERAL:
                continue
            digest.update(f"\0{attr}={tokens.of(value)}".encode())
    return digest.hexdigest()


def stable(value: Any) -> str:
    """``value`` as text that is the same in every process (see `code_key`)."""
    return _Tokens().of(value)


class _Tokens:
    """Stable text for a value (see `code_key`): no addresses, each object described once."""

    def __init__(self) -> None:
        self.seen: dict[int, str] = {}
        self.keep: list[Any] = []  # ids stay unique while the walk lasts

    def of(self, value: Any) -> str:
        if value is None or isinstance(value, bool | int | float | complex | str | bytes):
            return repr(value)
        known = self.seen.get(id(value))
        if known is not None:
            return known
        self.seen[id(value)] = f"<ref {len(self.seen)}>"  # a cycle reads as a back reference
        self.keep.append(value)
        text = self._walk(value)
        self.seen[id(value)] = text
        return text

    def _walk(self, value: Any) -> str:
        kind = type(value)
        if isinstance(value, types.ModuleType):
            return f"module {value.__name__}"
        if isinstance(value, list | tuple):
            return f"{kind.__name__}[" + ",".join(self.of(v) for v in value) + "]"
        if isinstance(value, set | frozenset):
            return f"{kind.__name__}{{" + ",".join(sorted(self.of(v) for v in value)) + "}"
        if isinstance(value, dict):
            items = sorted(f"{self.of(k)}:{self.of(v)}" for k, v in value.items())
            return f"{kind.__name__}{{" + ",".join(items) + "}"
        if isinstance(value, types.CodeType):
            consts = ",".join(self.of(c) for c in value.co_consts)
            return (
                f"code {value.co_qualname} {value.co_code.hex()} {value.co_names} "
                f"{value.co_varnames} {value.co_freevars} {value.co_cellvars} "
                f"{value.co_flags} {value.co_argcount} {value.co_kwonlyargcount} [{consts}]"
            )
        if isinstance(value, types.FunctionType):
            if not _ours(value.__module__):
                return f"function {value.__module__}.{value.__qualname__}"
            cells = [self.of(_cell(c)) for c in value.__closure__ or ()]
            return (
                f"function {value.__module__}.{value.__qualname__} {self.of(value.__code__)} "
                f"{self.of(value.__defaults__)} {self.of(value.__kwdefaults__)} {cells}"
            )
        if isinstance(value, types.MethodType):
            return f"method {self.of(value.__func__)} of {self.of(value.__self__)}"
        if isinstance(value, staticmethod | classmethod):
            return f"{kind.__name__} {self.of(value.__func__)}"
        if isinstance(value, property):
            return f"property {self.of(value.fget)} {self.of(value.fset)}"
        if hasattr(value, "__wrapped__") and callable(value):  # functools.cache and the like
            return f"wrapper {kind.__qualname__} {self.of(value.__wrapped__)}"
        if isinstance(value, type):
            name = f"class {value.__module__}.{value.__qualname__}"
            if not _ours(value.__module__):
                return name
            attrs = sorted(
                f"{k}={self.of(v)}" for k, v in vars(value).items() if k not in _CLASS_SKIP
            )
            bases = ",".join(self.of(b) for b in value.__bases__)
            return f"{name}({bases}){{" + ",".join(attrs) + "}"
        if isinstance(value, contextvars.ContextVar):
            return f"contextvar {value.name} = {self.of(value.get(None))}"
        if isinstance(value, enum.Enum):
            return f"enum {kind.__qualname__}.{value.name} {self.of(value.value)}"
        if _ours(kind.__module__):
            fields = getattr(value, "__dict__", None)
            names = [s for c in kind.__mro__ for s in getattr(c, "__slots__", ())]
            slots = {s: getattr(value, s, None) for s in names}
            return f"{self.of(kind)} {self.of(fields)} {self.of(slots)}"
        if isinstance(value, z3.AstRef | z3.SortRef | z3.FuncDeclRef):
            return f"{kind.__name__} {value.sexpr()}"
        return f"{kind.__module__}.{kind.__qualname__}"


_CLASS_SKIP = {"__dict__", "__weakref__", "__doc__", "__module__", "__slots__"}


def _ours(module: str | None) -> bool:
    return (module or "").split(".")[0] in PACKAGES


def _cell(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None
