"""Spec-level condition coverage (MC/DC) of the model's transitions, recorded by the concrete
interpretation.

`RecordingAlgebra` is the concrete algebra plus a `ConditionTable`.  Every decision the
transitions take through the algebra is recorded under its *site* (the module, function and line
of the transition that wrote it):

* a check list (`algebra.first_failure` / `chain`: SPEC.md's "validates in this order") - its
  conditions are the checks; a check is *seen true* and *seen false* only when it is reached
  (every earlier check passed), and it *decides* when it is reached and fails;
* a conjunction or disjunction (`and_` / `or_` with two or more operands, e.g. the rebuild's
  carry condition) - each operand is seen true and false, and decides (unique-cause MC/DC) when
  an evaluation had it alone flipped against the all-true (all-false for `or_`) evaluation, both
  seen;
* an ``ite`` outside a check list - its condition seen true and seen false (a single condition
  decides whenever both were seen).

The concrete interpretation evaluates both branches of every ``ite`` eagerly (see `algebra`), so
a decision inside an unselected branch is recorded too: the table is a statement about the
conditions the definition evaluated, which over-approximates the conditions a run "needed".
Two exceptions keep junk out of the table: a value written `algebra.when` or `algebra.guarded`
(it reads an option only meaningful when present) is recorded only while its guard holds, and a
map update visits only its candidate keys.  The Z3 side (`session_toolset_proofs.conditions`)
takes both as premises, so a listed-unreachable outcome's proof states what the recording does.
"""

from __future__ import annotations

import linecache
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from .concrete import ConcreteAlgebra, _truth
from .oracle import concrete_algebra

Term = Any
_HELPERS: Final = frozenset({"algebra.py", "concrete.py", "conditions.py", "state.py"})
OUTCOMES: Final = ("true", "false", "decides")


def outcomes_of(kind: str) -> tuple[str, ...]:
    """The condition outcomes of a decision kind: MC/DC's "decides alone" only for and/or (a
    reached check decides exactly when it is true; a lone ite condition whenever it varies)."""
    return OUTCOMES if kind in ("and", "or") else OUTCOMES[:2]


@dataclass
class Decision:
    site: str
    kind: str
    labels: tuple[str, ...]
    seen: dict[tuple[int, str], int] = field(default_factory=dict)
    vectors: set[tuple[bool, ...]] = field(default_factory=set)

    def hit(self, index: int, outcome: str) -> None:
        key = (index, outcome)
        self.seen[key] = self.seen.get(key, 0) + 1

    def covered(self) -> set[tuple[int, str]]:
        """(condition index, outcome) pairs covered, MC/DC pairs resolved from the vectors."""
        done = {k for k, n in self.seen.items() if n}
        if self.kind in ("and", "or"):
            base = self.kind == "and"
            reference = (base,) * len(self.labels)
            if reference in self.vectors:
                for i in range(len(self.labels)):
                    flipped = tuple(not base if j == i else base for j in range(len(self.labels)))
                    if flipped in self.vectors:
                        done.add((i, "decides"))
        if self.kind == "ite" and {(0, "true"), (0, "false")} <= done:
            done.add((0, "decides"))
        return done


@dataclass
class ConditionTable:
    decisions: dict[tuple[str, str, int], Decision] = field(default_factory=dict)

    def decision(self, site: str, kind: str, labels: tuple[str, ...]) -> Decision:
        key = (site, kind, len(labels))
        found = self.decisions.get(key)
        if found is None:
            found = self.decisions[key] = Decision(site, kind, labels)
        return found

    def merge(self, other: ConditionTable) -> None:
        for d in other.decisions.values():
            mine = self.decision(d.site, d.kind, d.labels)
            for k, n in d.seen.items():
                mine.seen[k] = mine.seen.get(k, 0) + n
            mine.vectors |= d.vectors

    def outcomes(self) -> list[tuple[Decision, int, str, bool]]:
        """Every condition outcome: (decision, condition index, outcome, covered)."""
        rows = []
        for d in sorted(self.decisions.values(), key=lambda d: (d.site, d.kind)):
            covered = d.covered()
            for i in range(len(d.labels)):
                for outcome in outcomes_of(d.kind):
                    rows.append((d, i, outcome, (i, outcome) in covered))
        return rows

    def summary(self, unreachable: Iterable[str] = ()) -> tuple[int, int, int]:
        """(covered, reachable, proved unreachable) condition outcomes."""
        proved = set(unreachable)
        rows = self.outcomes()
        out = sum(1 for d, i, o, c in rows if not c and outcome_key(d, i, o) in proved)
        covered = sum(1 for *_, c in rows if c)
        return covered, len(rows) - out, out

    def missing(self, unreachable: Iterable[str] = ()) -> list[str]:
        proved = set(unreachable)
        return [
            outcome_key(d, i, o)
            for d, i, o, c in self.outcomes()
            if not c and outcome_key(d, i, o) not in proved
        ]


_SITES: dict[tuple[str, int], str] = {}
_NAMES: dict[str, str] = {}


def _file_name(filename: str) -> str:
    """``Path(filename).name``, memoized: asked at every recorded decision (explore's hot path)."""
    name = _NAMES.get(filename)
    if name is None:
        name = _NAMES[filename] = Path(filename).name
    return name


def _site() -> str:
    """The transition line that wrote the decision (helpers' frames skipped), named by its
    module, function and source text - stable when other lines of the model move."""
    frame = sys._getframe(2)
    while frame is not None and _file_name(frame.f_code.co_filename) in _HELPERS:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return "?"
    code = frame.f_code
    where = (code.co_filename, frame.f_lineno)
    name = _SITES.get(where)
    if name is None:
        text = " ".join(linecache.getline(code.co_filename, frame.f_lineno).split())
        name = _SITES[where] = f"{Path(code.co_filename).stem}.{code.co_name}: {text}"
    return name


class RecordingAlgebra(ConcreteAlgebra):
    """The concrete interpretation, recording every decision into ``table``."""

    def __init__(self, table: ConditionTable) -> None:
        base = concrete_algebra()
        super().__init__(base._unverified, base._progressive)
        self.table = table
        self._guards: list[bool] = []
        self._off = 0
        """How many enclosing `algebra.when` guards are false: nothing is recorded then."""

    def enter_guard(self, cond: Term) -> None:
        held = _truth(cond)
        self._guards.append(held)
        self._off += not held

    def exit_guard(self) -> None:
        self._off -= not self._guards.pop()

    def _junction(self, kind: str, xs: Iterable[Term]) -> None:
        values = tuple(_truth(x) for x in xs)
        if len(values) < 2:
            return
        d = self.table.decision(
            _site(), kind, tuple(f"operand {i + 1}" for i in range(len(values)))
        )
        if self._off:  # the decision exists; this evaluation is on junk
            return
        d.vectors.add(values)
        for i, v in enumerate(values):
            d.hit(i, "true" if v else "false")

    def and_(self, *xs: Term) -> Term:
        self._junction("and", xs)
        return super().and_(*xs)

    def or_(self, *xs: Term) -> Term:
        self._junction("or", xs)
        return super().or_(*xs)

    def ite(self, c: Term, a: Term, b: Term) -> Term:
        caller = sys._getframe(1).f_code
        in_chain = caller.co_name == "chain" and _file_name(caller.co_filename) == "algebra.py"
        if not in_chain:
            d = self.table.decision(_site(), "ite", ("condition",))
            if not self._off:
                d.hit(0, "true" if _truth(c) else "false")
        return super().ite(c, a, b)

    def note_checks(self, conds: tuple[Term, ...], labels: tuple[str, ...]) -> None:
        d = self.table.decision(_site(), "checks", labels)
        if self._off:
            return
        for i, c in enumerate(conds):
            if _truth(c):
                d.hit(i, "true")
                return
            d.hit(i, "false")


def recording(table: ConditionTable) -> Callable[[], RecordingAlgebra]:
    return lambda: RecordingAlgebra(table)


def outcome_key(d: Decision, index: int, outcome: str) -> str:
    """A stable, readable name of one condition outcome."""
    return f"{d.site} | {d.kind} #{index + 1} {d.labels[index]} | {outcome}"


def format_table(table: ConditionTable, unreachable: Iterable[str] = ()) -> str:
    """One line per condition: T (seen true), F (seen false), D (decided alone: and/or only);
    ``x`` covered, ``.`` missing, ``u`` proved unreachable, ``-`` not an outcome of the kind."""
    proved = set(unreachable)
    lines = [f"{'decision (module.function: source line)':60} {'kind':6} {'condition':34} T F D"]
    for d in sorted(table.decisions.values(), key=lambda d: (d.site, d.kind)):
        covered = d.covered()
        for i, label in enumerate(d.labels):
            cells = []
            for outcome in OUTCOMES:
                if outcome not in outcomes_of(d.kind):
                    cells.append("-")
                elif (i, outcome) in covered:
                    cells.append("x")
                else:
                    cells.append("u" if outcome_key(d, i, outcome) in proved else ".")
            lines.append(f"{d.site[:60]:60} {d.kind:6} {label[:34]:34} {' '.join(cells)}")
    return "\n".join(lines)
