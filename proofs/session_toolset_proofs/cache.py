"""Z3 answers cached by the exact text of the query, and checks by the functions they ran, for
the spec author's edit loop.

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

Above the answers, a check's rows are kept whole (`report`): under a key of the check and
`context_key` (what runs at import, the data as loaded, the Z3 and Python versions), with the
digest of every function that ran to compute them (`Tracer`, `Deps`).  A run reads the rows
only if every one of those functions is unchanged, so a one-rule edit runs again just the
checks that ran the rule, and those ask Z3 through the answers above.

Entries are small JSON files, one per query or check, under ``<dir>/<key[:2]>/<key>.json``,
written atomically (forked proof jobs and concurrent runs write side by side).  A file that
cannot be read, or holds the wrong shape, is a miss.
"""

from __future__ import annotations

import ast
import contextvars
import dataclasses
import enum
import functools
import hashlib
import json
import linecache
import os
import re
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import z3  # type: ignore[import-untyped]

FORMAT = 2
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
    ("session_toolset_proofs.report", "_LINEAGE"),
}
"""Module globals that hold the state of a run, not code or data a result depends on."""

_MEMOS: list[Any] = []
"""Memos a run empties before it starts (`ephemeral`): their contents are computed by the
functions a check runs, so no digest includes them."""


def ephemeral(*memos: Any) -> None:
    """Leave ``memos`` out of every digest (see `_MEMOS`)."""
    _MEMOS.extend(m for m in memos if all(m is not k for k in _MEMOS))


def context_key(store: Cache | None = None) -> str:
    """A digest of what every check's result depends on besides its own name and variant and
    the functions it runs (`Deps`): the Z3 and Python versions; every source file of `PACKAGES`
    with the bodies of its functions left out (module-level code, class bodies, signatures,
    defaults and decorators: what runs at import) and every other file's bytes; and the data as
    loaded in this process - every global of every loaded module of `PACKAGES`, constants,
    tables and objects by their contents, classes by their attributes, a function by its name
    when that name finds it (its body is a dependency of the checks that run it) and by its
    code, defaults and closure when not - so a constant changed or a function rebound after
    import (a test's monkeypatch) changes it as surely as an edited file.  Called in the parent
    of a run after its caches of built transitions and concrete results are emptied.  A file's
    skeleton is kept in ``store`` under the digest of the file's bytes."""
    digest = hashlib.sha256(f"format {FORMAT}\0z3 {z3.get_full_version()}\0{sys.version}".encode())
    for package in PACKAGES:
        module = sys.modules.get(package)
        for base in getattr(module, "__path__", None) or []:
            for path in sorted(Path(base).rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    digest.update(f"\0file {path.relative_to(base)}\0".encode())
                    digest.update(_skeleton(path, store).encode())
    tokens = _Tokens(by_name=True)
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


class _Bodiless(ast.NodeTransformer):
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.body = [ast.Pass()]
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        node.body = [ast.Pass()]
        return node


def _skeleton(path: Path, store: Cache | None) -> str:
    """The digest of a Python file without its functions' bodies (comments and layout
    ignored); of any other file (or one that does not parse), of its bytes."""
    try:
        data = path.read_bytes()
    except OSError as err:  # no module was loaded from it: nothing else to know about it
        return f"unreadable {err.strerror}"
    whole = hashlib.sha256(data).hexdigest()
    if path.suffix != ".py":
        return whole
    key = doc_key("skeleton", sys.version, whole)
    kept = store.get_doc(key) if store is not None else None
    if isinstance(kept, str):
        return kept
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return whole
    skeleton = hashlib.sha256(ast.dump(_Bodiless().visit(tree)).encode()).hexdigest()
    if store is not None:
        store.put_doc(key, skeleton)
    return skeleton


class Tracer:
    """The functions of `PACKAGES` a process runs while tracing (`sys.settrace`): a check's
    dependencies (`names`).  A function defined inside another one (a closure, a lambda) counts
    as its outermost named function, whose code holds it; code that no name finds (a lambda at
    module level, a function hidden by a decorator) as its whole file."""

    def __init__(self) -> None:
        self.codes: set[types.CodeType] = set()
        self._previous: Any = None

    def __enter__(self) -> Tracer:
        add = self.codes.add

        def hook(frame: types.FrameType, _event: str, _arg: Any) -> None:
            add(frame.f_code)

        self._previous = sys.gettrace()
        sys.settrace(hook)
        return self

    def __exit__(self, *_exc: object) -> None:
        sys.settrace(self._previous)

    def names(self) -> set[str]:
        files = _files()
        out: set[str] = set()
        for code in self.codes:
            module = files.get(code.co_filename)
            if module is None:
                if _inside(code.co_filename):
                    out.add(f"file:{code.co_filename}")  # ours, but no loaded module's file
                continue
            root = code.co_qualname.split(".<locals>.", 1)[0]
            found = _function(_resolve(module, root))
            if found is not None and code in _codes(found.__code__):
                out.add(f"{module}:{root}")
            else:
                out.add(f"file:{code.co_filename}")
        return out


def _resolve(module: str, qualname: str) -> Any:
    """What ``module``'s ``qualname`` names now (`_MISSING`: nothing)."""
    obj: Any = sys.modules.get(module, _MISSING)
    for part in qualname.split("."):
        obj = getattr(obj, part, _MISSING)
    return obj


def _function(obj: Any) -> types.FunctionType | None:
    """The function behind ``obj`` (a decorator's `__wrapped__`, a method, a property)."""
    for _ in range(8):
        # A wrapper (`functools.wraps`: the model's seams) stands for the function it wraps:
        # the code a trace sees, and what an edit changes, is the wrapped one's.
        if isinstance(obj, types.FunctionType) and not hasattr(obj, "__wrapped__"):
            return obj
        for attr in ("__wrapped__", "__func__", "fget"):
            if hasattr(obj, attr):
                obj = getattr(obj, attr)
                break
        else:
            return None
    return None


def _files() -> dict[str, str]:
    """The file of every loaded module of `PACKAGES`, to its module's name."""
    out = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and name.split(".")[0] in PACKAGES:
            out[path] = name
    return out


def _inside(filename: str) -> bool:
    for package in PACKAGES:
        module = sys.modules.get(package)
        for base in getattr(module, "__path__", None) or []:
            if filename.startswith(str(base)):
                return True
    return False


class Deps:
    """The current digest of a dependency named by `Tracer.names` (None: it no longer exists),
    each computed once: a function (or method) by its code, defaults, closure and source lines,
    a whole module by every global, a file by its bytes."""

    def __init__(self) -> None:
        self._known: dict[str, str | None] = {}

    def digest(self, name: str) -> str | None:
        if name not in self._known:
            try:
                self._known[name] = self._compute(name)
            except Exception:  # whatever stops the digest makes the dependency a miss
                self._known[name] = None
        return self._known[name]

    def all(self, names: set[str]) -> dict[str, str] | None:
        """The digest of each of ``names`` (None if one no longer exists)."""
        out = {}
        for name in sorted(names):
            value = self.digest(name)
            if value is None:
                return None
            out[name] = value
        return out

    def current(self, stored: Any) -> bool:
        """Whether every dependency of a stored check (``{name: digest}``) is unchanged."""
        if not isinstance(stored, dict) or not stored:
            return False
        return all(isinstance(d, str) and self.digest(str(n)) == d for n, d in stored.items())

    def _compute(self, name: str) -> str | None:
        kind, _, rest = name.partition(":")
        if kind == "file":
            try:
                return hashlib.sha256(Path(rest).read_bytes()).hexdigest()
            except OSError:
                return None
        if kind.split(".")[0] not in PACKAGES:
            return None
        obj = _resolve(kind, rest)
        func = _function(obj)
        if func is None:
            return None
        text = _Tokens().of(obj) + "\0" + _source(func)
        return hashlib.sha256(text.encode()).hexdigest()


_MISSING = object()


def _source(func: types.FunctionType) -> str:
    """The source lines of a function's code (read by what names a decision by its line's
    text)."""
    code = func.__code__
    lines = [n for c in _codes(code) for _, _, n in c.co_lines() if n is not None]
    text = linecache.getlines(code.co_filename)
    return "".join(text[code.co_firstlineno - 1 : max(lines, default=code.co_firstlineno)])


def _codes(code: types.CodeType) -> list[types.CodeType]:
    return [code, *(n for c in code.co_consts if isinstance(c, types.CodeType) for n in _codes(c))]


def stable(value: Any) -> str:
    """``value`` as text that is the same in every process (see `context_key`)."""
    return _Tokens().of(value)


class _Tokens:
    """Stable text for a value (see `context_key`): no addresses, each object described once;
    with ``by_name`` a function that its module and qualified name find is that name."""

    def __init__(self, *, by_name: bool = False) -> None:
        self.by_name = by_name
        self.seen: dict[int, str] = {}
        self.keep: list[Any] = []  # ids stay unique while the walk lasts

    def of(self, value: Any) -> str:
        if value is None or isinstance(value, bool | int | float | complex | str | bytes):
            return repr(value)
        known = self.seen.get(id(value))
        if known is not None:
            return known
        if any(value is m for m in _MEMOS):
            return "<memo>"
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
            if not _ours(value.__module__) or (self.by_name and _named(value)):
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
        if isinstance(value, dataclasses.Field):
            return (
                f"field {value.name} {self.of(value.default)} {self.of(value.default_factory)} "
                f"{value.init} {value.repr} {value.compare} {value.hash} {value.kw_only}"
            )
        if _ours(kind.__module__):
            fields = getattr(value, "__dict__", None)
            names = [s for c in kind.__mro__ for s in getattr(c, "__slots__", ())]
            slots = {s: getattr(value, s, None) for s in names}
            return f"{self.of(kind)} {self.of(fields)} {self.of(slots)}"
        if isinstance(value, z3.AstRef | z3.SortRef | z3.FuncDeclRef):
            return f"{kind.__name__} {value.sexpr()}"
        if isinstance(value, functools.partial):
            return f"partial {self.of(value.func)} {self.of(value.args)} {self.of(value.keywords)}"
        text = repr(value)  # a compiled pattern, a path, ...: by its repr when it has no address
        if " at 0x" in text or len(text) > 10_000:
            return f"{kind.__module__}.{kind.__qualname__}"
        return f"{kind.__module__}.{kind.__qualname__} {text}"


_CLASS_SKIP = {"__dict__", "__weakref__", "__doc__", "__module__", "__slots__"}


def _ours(module: str | None) -> bool:
    return (module or "").split(".")[0] in PACKAGES


def _named(func: types.FunctionType) -> bool:
    """Whether ``func``'s module and qualified name find it (possibly behind a decorator) and
    its code is its module's (not swapped for code from elsewhere: `Tracer` sees only code of
    `PACKAGES`' files)."""
    obj: Any = sys.modules.get(func.__module__)
    if func.__code__.co_filename != getattr(obj, "__file__", None):
        return False
    for part in func.__qualname__.split("."):
        obj = getattr(obj, part, None)
    while obj is not func and hasattr(obj, "__wrapped__"):
        obj = obj.__wrapped__
    return obj is func


def _cell(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None
