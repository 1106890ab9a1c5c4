"""Running obligations under profiles and mutants, and the report (table, JSON, JUnit).

Rows: for each selected profile, every obligation (``proof``: expected ``proved`` unless the
profile is expected to refute it); for the default profile also its ``witness`` (expected
``sat``) and one ``mutant`` row per mutant that must refute it (expected ``refuted``).
"""

from __future__ import annotations

import ctypes
import functools
import gc
import json
import os
import pickle
import selectors
import signal
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any
from xml.sax.saxutils import escape

from session_toolset_model import conditions as model_conditions
from session_toolset_model import enumerate as enumeration
from session_toolset_model import keyword, reachability
from session_toolset_model.enumerate import nodes
from session_toolset_model.ops import OPS, outcomes_for
from session_toolset_model.profiles import DEFAULT, DEFAULT_PROFILE, Variant

from . import agreement, cache, mutants
from .encode import _GROUND
from .obligations import (
    EXPECTED_PROFILE_REFUTATIONS,
    FINITE_STATES,
    OBLIGATIONS,
    SEARCH_BOUND,
    Obligation,
    Query,
    step,
)
from .reach import _STEPS as reach_cache
from .reach import reach_op
from .search import Found, find
from .solve import BOUND as SOLVE_BOUND
from .solve import bounded, check, construction
from .steps import _STEPS as steps_cache
from .vectors import vector, vector_id

FORMAT_VERSION = 1
"""The ``--json`` report's format: the envelope every session-toolset report opens with
(``session_toolset_harness.envelope``, restated here: the proofs import the model only)."""

CONSTRUCTION = ("simplify", "no premises")
"""Bases of a proved goal that hold by construction (reported apart, not counted as proved)."""


@dataclass
class Row:
    name: str
    profile: str
    kind: str
    check: str
    result: str
    expected: str
    seconds: float
    trace: dict[str, str] = field(default_factory=dict)
    concrete: list[dict[str, Any]] = field(default_factory=list)
    """The concrete trace from the initial state: ops with arguments and outcomes."""
    found: Found | None = field(default=None, repr=False, compare=False)
    job: int = field(default=-1, repr=False, compare=False)
    """Index of the job that made the row (within one run)."""
    basis: str = ""
    """For a proved row: ``premises``, or by construction (``simplify``, ``no premises``)."""
    solved: int = field(default=0, compare=False)
    """Z3 checks this row's job solved (the job's first row carries the job's count)."""
    reused: int = field(default=0, compare=False)
    """Z3 checks this row's job answered from the cache (`cache`)."""
    restored: bool = field(default=False, compare=False)
    """Read whole from the cache (`restore`): its isolation unit ran with the same code before."""
    has_vector: bool = field(default=False, compare=False)
    """A restored row whose counterexample had a concrete trace (a vector id in `--json`)."""

    @property
    def passed(self) -> bool:
        return self.result == self.expected

    @property
    def by_construction(self) -> bool:
        return self.result == "proved" and self.basis in CONSTRUCTION


@dataclass
class Report:
    rows: list[Row]
    stopped: str | None = None
    """Why the run ended before its last check (``interrupted by SIGINT after ...``); the rows
    are then those that finished.  None for a complete run."""
    cached: bool = False
    """Whether the run used a cache of Z3 answers (`cache`): the summary then says how many
    checks it answered."""

    @property
    def ok(self) -> bool:
        return self.stopped is None and all(r.passed for r in self.rows)

    def summary(self) -> str:
        failed = sum(not r.passed for r in self.rows)
        secs = sum(r.seconds for r in self.rows)
        agree = [r for r in self.rows if r.kind == "agreement"]
        both = f"; {sum(r.passed for r in agree)} of {len(agree)} agreement checks as expected"
        stopped = "" if self.stopped is None else f" (incomplete: {self.stopped})"
        cached = ""
        if self.cached:
            solved = sum(r.solved for r in self.rows)
            reused = sum(r.reused for r in self.rows)
            restored = sum(r.restored for r in self.rows)
            cached = f"; Z3 answered {solved} queries, the cache {reused}"
            if restored:
                cached += f"; {restored} checks read whole from the cache"
        return (
            f"{len(self.rows)} checks, {len(self.rows) - failed} as expected, {failed} not; "
            f"{self.proof_counts()}{both if agree else ''}{cached}; "
            f"{secs:.1f} s summed over checks{stopped}"
        )

    def proof_counts(self) -> str:
        """Default-profile proofs by `solve.construction`: those that need the inductive
        invariant, those that hold from their own hypothesis and side definitions alone, those
        whose class is undetermined within the budget (proved, but whether they need their
        premises is not shown), apart from those that hold by construction (the goal simplifies
        to true, or holds with no premise at all) and those shown only up to a bound."""
        rows = [r for r in self.rows if r.check == "proof" and r.profile == DEFAULT_PROFILE]
        built = [r for r in rows if r.by_construction]
        simp = sum(r.basis == "simplify" for r in built)
        need = sum(r.basis == "invariant" for r in rows)
        own = sum(r.basis == "hypothesis" for r in rows)
        undetermined = sum(r.result == "proved" for r in rows) - len(built) - need - own
        bounded = sum(r.result == "bounded" for r in rows)
        return (
            f"{need + own} obligations proved from their premises ({need} need the inductive "
            f"invariant, {own} hold from their own hypothesis and side definitions alone), "
            f"{len(built)} hold by construction ({simp} simplify to true, {len(built) - simp} "
            f"need no premises), {undetermined} proved whose class is undetermined within the "
            f"budget, {bounded} shown only for batches up to {SOLVE_BOUND}"
        )

    def table(self, *, only_unexpected: bool = False) -> str:
        """The result table; with ``only_unexpected`` just the rows that failed (or "")."""
        rows = [r for r in self.rows if not r.passed] if only_unexpected else self.rows
        if not rows:
            return ""
        lines = [f"{'obligation':58} {'profile':18} {'check':22} {'result':9} {'s':>6}"]
        for r in rows:
            mark = "" if r.passed else f"  <-- expected {r.expected}"
            result = "construct" if r.by_construction else r.result
            lines.append(
                f"{r.name:58} {r.profile:18} {r.check:22} {result:9} {r.seconds:6.2f}{mark}"
            )
            if r.result == "refuted" and r.trace:
                lines.append("    trace: " + ", ".join(f"{k}={v}" for k, v in r.trace.items()))
        return "\n".join(lines)

    def envelope(self, ok: bool | None = None) -> dict[str, Any]:
        """The report's envelope; ``ok`` overrides the verdict (hazards, the replay)."""
        try:
            version = metadata.version("session-toolset")
        except metadata.PackageNotFoundError:
            version = "unknown"
        failed = sum(not r.passed for r in self.rows)
        verdict = "pass" if (self.ok if ok is None else ok) else "fail"
        return {
            "format": "session-toolset prove report",
            "format_version": FORMAT_VERSION,
            "tool": "session-toolset prove",
            "version": version,
            "verdict": verdict if self.stopped is None else "incomplete",
            "complete": self.stopped is None,
            "counts": {
                "checks": len(self.rows),
                "as_expected": len(self.rows) - failed,
                "unexpected": failed,
            },
            "stopped": self.stopped,
        }

    def to_json(self) -> str:
        rows = [
            {
                "name": r.name,
                "profile": r.profile,
                "kind": r.kind,
                "check": r.check,
                "result": r.result,
                "expected": r.expected,
                "seconds": r.seconds,
                **({"basis": r.basis} if r.basis else {}),
                "trace": r.trace,
                "concrete": r.concrete,
                **({"vector": vector_id(r.name, row_variant(r))} if _has_cex(r) else {}),
            }
            for r in self.rows
        ]
        return json.dumps({**self.envelope(), "rows": rows}, indent=1)

    def to_junit(self) -> str:
        cases = []
        for r in self.rows:
            body = (
                ""
                if r.passed
                else (
                    f'<failure message="{escape(r.result)} (expected {escape(r.expected)})">'
                    f"{escape(json.dumps(r.trace))}</failure>"
                )
            )
            cases.append(
                f'<testcase classname="{escape(r.profile)}.{escape(r.check)}" '
                f'name="{escape(r.name)}" time="{r.seconds:.3f}">{body}</testcase>'
            )
        fails = sum(not r.passed for r in self.rows)
        errors = 0
        if self.stopped is not None:  # the checks not run would otherwise pass unnoticed
            errors = 1
            cases.append(
                '<testcase classname="prove" name="incomplete" time="0.000">'
                f'<error message="incomplete: {escape(self.stopped)}"/></testcase>'
            )
        return (
            f'<?xml version="1.0"?>\n<testsuite name="prove" tests="{len(cases)}" '
            f'failures="{fails}" errors="{errors}">' + "".join(cases) + "</testsuite>\n"
        )


_NAMES = {"unsat": "proved", "sat": "refuted", "unknown": "unknown"}


def _row(
    ob: Obligation, v: Variant, check_name: str, negate: bool, expected: str, base: Variant | None
) -> Row:
    """One check.  Proofs ask Z3 for unsat of the negated goal over arbitrary states; expected
    refutations and witnesses are searched concretely and confirmed in Z3 (`search.find`).
    A proof or a refutation that ends ``unknown`` falls back to `_counterexample`."""
    build = lambda: ob.build(v)  # noqa: E731 - one builder for every query of this row
    if expected in ("proved", "bounded"):
        out = check(build, True)
        result, trace = _NAMES[out.status], out.trace
        if result == "proved" and expected == "bounded":
            result = "bounded"  # unsat, but of a query that bounds the batch length
        start = time.perf_counter()
        found: Found | None = None
        if result == "unknown":
            result, trace, found = _counterexample(ob, build, v, None if base == v else base)
        classify = result == "proved" and v.profile == DEFAULT_PROFILE  # the counted proofs
        basis = construction(build) if classify else ""
        seconds = out.seconds + time.perf_counter() - start
        concrete = found.concrete if found is not None else []
        row = Row(ob.name, v.profile, ob.kind, check_name, result, expected, seconds, trace)
        row.concrete, row.found, row.basis = concrete, found, basis
        return row
    mode = "counterexample" if negate else "witness"
    start = time.perf_counter()
    found = find(ob, build, v, mode, base)
    trace = found.trace
    if found.status == "sat":
        result = "refuted" if negate else "sat"
    else:
        result = "unknown" if found.status == "unknown" else "not found"
        if negate:  # nothing confirmed among the concrete candidates: ask the bounded query
            b = bounded(build, True)
            if b.status == "sat":
                result, trace = "refuted", {**b.trace, "found_by": BOUNDED_FOUND}
    return Row(
        ob.name,
        v.profile,
        ob.kind,
        check_name,
        result,
        expected,
        time.perf_counter() - start,
        trace,
        found.concrete,
        found,
    )


BOUNDED_FOUND = f"the bounded query (batches of at most {SOLVE_BOUND}, finite states)"
PINNED_FOUND = "a reachable instance, pinned in the unbounded query"


def _counterexample(
    ob: Obligation, build: Callable[[], Query], v: Variant, base: Variant | None
) -> tuple[str, dict[str, str], Found | None]:
    """A proof came back ``unknown``: search for a counterexample before giving up - the
    bounded query (`solve.bounded`: a model of it is a model of the unbounded one), then the
    concrete exploration's reachable instances pinned in the obligation's own query
    (`search.find`).  ``refuted`` with the trace (``found_by`` says which) if one exists, else
    ``unknown`` (a failure)."""
    b = bounded(build, True)
    if b.status == "sat":
        return "refuted", {**b.trace, "found_by": BOUNDED_FOUND}, None
    found = find(ob, build, v, "counterexample", base)
    if found.status == "sat":
        return "refuted", {**found.trace, "found_by": PINNED_FOUND}, found
    return "unknown", {}, None


@dataclass(frozen=True)
class Job:
    """One unit of work: an obligation check (``ob`` set) or the reachability of one op."""

    group: str
    ob: Obligation | None = None
    variant: Variant = DEFAULT
    check_name: str = ""
    negate: bool = True
    expected: str = ""
    base: Variant | None = None
    reach_op: str | None = None
    reach_names: tuple[str, ...] = ()
    agree_op: str | None = None
    """An agreement row (`agreement`) of this op; ``base`` is then the Z3 side's variant."""
    agree_instance: bool = False
    """A mutant row that also checks the two interpretations agree on the instance it found."""

    @property
    def weight(self) -> float:
        """A static cost estimate, only used to order the groups across workers."""
        unit = 0.1 if self.check_name == "proof" else (1.0 if self.reach_op else 0.5)
        if self.check_name.startswith("mutant:"):
            unit = 1.0
        return unit * OP_COST.get(self.group, 1.0)

    @property
    def rows(self) -> int:
        """How many rows `execute` returns (progress)."""
        if self.reach_op is not None:
            return len(self.reach_names)
        return 2 if self.agree_instance else 1

    def execute(self) -> list[Row]:
        if self.agree_op is not None:
            a = agreement.check_cases(self.agree_op, self.variant, self.base)
            return [self._agreement_row(self.agree_op, a.result, a.seconds, a.trace)]
        if self.ob is not None:
            row = _row(
                self.ob, self.variant, self.check_name, self.negate, self.expected, self.base
            )
            if not self.agree_instance:
                return [row]
            return [row, self._instance_agreement(row)]
        assert self.reach_op is not None
        rows = []
        for e in reach_op(self.reach_op):
            name = f"reach.{e.op}.{e.outcome}"
            if name not in self.reach_names:
                continue
            rows.append(
                Row(
                    name,
                    DEFAULT_PROFILE,
                    "reachability",
                    "reach",
                    e.result,
                    reachability.expected(e.op, e.outcome),
                    e.seconds,
                    {},
                    e.concrete,
                )
            )
        return rows

    def _agreement_row(self, op: str, result: str, seconds: float, trace: dict[str, str]) -> Row:
        expected = "disagrees" if self.base is not None and self.base.label else "agrees"
        name = f"agree.{op}"
        check = self.check_name.replace("mutant:", "agreement:")  # one kind of row per check
        return Row(
            name,
            self.variant.profile,
            "agreement",
            check,
            result,
            expected,
            seconds,
            trace,
        )

    def _instance_agreement(self, row: Row) -> Row:
        """Both interpretations under the row's mutant, on the instance the row found."""
        assert self.ob is not None and self.ob.op is not None
        found = row.found
        if found is None or found.node is None or found.final is None:
            return self._agreement_row(self.ob.op, "no instance", 0.0, {})
        start = time.perf_counter()
        state, args, op = found.node.state, found.final.kwargs, self.ob.op
        v = self.variant
        trace = {"instance of": self.ob.name, "interpretation": "unbounded"}
        result = agreement.agree_on(v, op, state, args, v, None, agreement.INSTANCE_RLIMIT)
        if result == "unknown":
            result = agreement.agree_on(v, op, state, args, v, SOLVE_BOUND)
            trace["interpretation"] = (
                f"bounded (batches of at most {SOLVE_BOUND}): unbounded unknown"
            )
        return self._agreement_row(self.ob.op, result, time.perf_counter() - start, trace)


OP_COST = {"activate_many": 4.0, "activate_model": 3.5, "rebuild": 2.0, "set_new": 1.5}
"""Relative cost of the checks about an op (the rest weigh 1): balancing only."""


def jobs(profile_names: list[str], pattern: keyword.Selector = None) -> list[Job]:
    """The checks of `run`, in report order."""
    out: list[Job] = []
    for ob in OBLIGATIONS:
        if not keyword.matches(pattern, ob.name):
            continue
        group = ob.op or "initiation"
        for profile in profile_names:
            refuted = ob.name in EXPECTED_PROFILE_REFUTATIONS.get(profile, ())
            v = Variant(profile)
            expected = "refuted" if refuted else _proved(ob)
            out.append(Job(group, ob, v, "proof", True, expected, DEFAULT))
            if profile != DEFAULT_PROFILE:
                continue
            out.append(Job(group, ob, v, "witness", False, "sat", None))
            for m in ob.refuted_by:
                # the first obligation of each model mutant also checks agreement on the
                # instance it found (first in the whole list, whatever is selected)
                first = ob.op is not None and _FIRST_REFUTING.get(m) == ob.name
                out.append(
                    Job(
                        group,
                        ob,
                        mutants.variant(m, profile),
                        f"mutant:{m}",
                        True,
                        "refuted",
                        v,
                        agree_instance=first,
                    )
                )
    for opname in (agreement.INITIAL, *OPS):
        name = f"agree.{opname}"
        if not keyword.matches(pattern, name):
            continue
        for profile in profile_names:
            if profile == DEFAULT_PROFILE or opname in agreement.PROFILE_OPS:
                out.append(
                    Job(opname, variant=Variant(profile), check_name="agreement", agree_op=opname)
                )
        if DEFAULT_PROFILE in profile_names:
            for m, ops in agreement.Z3_ONLY.items():
                if opname in ops:
                    out.append(
                        Job(
                            opname,
                            check_name=f"mutant:{m}",
                            base=mutants.variant(m),
                            agree_op=opname,
                        )
                    )
    if DEFAULT_PROFILE in profile_names:
        for opname, op in OPS.items():
            names = tuple(
                f"reach.{opname}.{o}"
                for o in outcomes_for(op, DEFAULT)
                if keyword.matches(pattern, f"reach.{opname}.{o}")
            )
            if names:
                out.append(Job(opname, reach_op=opname, reach_names=names))
    return out


_FIRST_REFUTING: dict[str, str] = {}
for _ob in OBLIGATIONS:
    for _m in _ob.refuted_by:
        if _ob.op is not None and _m not in agreement.Z3_ONLY and _m not in agreement.NO_INSTANCE:
            _FIRST_REFUTING.setdefault(_m, _ob.name)


def _proved(ob: Obligation) -> str:
    """What a proof row must show: ``proved``, or ``bounded`` for the obligations shown only
    for batches up to a bound (`interp`: not counted as proved)."""
    return "bounded" if ob.kind == "interpretation" else "proved"


_WORK: list[Job] = []

_UNITS: dict[int, str] = {}
"""The cache key of each isolation unit whose rows a run stores (`unit_key`), by the index of
its first job; set before the groups fork."""

_LINEAGE: set[str] = set()
"""The functions the parent of a run with a cache ran before the groups fork (`cache.Tracer`):
a dependency of every check, which reads what they computed."""


def _describe(job: Job) -> str:
    """What a job is, apart from the code and data (`cache.context_key`) and the functions it
    runs: which check of which obligation or op under which variants."""
    parts = (
        job.group,
        job.ob.name if job.ob is not None else "",
        job.variant,
        job.check_name,
        job.negate,
        job.expected,
        job.base,
        job.reach_op,
        job.reach_names,
        job.agree_op,
        job.agree_instance,
    )
    return cache.stable(parts)


def unit_key(context: str, members: list[Job]) -> str:
    """The key of an isolation unit's rows: what every check depends on (``context``:
    `cache.context_key`) and what each of its jobs is.  The stored rows also name, with their
    digests, the functions that ran to compute them (`cache.Deps`); they are read back only if
    none of those changed.  Its rows are a function of these: the unit runs in a process of its
    own whose Z3 context and concrete results depend on nothing else (`run`)."""
    return cache.doc_key("unit", context, *(_describe(j) for j in members))


_ROW_FIELDS = ("name", "profile", "kind", "check", "result", "expected", "basis")


def _rows_doc(rows: list[Row], members: list[int], deps: dict[str, str]) -> dict[str, Any]:
    return {
        "deps": deps,
        "rows": [
            {
                **{f: getattr(r, f) for f in _ROW_FIELDS},
                "member": members.index(r.job),
                "trace": r.trace,
                "concrete": r.concrete,
                "has_vector": _has_cex(r),
            }
            for r in rows
        ],
    }


KEPT = 4
"""Versions of a unit's rows kept under its key, newest first: undoing an edit finds the rows
of the code as it was."""


def _entries(doc: Any) -> list[Any]:
    entries = doc.get("entries") if isinstance(doc, dict) else None
    return entries if isinstance(entries, list) else []


def _keep(store: cache.Cache, key: str, entry: dict[str, Any]) -> None:
    """Store ``entry`` (`_rows_doc`) first under ``key``, with the other versions stored there
    whose functions differ (at most `KEPT` in all).  Two runs storing at once can lose one's
    version: only a later miss."""
    old = [e for e in _entries(store.get_doc(key)) if isinstance(e, dict)]
    rest = [e for e in old if e.get("deps") != entry["deps"]]
    store.put_doc(key, {"entries": [entry, *rest][:KEPT]})


def restore(doc: Any, members: list[int]) -> list[Row] | None:
    """The rows of a unit stored by `_rows_doc` (None: nothing usable), as read from the cache:
    no time spent, no Z3 query asked."""
    try:
        rows = []
        for d in doc["rows"]:
            if not all(isinstance(d[f], str) for f in _ROW_FIELDS):
                return None
            trace, concrete = d["trace"], d["concrete"]
            if not isinstance(trace, dict) or not isinstance(concrete, list):
                return None
            name, profile, kind, check, result, expected = (d[f] for f in _ROW_FIELDS[:6])
            row = Row(name, profile, kind, check, result, expected, 0.0, trace, concrete)
            row.basis, row.job = d["basis"], members[int(d["member"])]
            row.restored, row.has_vector = True, bool(d["has_vector"])
            rows.append(row)
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    return rows if rows else None


def _prebuild(group: str) -> None:
    """The transitions most jobs of ``group`` (an op) ask about, built once in the group's
    process before its jobs fork: the same fixed set whatever is selected, so a job's Z3
    context is the same alone and in the full run."""
    if group not in OPS:
        return
    for bound, finite in ((None, True), (SOLVE_BOUND, False), (None, False)):
        tokens = (SEARCH_BOUND.set(bound), FINITE_STATES.set(finite))
        try:
            step(group, DEFAULT)
        finally:
            FINITE_STATES.reset(tokens[1])
            SEARCH_BOUND.reset(tokens[0])


def _die_with_parent() -> None:
    """Linux: the child is killed when its parent dies (Ctrl-C or SIGTERM of a run leaves no
    process behind); elsewhere a no-op."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


_FRAME = struct.Struct("!Q")
"""The length of each pickled message a forked child sends its parent."""


def _frame(kind: str, value: Any) -> bytes:
    body = pickle.dumps((kind, value), protocol=pickle.HIGHEST_PROTOCOL)
    return _FRAME.pack(len(body)) + body


def _messages(buffer: bytearray) -> list[tuple[str, Any]]:
    """The complete messages at the start of ``buffer``, removed from it."""
    out = []
    while len(buffer) >= _FRAME.size:
        (size,) = _FRAME.unpack_from(buffer)
        if len(buffer) < _FRAME.size + size:
            break
        out.append(pickle.loads(bytes(buffer[_FRAME.size : _FRAME.size + size])))
        del buffer[: _FRAME.size + size]
    return out


Emit = Callable[[Any], None]
"""Sends a partial result to the parent while the child works on (`_spawn`)."""


def _spawn(work: Callable[[Emit], Any]) -> tuple[int, int]:
    """Fork a child that runs ``work`` and nothing else, sends what it passes to its ``emit``
    argument as it goes, then its result (or the exception it raised), through a pipe, and
    exits; returns (pid, read end of the pipe).

    The child ignores SIGINT and takes SIGTERM's default action: the parent decides what an
    interruption ends (a Ctrl-C reaches every process of the terminal's job) and kills it."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        status = 0
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.close(read)
            _die_with_parent()
            with os.fdopen(write, "wb") as out:

                def emit(value: Any) -> None:
                    out.write(_frame("part", value))
                    out.flush()

                try:
                    payload: tuple[str, Any] = ("ok", work(emit))
                except Exception as err:  # handed to the parent, which raises it
                    payload = ("error", err)
                out.write(_frame(*payload))
        except BaseException:  # nothing may escape a forked child
            status = 1
        finally:
            os._exit(status)
    os.close(write)
    return pid, read


def _result(kind: str, value: Any) -> Any:
    if kind == "error":
        raise value
    return value


def isolated(
    job: Callable[[], list[Row]], traced: bool = False
) -> tuple[list[Row], set[str], set[str]]:
    """Run ``job`` in a forked child that runs nothing else and exits after it; its rows, and
    the concrete results it computed (`enumeration.merge`), come back through a pipe; with
    ``traced`` also the functions it ran and those that handed its results on (`cache.Tracer`)."""

    def work(_emit: Emit) -> Any:
        if not traced:
            before = enumeration.mark()
            return job(), enumeration.computed_since(before), set(), set()
        with cache.Tracer() as handing:
            before = enumeration.mark()
        with cache.Tracer() as tracer:
            rows = job()
        with handing:
            computed = enumeration.computed_since(before)
        return rows, computed, tracer.names(), handing.names()

    pid, read = _spawn(work)
    with os.fdopen(read, "rb") as inp:
        data = bytearray(inp.read())
    os.waitpid(pid, 0)
    messages = _messages(data)
    if not messages:
        raise RuntimeError("a proof job's process died without a result")
    rows, computed, ran, handed = _result(*messages[-1])
    if not traced:
        enumeration.merge(computed)
        return list(rows), set(), set()
    with cache.Tracer() as tracer:  # what later units read was put there by this code too
        enumeration.merge(computed)
    return list(rows), set(ran), set(handed) | tracer.names()


@dataclass
class Tally:
    """A run as it goes: the rows of the jobs finished so far, by job index, and how many rows
    the whole run has.  `run` fills it as each isolation unit finishes, so a caller that stops
    the run midway (SIGINT, SIGTERM) still has every row that finished."""

    total: int = 0
    finished: dict[int, list[Row]] = field(default_factory=dict)
    on_rows: Callable[[int], None] | None = None
    """Told the number of rows finished so far, after each unit (a progress line)."""

    @property
    def done(self) -> int:
        return sum(len(rows) for rows in self.finished.values())

    def add(self, results: list[tuple[int, list[Row]]]) -> None:
        self.finished.update(results)
        if self.on_rows is not None:
            self.on_rows(self.done)

    def report(self, stopped: str | None = None, *, cached: bool = False) -> Report:
        """The finished rows in report order (``stopped``: why the rest did not run;
        ``cached``: whether the run used a cache of Z3 answers)."""
        rows = [row for i in sorted(self.finished) for row in self.finished[i]]
        return Report(rows, stopped, cached)


def _run_all(groups: list[list[int]], workers: int, tally: Tally) -> None:
    """Every group in its own forked process (`_run_group`), at most ``workers`` at a time,
    each unit's rows into ``tally`` as it finishes; on any exception (Ctrl-C included) the
    running ones are killed and waited for."""
    pending = list(groups)
    running: dict[int, tuple[int, bytearray, list[bool]]] = {}
    sel = selectors.DefaultSelector()
    try:
        while pending or running:
            while pending and len(running) < workers:
                group = pending.pop(0)
                pid, fd = _spawn(functools.partial(_run_group, group))
                running[fd] = (pid, bytearray(), [False])
                sel.register(fd, selectors.EVENT_READ)
            for key, _ in sel.select():
                fd = int(key.fd)
                pid, buffer, ended = running[fd]
                chunk = os.read(fd, 1 << 20)
                buffer.extend(chunk)
                for kind, value in _messages(buffer):
                    if kind == "part":
                        tally.add(value)
                    else:
                        _result(kind, value)
                        ended[0] = True
                if chunk:
                    continue
                sel.unregister(fd)
                os.close(fd)
                del running[fd]
                os.waitpid(pid, 0)
                if not ended[0]:
                    raise RuntimeError("a proof job's process died without a result")
    except BaseException:
        for fd, (pid, _, _) in running.items():
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(fd)
        raise
    finally:
        sel.close()


def _forget() -> None:
    """Empty this process's caches of built transitions and concrete results before a run:
    they were computed from whatever definition was loaded when they were filled (a test may
    have patched it since), and a run must start from the same state every time."""
    for filled in MEMOS:
        filled.clear()
    agreement._extra.cache_clear()


MEMOS: tuple[dict[Any, Any], ...] = (
    steps_cache,
    reach_cache,
    enumeration._NODES,
    enumeration._CANDIDATES,
    enumeration._RESULTS,
    _GROUND,
    model_conditions._SITES,
    model_conditions._NAMES,
)
"""What a process memoizes as a run goes (`_forget` empties them: `cache` digests none)."""
cache.ephemeral(*MEMOS)


def _unit(job: Job, i: int) -> tuple[str, ...]:
    """The isolation unit of a job: an obligation under one profile (its proof, and for the
    default profile its witness and mutant rows, in that fixed order), else the job alone."""
    if job.ob is not None:
        return (job.ob.name, job.variant.profile)
    return ("job", str(i))


def _run_group(indices: list[int], emit: Emit) -> None:
    """The jobs of one group (one op), in a process forked from the parent that runs nothing
    else: each isolation unit (`_unit`) in its own forked child (`isolated`), its rows sent to
    the parent as soon as it finishes, the concrete results of one unit handed on to the next
    (pure functions of their inputs, no Z3 state)."""
    store = cache.ACTIVE
    prebuilt: set[str] = set()
    if store is None:
        _prebuild(_WORK[indices[0]].group)
    else:
        with cache.Tracer() as tracer:
            _prebuild(_WORK[indices[0]].group)
        prebuilt = tracer.names()
        if _explores(prebuilt):
            prebuilt |= _LINEAGE
    shared = set(_LINEAGE)  # what computed the exploration's memos this process holds
    deps = cache.Deps()
    units: dict[tuple[str, ...], list[int]] = {}
    for i in indices:
        units.setdefault(_unit(_WORK[i], i), []).append(i)
    for members in units.values():
        rows, own, shipped = isolated(functools.partial(_unit_rows, members), store is not None)
        # a unit reads the transitions the group's prebuild built, and, if it asks the
        # exploration anything, what the parent and the units before it in this process put
        # in its memos (`enumeration.merge`): those are dependencies of its rows too
        ran = own | prebuilt | (shared if _explores(own) else set())
        shared |= own | shipped
        key = _UNITS.get(members[0])
        digests = deps.all(ran) if key is not None and store is not None else None
        if store is not None and key is not None and digests is not None:
            _keep(store, key, _rows_doc(rows, members, digests))
        emit([(i, [r for r in rows if r.job == i]) for i in members])


def _explores(names: set[str]) -> bool:
    """Whether code of the exploration (`enumeration`) ran: it alone reads and fills the memos
    of reachable states and concrete results a process shares (`MEMOS`)."""
    here = f"file:{enumeration.__file__}"
    return any(n.startswith(f"{enumeration.__name__}:") or n == here for n in names)


def _unit_rows(members: list[int]) -> list[Row]:
    return [row for i in members for row in _tagged(i)]


def _tagged(i: int) -> list[Row]:
    solved, reused = cache.COUNTS.solved, cache.COUNTS.reused
    rows = _WORK[i].execute()
    for r in rows:
        r.job = i
    if rows:
        rows[0].solved = cache.COUNTS.solved - solved
        rows[0].reused = cache.COUNTS.reused - reused
    return rows


def run(
    profile_names: list[str],
    pattern: keyword.Selector = None,
    workers: int = 1,
    tally: Tally | None = None,
    store: cache.Cache | None = None,
) -> Report:
    """Check every obligation selected by ``-k pattern`` (`keyword`) under the profiles.

    Isolation: every obligation under one profile (its rows in a fixed order: `_unit`), every
    agreement row and the reachability rows of each op run in a process of their own
    (`isolated`), forked from the group's process, itself forked from this one before it has
    built or solved any query.  Z3's context (term numbering, fresh-name counters, caches) is
    then the same for an obligation whatever ran before it or beside it: its rows' answers are
    the same when it is selected alone (``-k``) and in the full run, for any number of
    ``workers``.  Groups (one op each) only share the concrete exploration's results and
    balance the load.  The rows come back in report order; ``tally``, when given, holds them as
    they finish (what a run stopped midway got through).  With ``store`` every Z3 check is
    first looked up there by its exact query text (`cache`)."""
    global _WORK, _UNITS, _LINEAGE
    work = jobs(profile_names, pattern)
    tally = Tally() if tally is None else tally
    tally.total = sum(j.rows for j in work)
    tally.add([])  # none finished yet: a progress line shows the total at once
    _forget()
    keys = _restore(work, store, tally)
    groups: dict[str, list[int]] = {}
    for i, j in enumerate(work):
        if i not in tally.finished:
            groups.setdefault(j.group, []).append(i)
    order = sorted(groups.values(), key=lambda g: (-sum(work[i].weight for i in g), g[0]))
    lineage: set[str] = set()
    if order and store is not None:
        with cache.Tracer() as tracer:
            nodes()  # the shared exploration, computed before any fork
        lineage = tracer.names()
    elif order:
        nodes()
    _WORK, _UNITS, _LINEAGE = work, keys, lineage
    cache.ACTIVE = store
    gc.freeze()  # fewer copy-on-write pages in the forks
    try:
        _run_all(order, max(1, workers), tally)
    finally:
        _WORK, _UNITS, _LINEAGE = [], {}, set()
        cache.ACTIVE = None
        gc.unfreeze()
    return tally.report(cached=store is not None)


def _restore(work: list[Job], store: cache.Cache | None, tally: Tally) -> dict[int, str]:
    """Put into ``tally`` the rows of every isolation unit stored in ``store`` under its
    `unit_key` whose functions are all unchanged (`cache.Deps`); returns the keys of the others
    (by their first job's index), under which they are stored once run.  Called with this
    process's memos empty (`_forget`), which `cache.context_key` relies on."""
    if store is None:
        return {}
    context = cache.context_key(store)
    deps = cache.Deps()
    units: dict[tuple[str, ...], list[int]] = {}
    for i, j in enumerate(work):
        units.setdefault(_unit(j, i), []).append(i)
    missing: dict[int, str] = {}
    restored: list[tuple[int, list[Row]]] = []
    for members in units.values():
        key = unit_key(context, [work[i] for i in members])
        rows = None
        for entry in _entries(store.get_doc(key)):
            if isinstance(entry, dict) and deps.current(entry.get("deps")):
                rows = restore(entry, members)
                break
        if rows is None:
            missing[members[0]] = key
        else:
            restored += [(i, [r for r in rows if r.job == i]) for i in members]
    if restored:
        tally.add(restored)
    return missing


def _has_cex(r: Row) -> bool:
    found = r.found is not None and r.found.node is not None
    return r.result == "refuted" and (found or r.has_vector)


def _refutations(report: Report) -> list[Row]:
    """Rows holding a confirmed counterexample (profile refutations and mutant refutations);
    a row restored from the cache holds none (a run that writes vectors uses no cache)."""
    return [r for r in report.rows if _has_cex(r) and not r.restored]


def row_variant(r: Row) -> Variant:
    if r.check.startswith("mutant:"):
        return mutants.variant(r.check.split(":", 1)[1], r.profile)
    return Variant(r.profile)


def report_variants(report: Report) -> list[Variant]:
    """The variant of each of `counterexample_vectors`, in the same order."""
    return [row_variant(r) for r in _refutations(report)]


def counterexample_vectors(report: Report) -> list[dict[str, Any]]:
    """One PROTOCOL.md vector per counterexample of the report (see `vectors`)."""
    out = []
    for r in _refutations(report):
        assert r.found is not None and r.found.node is not None
        out.append(vector(r.name, row_variant(r), r.found.node.trace, r.found.final))
    return out
