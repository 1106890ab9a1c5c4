"""Partial mode: a log from which catalog changes were left out, checked by solving for them.

A runtime often logs gate decisions and activations but not catalog changes.  `check_partial`
decides whether some sequence of unrecorded catalog operations - at most ``max_hidden`` before
each recorded line, or any number when ``max_hidden`` is None (`bound`) - explains every
recorded reply (compared as complete mode compares, by `complete.agrees`), with the model's own
transitions run over its Z3 interpretation (`window.Window`).  Any number is stated by what the
operations can reach together (`window.reachable`), and placed only before lines that read the
catalog (`CATALOG_BLIND` commute with them).

How it stays fast (most lines never reach the solver):

1. **Concrete replay first.**  The expected world (`session_toolset_model.world.World`) answers
   each recorded request; while its reply equals the recorded one, the line is explained with no
   hidden step and costs one concrete transition.
2. **Look-ahead** (any number per gap only).  At a mismatch at line ``i``, one query explains
   it with up to `AHEAD` following lines (never past a ``reset``), from the world's start when
   that is at most `AHEAD` lines back; adopted only if its replay reproduces every line, else
   step 3 decides.  One query usually covers a session's start-up.
3. **Local repair on a mismatch.**  At line ``i`` the solver looks for hidden steps in the gaps of
   the window ``[s, i]``, starting from the concrete world saved before line ``s``, for
   ``s = i, i-1, i-3, i-7, ...`` down to the start of the current world (its ``reset`` line, or
   the first line), or to ``window`` lines back if that is nearer.  A model is turned into
   PROTOCOL.md requests and replayed concretely; only a replay that reproduces every reply of
   the window is adopted.  The world's start is exact, so the last attempt there is complete:
   unsat there means no hidden history with at most ``max_hidden`` steps per gap explains the
   log up to line ``i``.  When the reach stops short of the world's start, only an unexplained
   window found within it (step 4) is a proof; otherwise the line is undecided.
4. **The shortest unexplained window** ending at that line is then found by searching window
   starts backwards (doubling, then bisection: a window that no state explains stays
   unexplained when it grows backwards).  A window that starts inside a world starts from an
   *arbitrary* state (every record, set, counter and grant free), which every history reaches,
   so "unexplained" is a proof about the window alone; a window at the world's start starts from
   the exact state.

Each query is small and quantifier-free: only the tools the window names are tools at all
(`window.Window.domain` says why no explanation is lost), map updates run over them, and a hidden
slot's kinds share their arguments (an upsert replacing nothing stands for an insert).  Among the
models found, one with the fewest hidden steps is taken, so the concrete world drifts as little
as possible from the runtime's.  Queries are fresh solvers with a fixed seed and a deterministic
``rlimit`` (`window.RLIMIT`), never a wall-clock timeout; ``unknown`` makes the verdict
undecided, never consistent.  A model that does not replay (the abstraction keeps a record's
source trust, not its source) is blocked and another one asked for, `RETRIES` times.

A consistent verdict always has a witness that was replayed concretely; an inconsistent one has
an unsat proof.  Greedy choices (zero hidden steps while they suffice, the first model found)
cost only time: every failure is re-examined from the exact start of the world (or, beyond the
reach, from an arbitrary state) before it is reported.

Lines are read once: a line is checked when ``window`` later lines have been read (a hidden
record's source and runtime name come from the ``catalog_state`` or ``resolve`` reply shown
next), and dropped once no repair can reach back to it, so a partition's check holds about
``2 * window`` lines and their saved worlds, however long the partition.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model.values import Provenance, Source, source_trust
from session_toolset_model.world import OutOfScope, World
from session_toolset_model.world.digest import schema_digest
from session_toolset_model.world.fields import Fields, ProtocolFault
from session_toolset_model.world.identity import IdentityError, unclassified
from session_toolset_model.world.protocol import RecordInfo
from session_toolset_model.z3_interp import RecOpt

from .complete import _plain, _stateless, agrees
from .logline import RecordedLine
from .plan import Unsupported
from .run import WINDOW
from .window import HIDDEN_KINDS, SUMMARISED, Summary, Window

CATALOG_GROUP = ("catalog_insert", "catalog_upsert", "catalog_remove", "catalog_rebase_past")
"""What ``--partial catalog`` names: SPEC.md's catalog mutations (the test seam
``catalog_set_generation`` only by its name)."""

CATALOG_BLIND = frozenset(
    (
        "hello",
        "digest",
        "tool_id_parse",
        "tool_id",
        "session_id_parse",
        "carry_forward_enabled",
        "snapshot",
        "factory_calls",
        "revoke",
        "forge_grant",
    )
)
"""Ops whose reply and effect depend on neither the catalog's records nor its generation (a
snapshot shows the set's own pinned generation): hidden catalog operations commute with them."""

AHEAD = 32
"""How many lines after a mismatched one `_Checker._ahead` tries to explain with it."""

DEFAULT_MAX_HIDDEN = 2
"""The bound per gap when the hidden kinds cannot be summarised and no bound is given."""

RETRIES = 4
"""Solver models tried for one window before the check is undecided for want of a replayable
one (a model is a witness only once the expected world reproduces every reply with it)."""

OP_NAMES = frozenset(name[4:] for name in dir(World) if name.startswith("_op_"))

UNBOUNDED = (
    "any number of unrecorded operations between two recorded lines was considered, by the "
    "catalog they can reach together (records and generation), not one by one"
)

LIMITS = (
    "bounded: only histories with at most {k} unrecorded operation(s) between two recorded lines "
    "were considered; a longer hidden history might explain what this check rejects",
    "bounded reach: hidden operations were placed at most {window} recorded line(s) before the "
    "line they explain (or after its world's reset); a line needing more is undecided",
    "only the recorded lines are checked: nothing is concluded about the unrecorded operations "
    "themselves (their replies, or whether they happened as the explanation says)",
    "hidden records are solved for at the model's abstraction (digest, provenance, source trust): "
    "their schema text, source, runtime name, summary and tags are not determined",
    "runtime names are not in the model: an authorize_wire reply naming a tool is checked as "
    "authorize of that tool, but which record a wire name resolves to (resolve lines, "
    "UnknownTool replies) never makes a log inconsistent; only an explanation must reproduce it",
    "a log that does not begin with reset is assumed to start from a fresh world",
)


class PartialArgumentError(ValueError):
    """A bad argument of `check_partial`; ``code`` is stable."""

    code = "trace.partial.argument"


class UnknownKind(PartialArgumentError):
    code = "trace.partial.unknown-kind"


class UnsolvableKind(PartialArgumentError):
    code = "trace.partial.unsolvable-kind"


class NegativeBound(PartialArgumentError):
    code = "trace.partial.negative-bound"


class WindowBound(PartialArgumentError):
    code = "trace.partial.window"


class RecordedHiddenKind(PartialArgumentError):
    code = "trace.partial.recorded-hidden-kind"


@dataclass(frozen=True)
class HiddenStep:
    """An unrecorded operation the explanation places after a recorded line."""

    after_line: int
    """The recorded line it follows (0 = before the first)."""
    request: dict[str, Any]
    """A PROTOCOL.md request of an unrecorded kind."""
    digest: str | None = None
    """Set when the record's digest is one the log shows but whose schema it never shows: the
    request then has no ``schema`` and the record must have this SchemaDigest."""


@dataclass(frozen=True)
class PartialVerdict:
    consistent: bool
    window: tuple[int, int] | None
    """First and last line numbers of the shortest unexplained window."""
    explanation: tuple[HiddenStep, ...] | None
    """An explaining history (when consistent and asked for)."""
    checked: int
    """Recorded lines checked."""
    limits: tuple[str, ...]
    """What this check cannot conclude, in plain words."""
    undecided: str | None = None
    """Why the check could not decide (then neither consistent nor a window)."""
    open: int = 0
    """Lines not checked: a request SPEC.md leaves open whose op neither reads nor changes the
    state (left out, as in complete mode)."""


def parse_kinds(spec: str) -> frozenset[str]:
    """``--partial`` text: comma-separated op names or the group ``catalog``."""
    out: set[str] = set()
    for item in (s.strip() for s in spec.split(",")):
        out |= set(CATALOG_GROUP) if item == "catalog" else {item}
    return frozenset(out)


def bound(unrecorded: frozenset[str], max_hidden: int | None) -> int | None:
    """The hidden-step bound in force: ``max_hidden`` when given; when not, None (any number,
    summarised) if the unrecorded kinds include every `SUMMARISED` one, else
    `DEFAULT_MAX_HIDDEN`."""
    if max_hidden is not None:
        return max_hidden
    return None if unrecorded >= SUMMARISED else DEFAULT_MAX_HIDDEN


def check_partial(
    lines: Iterable[RecordedLine],
    unrecorded: frozenset[str],
    max_hidden: int | None,
    *,
    explain: bool = False,
    window: int = WINDOW,
) -> PartialVerdict:
    """Whether at most ``max_hidden`` unrecorded operations per gap (None: `bound`) explain
    every recorded line.

    ``lines`` is read once, in order; at most about ``2 * window`` of them are held at a time
    (see `WINDOW`)."""
    for name in sorted(unrecorded):
        if name not in OP_NAMES:
            raise UnknownKind(f"unknown op {name!r} in the unrecorded kinds")
        if name not in HIDDEN_KINDS:
            raise UnsolvableKind(
                f"op {name!r} cannot be unrecorded: partial mode solves only for catalog changes "
                f"({', '.join(HIDDEN_KINDS)})"
            )
    if max_hidden is not None and (
        isinstance(max_hidden, bool) or not isinstance(max_hidden, int) or max_hidden < 0
    ):
        raise NegativeBound(
            f"the hidden-step bound must be a non-negative integer, not {max_hidden!r}"
        )
    max_hidden = bound(unrecorded, max_hidden)
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise WindowBound(f"the window must be a positive integer, not {window!r}")
    kinds = tuple(k for k in HIDDEN_KINDS if k in unrecorded)
    checker = _Checker(kinds, max_hidden, window, explain)
    scratch = World()  # answers the ops that neither read nor change the state
    left_open = 0
    for line in lines:
        op = line.request.get("op")
        if isinstance(op, str) and op in unrecorded:  # an op may be any JSON value
            raise RecordedHiddenKind(
                f"line {line.line}: op {line.request['op']!r} is recorded "
                "but was declared unrecorded"
            )
        if _stateless(op) and not _plain(line.request, 0):
            try:
                scratch.handle(line.request)
            except OutOfScope:  # its reply is open and no other line depends on it
                left_open += 1
                continue
        checker.feed(line)
    return replace(checker.finish(), open=left_open)


class _Checker:
    """Lines are fed in order and checked `window` lines behind the latest one fed (the
    lookahead a hidden record's source and runtime name are taken from); a line is dropped once
    no window can reach back to it (`window` lines back, or the latest ``reset``)."""

    def __init__(self, kinds: tuple[str, ...], k: int | None, window: int, explain: bool) -> None:
        self.kinds = kinds
        self.k = k
        self.span = window
        self.explain = explain
        self.world = World()
        self.lines: dict[int, RecordedLine] = {}
        """The lines held, by index in the partition: from ``low - 1`` to the latest fed."""
        self.snaps: dict[int, Any] = {}
        """The expected world saved before each held line from ``low`` to ``next``."""
        self.fed = 0
        self.next = 0
        """The first line not checked yet."""
        self.start = 0
        """The world's start: the latest ``reset`` checked (or the first line)."""
        self.low = 0
        """The first line a window may start at: ``start``, or ``window`` lines back."""
        self.result: PartialVerdict | None = None
        self.hidden: dict[int, list[HiddenStep]] = {}
        """The explanation's steps at lines a later repair may still replace (from ``low``)."""
        self.settled: list[HiddenStep] = []
        """The explanation's steps before ``low`` (kept only when explaining)."""
        self.schemas: dict[str, Any] = {}
        first = UNBOUNDED if k is None else LIMITS[0].format(k=k)
        self.limits = (first, LIMITS[1].format(window=window), *LIMITS[2:])
        self.shown: dict[str, deque[tuple[int, Source]]] = {}
        """The sources ``catalog_state`` replies show per tool id, by line index: a hidden
        record takes the one shown next, when its trust fits (a witness needs it verbatim)."""
        self.named: dict[str, deque[tuple[int, str]]] = {}
        """The runtime names ``resolve`` replies show per tool id, by line index."""

    def verdict(self, checked: int, **kw: Any) -> PartialVerdict:
        kw.setdefault("consistent", False)
        kw.setdefault("window", None)
        kw.setdefault("explanation", None)
        return PartialVerdict(checked=checked, limits=self.limits, **kw)

    # -- the held lines ------------------------------------------------------------------------
    def feed(self, line: RecordedLine) -> None:
        if self.result is not None:  # decided: later lines are not checked
            return
        index = self.fed
        self.fed += 1
        self.lines[index] = line
        for tool, value in _shows(line, "runtime_name"):
            self.named.setdefault(tool, deque()).append((index, value))
        for tool, source in _shows(line, "source"):
            self.shown.setdefault(tool, deque()).append((index, source))
        while self.result is None and self.next + self.span < self.fed:
            self._check_next()

    def finish(self) -> PartialVerdict:
        while self.result is None and self.next < self.fed:
            self._check_next()
        if self.result is not None:
            return self.result
        steps = None
        if self.explain:
            self.settled += [s for j in sorted(self.hidden) for s in self.hidden[j]]
            steps = tuple(self.settled)
        return self.verdict(self.fed, consistent=True, explanation=steps)

    def _forget(self, low: int) -> None:
        """Nothing before ``low`` is read again: drop it (the line before it names a gap)."""
        for j in range(self.low, low):
            self.snaps.pop(j, None)
            steps = self.hidden.pop(j, [])
            if self.explain:
                self.settled += steps
            gone = self.lines.pop(j - 1, None)
            for table in (self.shown, self.named):
                for tool, _ in _shows(gone, "source" if table is self.shown else "runtime_name"):
                    entries = table[tool]
                    entries.popleft()
                    if not entries:
                        del table[tool]
        self.low = low

    def _range(self, s: int, i: int) -> list[RecordedLine]:
        return [self.lines[j] for j in range(s, i + 1)]

    # -- checking one line -------------------------------------------------------------------
    def _check_next(self) -> None:
        i = self.next
        line = self.lines[i]
        try:
            if line.request.get("op") == "reset":  # no window reaches back past it
                self.start = i
            self._forget(max(self.low, self.start, i - self.span + 1))
            self.snaps[i] = self.world.save()
            self.next = i + 1
            if agrees(self.world.handle(line.request), line.reply):
                return
            self.world.restore(self.snaps[i])
            if self.kinds and self.k is None and self._ahead(i):  # a shortcut when summarised
                return
            status = self._repair(i) if self.kinds and self.k != 0 else "unsat"
            if status == "unsat":
                window = self._window(i)
                if window is None:
                    status = self._cut(i)
                else:
                    self.result = self.verdict(i + 1, window=window)
                    return
            if status != "sat":
                self.result = self.verdict(i + 1, undecided=status)
        except (OutOfScope, Unsupported) as err:
            self.result = self.verdict(i + 1, undecided=f"line {line.line}: {err}")

    def _ahead(self, i: int) -> bool:
        """Explain line ``i`` together with the lines after it (up to `AHEAD`, never past a
        ``reset``) in one query from the world before ``i``, or before its world's start when
        that is at most `AHEAD` lines back; adopted only if the replay reproduces them all,
        which then need no repair of their own.  A shortcut: when it
        fails, line ``i`` is repaired alone (`_repair`), which decides."""
        end = i
        while end + 1 < self.fed and end - i < AHEAD:
            if self.lines[end + 1].request.get("op") == "reset":
                break
            end += 1
        if end == i:
            return False
        s = max(self.start, self.low) if i - self.start <= AHEAD else i
        try:
            w = Window(self.kinds, self.k, self._range(s, end))
            w.exact_start(self.snaps[s])
            self._encode(w, s, end)
            status, model = w.solve()
            if status != "sat" or not self._adopt(s, end, self._read(w, model, s)):
                self.world.restore(self.snaps[i])
                return False
        except (OutOfScope, Unsupported):
            self.world.restore(self.snaps[i])
            return False
        self.next = end + 1
        return True

    def _cut(self, i: int) -> str:
        """Why line ``i`` is undecided when its world starts before the lines held."""
        return (
            f"undecided at line {self.lines[i].line}: no hidden history explains it within the "
            f"last {self.span} recorded line(s) of its partition, and its world starts earlier "
            f"(line {self.lines[self.low].line} onwards was searched; raise --window)"
        )

    # -- repair ------------------------------------------------------------------------------
    def _repair(self, i: int) -> str:
        """Re-solve a growing window ending at ``i``: ``sat`` (adopted), ``unsat`` or a reason."""
        span = 1
        while True:
            s = max(self.low, i - span + 1)
            w = Window(self.kinds, self.k, self._range(s, i))
            w.exact_start(self.snaps[s])
            self._encode(w, s, i)
            status, model = w.solve()
            if status == "unknown":
                return f"undecided at line {self.lines[i].line}: the solver gave up ({model})"
            if status == "sat":
                for _ in range(RETRIES):
                    if self._adopt(s, i, self._read(w, model, s)):
                        return "sat"
                    # the abstraction let a step stand in for one the replay needs (a bare
                    # generation bump for a change of source): ask for other step kinds
                    w.block(model)
                    status, model = w.solve()
                    if status != "sat":
                        break
                if s == self.low and s > self.start:
                    return self._cut(i)
                if s == self.start:  # models exist, none replays: a wider window cannot help
                    return (
                        f"undecided at line {self.lines[i].line}: no solver model replayed "
                        "concretely (a hidden record's source or runtime name matters)"
                    )
            elif s == self.low:
                return "unsat"  # a proof only from the world's start (`_window` tells)
            span *= 2

    def _adopt(self, s: int, i: int, steps: dict[int, list[HiddenStep]]) -> bool:
        """Replay ``[s, i]`` with ``steps``; keep it only if every reply is reproduced."""
        world = self.world
        world.restore(self.snaps[s])
        snaps = {}
        for j in range(s, i + 1):
            if j > s:
                snaps[j] = world.save()
            replayed = all(apply_hidden(world, step) for step in steps.get(j, []))
            if not replayed or not agrees(world.handle(self.lines[j].request), self.lines[j].reply):
                world.restore(self.snaps[s])
                return False
        for j in range(s, i + 1):
            self.hidden.pop(j, None)
            if steps.get(j):
                self.hidden[j] = steps[j]
            if j > s:
                self.snaps[j] = snaps[j]
        return True

    # -- the shortest unexplained window -------------------------------------------------------
    def _unexplained(self, s: int, i: int) -> bool:
        w = Window(self.kinds, self.k, self._range(s, i))
        if s == self.start:
            w.exact_start(self.snaps[s])
        else:
            w.free_start()
        self._encode(w, s, i)
        return w.solve()[0] == "unsat"

    def _encode(self, w: Window, s: int, i: int) -> None:
        for j in range(s, i + 1):
            op = self.lines[j].request.get("op")
            # a reset erases what precedes it; a summary before a line that reads neither the
            # catalog nor its generation is the next summary's part (what hidden operations
            # reach twice in a row they reach at once, and they write nothing else)
            blind = isinstance(op, str) and op in CATALOG_BLIND  # an op may be any JSON value
            if op != "reset" and (self.k is not None or not blind):
                w.hidden(j - s)
            w.recorded(self.lines[j])

    def _window(self, i: int) -> tuple[int, int] | None:
        """The shortest ``[s, i]`` that no state and hidden history explain, or None when none
        starts at a line held (``[start, i]`` is known to be one when ``start`` is held)."""
        low = self.low
        explained, length = 0, 1
        while i - length + 1 > low and not self._unexplained(i - length + 1, i):
            explained, length = length, length * 2
        if i - length + 1 <= low:
            length = i - low + 1
            if low > self.start and not self._unexplained(low, i):
                return None
        while length - explained > 1:  # explained < shortest <= length
            mid = (explained + length) // 2
            if self._unexplained(i - mid + 1, i):
                length = mid
            else:
                explained = mid
        return self.lines[i - length + 1].line, self.lines[i].line

    # -- reading a model ---------------------------------------------------------------------
    def _read(self, w: Window, model: Any, s: int) -> dict[int, list[HiddenStep]]:
        names = _Names(w, model, self.schemas, self.shown, self.named)
        out: dict[int, list[HiddenStep]] = {}
        for slot in w.slots:
            choice = model.eval(slot.choice, model_completion=True).as_long()
            if choice == 0:
                continue
            kind = w.kinds[choice - 1]
            j = s + slot.gap
            after = self.lines[j - 1].line if j > 0 else 0
            out.setdefault(j, []).append(names.step(kind, slot.args[kind], after, j))
        for summary in w.summaries:
            j = s + summary.gap
            after = self.lines[j - 1].line if j > 0 else 0
            steps = [names.step(kind, args, after, j) for kind, args in _steps(summary, model)]
            if steps:
                out.setdefault(j, []).extend(steps)
        return out


def _steps(summary: Summary, model: Any) -> list[tuple[str, dict[str, Any]]]:
    """Concrete operations, in order, that take the catalog from a summary's start to its
    model's end (`window.reachable` says why they exist): records rewritten in place, removals
    paired with additions as moves, the other additions and removals, then the generation."""

    def ev(t: Any) -> Any:
        return model.eval(t, model_completion=True)

    changed: list[tuple[Any, Any]] = []
    added: list[tuple[Any, Any]] = []
    removed: list[Any] = []
    for key, first, b, a in zip(
        summary.keys, summary.first, summary.before, summary.after, strict=True
    ):
        if not z3.is_true(ev(first)) or z3.is_true(ev(b == a)):
            continue
        has_before, has_after = z3.is_true(ev(RecOpt.is_Rec(b))), z3.is_true(ev(RecOpt.is_Rec(a)))
        if has_after:
            (changed if has_before else added).append((key, a))
        else:
            removed.append(key)

    def record(key: Any, a: Any) -> dict[str, Any]:
        return {
            "tool": key,
            "digest": RecOpt.rec_digest(a),
            "prov": RecOpt.rec_prov(a),
            "trust": RecOpt.rec_trust(a),
        }

    out: list[tuple[str, dict[str, Any]]] = []
    for key, a in changed:
        out.append(
            (
                "catalog_upsert",
                {**record(key, a), "has_replaced": z3.BoolVal(True), "replaced": key},
            )
        )
    while added and removed:
        key, a = added.pop(0)
        out.append(
            (
                "catalog_upsert",
                {**record(key, a), "has_replaced": z3.BoolVal(True), "replaced": removed.pop(0)},
            )
        )
    out += [("catalog_insert", record(key, a)) for key, a in added]
    out += [("catalog_remove", {"tool": key}) for key in removed]
    gen, target = ev(summary.gen).as_long(), ev(summary.gen_after).as_long()
    if gen + len(out) == target:
        return out
    if gen + len(out) < target:
        return [*out, ("catalog_rebase_past", {"prior": z3.IntVal(target - 1)})]
    # only the test seam sets a generation below: set it low, mutate, then set it
    return [
        ("catalog_set_generation", {"value": z3.IntVal(0)}),
        *out,
        ("catalog_set_generation", {"value": z3.IntVal(target)}),
    ]


def _shows(line: RecordedLine | None, what: str) -> Iterator[tuple[str, Any]]:
    """The runtime names a ``resolve`` reply shows, or the sources a ``catalog_state`` reply
    shows, per tool id."""
    if line is None or line.reply.get("ok") is not True:
        return
    op = line.request.get("op")
    if what == "runtime_name" and op == "resolve":
        runtime_name, tool = line.reply.get("runtime_name"), line.reply.get("tool")
        if isinstance(runtime_name, str) and isinstance(tool, str):
            yield tool, runtime_name
    elif what == "source" and op == "catalog_state":
        records = line.reply.get("records")
        for rec in records if isinstance(records, list) else []:
            source = source_of(rec.get("source")) if isinstance(rec, dict) else None
            if source is not None and isinstance(rec.get("id"), str):
                yield rec["id"], source


class _Names:
    """Concrete values for a model's terms: the log's own where equal, fresh ones otherwise."""

    def __init__(
        self,
        w: Window,
        model: Any,
        schemas: dict[str, Any],
        shown: Mapping[str, Sequence[tuple[int, Source]]],
        named: Mapping[str, Sequence[tuple[int, str]]],
    ) -> None:
        self.w, self.model, self.schemas, self.shown = w, model, schemas, shown
        self.named = named
        self.fresh: dict[tuple[str, str], Any] = {}

    def _value(self, sort: str, term: Any) -> tuple[Any, bool]:
        for value, const in self.w.u.consts[sort].items():
            if z3.is_true(self.model.eval(const == term, model_completion=True)):
                return value, True
        key = (sort, str(self.model.eval(term, model_completion=True)))
        if key not in self.fresh:  # a value no constant of the query and no other fresh one has
            taken = set(self.w.u.consts[sort]) | set(self.fresh.values())
            n = 1
            while (fresh := _fresh_value(sort, n)) in taken:
                n += 1
            if sort == "digest":
                self.schemas[fresh] = {"hidden_schema": n}
            self.fresh[key] = fresh
        return self.fresh[key], False

    def step(self, kind: str, args: dict[str, Any], after: int, index: int) -> HiddenStep:
        def ev(t: Any) -> Any:
            return self.model.eval(t, model_completion=True)

        if kind == "catalog_set_generation":
            return HiddenStep(after, {"op": kind, "value": ev(args["value"]).as_long()})
        if kind == "catalog_rebase_past":
            return HiddenStep(after, {"op": kind, "prior": ev(args["prior"]).as_long()})
        tool, _ = self._value("tool", args["tool"])
        if kind == "catalog_remove":
            return HiddenStep(after, {"op": kind, "id": tool})
        digest, _ = self._value("digest", args["digest"])
        prov, _ = self._value("prov", args["prov"])
        trust = str(ev(args["trust"]))
        request: dict[str, Any] = {"op": kind}
        if kind == "catalog_upsert":
            has = z3.is_true(ev(args["has_replaced"]))
            request["replaced"] = self._value("tool", args["replaced"])[0] if has else None
        later = [src for i, src in self.shown.get(tool, []) if i >= index]
        if later and source_trust(later[0], prov) == trust:
            source = later[0]
        else:
            source = source_for(trust, prov)
        request |= {"id": tool, "source": source.to_json(), "provenance": prov.to_json()}
        runtime_names = [name for i, name in self.named.get(tool, []) if i >= index]
        if runtime_names:
            request["runtime_name"] = runtime_names[0]
        if digest in self.schemas:
            request["schema"] = self.schemas[digest]
            return HiddenStep(after, request)
        return HiddenStep(after, request, digest)


def _fresh_value(sort: str, n: int) -> Any:
    if sort == "tool":
        return unclassified(f"hidden-{n}")
    if sort == "digest":
        return schema_digest({"hidden_schema": n})
    return Provenance("extension_manifest", f"hidden-{n}")


def source_of(reply: Any) -> Source | None:
    """A SOURCE as a reply shows it (a builtin one without its name)."""
    if agrees({"kind": "builtin"}, reply):
        return Source("builtin", "", "hidden")
    try:
        return Fields({"s": reply}).source("s")
    except (ProtocolFault, IdentityError):
        return None


def source_for(trust: str, prov: Provenance) -> Source:
    """A capability source whose SPEC.md source trust with ``prov`` is ``trust``."""
    owner_kind = {
        "extension_manifest": "extension",
        "mcp_config": "mcp",
        "plugin_config": "plugin",
    }
    if trust == "untrusted":
        source = Source("unknown", "", "hidden")
    elif trust == "trusted" and prov.kind == "builtin_runtime":
        source = Source("builtin", "", "hidden")
    elif trust == "trusted":
        source = Source(owner_kind[prov.kind], prov.owner, "hidden")
    else:
        source = Source("extension" if prov.kind == "builtin_runtime" else "builtin", "x", "hidden")
    assert source_trust(source, prov) == trust, (trust, prov)
    return source


def apply_hidden(world: World, step: HiddenStep) -> bool:
    """Run a hidden step in the expected world; whether it succeeded.  A step without a schema
    (`HiddenStep.digest`) goes to the oracle with that digest, the record's source and runtime
    name kept as the world keeps them."""
    if step.digest is None:
        return world.handle(step.request).get("ok") is True
    f = Fields(step.request)
    replaced = f.nullable_tool("replaced") if step.request["op"] == "catalog_upsert" else None
    source, prov, tool = f.source("source"), f.provenance("provenance"), f.tool("id")
    if step.request["op"] == "catalog_upsert":
        code, _ = world.oracle.catalog_upsert(replaced, tool, step.digest, source, prov)
    else:
        code, _ = world.oracle.catalog_insert(tool, step.digest, source, prov)
    if code != "ok":
        return False
    world.records[tool] = RecordInfo(source, step.request.get("runtime_name", tool))
    present = world.observe()["records"]
    world.records = {t: info for t, info in world.records.items() if t in present}
    return True
