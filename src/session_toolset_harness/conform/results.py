"""The typed outcome of a run, shared by the console, JSON, JUnit and coverage renderers."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum


class Status(str, Enum):
    """Per-vector status. ``errored`` means no trustworthy reply (crash, timeout, bad file...)."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    ERRORED = "errored"


@dataclass(frozen=True)
class StepFailure:
    """What went wrong at one step: enough to reproduce it by hand."""

    index: int
    request: object
    expected: object
    reply: object | None
    path: str | None
    message: str
    raw_reply: str | None = None
    stderr_tail: str = ""


@dataclass(frozen=True)
class Hit:
    """One step's (op, outcome) observation, for coverage: outcome is ``ok`` or the error code."""

    op: str
    outcome: str


@dataclass(frozen=True)
class VectorResult:
    """The outcome of one vector (or of one file that could not be used as a vector)."""

    id: str
    path: str
    status: Status
    seconds: float = 0.0
    reason: str = ""
    failure: StepFailure | None = None
    hits: tuple[Hit, ...] = ()
    steps_run: int = 0
    skip_reason: str | None = None  # the skip-file reason when a skip entry matched
    stale_skip: bool = False
    file_problem: bool = False  # the vector file itself is unusable


@dataclass(frozen=True)
class RunResult:
    """All vector results plus problems that belong to no single vector."""

    adapter: tuple[str, ...]
    results: tuple[VectorResult, ...]
    seconds: float
    adapter_problems: tuple[str, ...] = field(default=())
    stopped: str | None = None  # why the run ended before its last vector (None: it did not)
    signal: int | None = None  # the signal (SIGINT, SIGTERM) that interrupted the run

    @property
    def complete(self) -> bool:
        return self.stopped is None

    def counts(self) -> Counter[Status]:
        return Counter(r.status for r in self.results)

    @property
    def bad(self) -> list[VectorResult]:
        """The failed and errored results."""
        return [r for r in self.results if r.status in (Status.FAILED, Status.ERRORED)]

    @property
    def requests(self) -> int:
        return sum(r.steps_run for r in self.results)

    @property
    def ok(self) -> bool:
        """True when nothing unexpected happened: the only condition for exit status 0."""
        counts = self.counts()
        return (
            counts[Status.FAILED] == 0
            and counts[Status.ERRORED] == 0
            and not self.adapter_problems
            and self.complete
        )


def summary_line(run: RunResult) -> str:
    """The one summary line CI parses; keep 'N passed, N failed' first and in this order."""
    stopped = "" if run.stopped is None else f" (incomplete: {run.stopped})"
    return f"{tally(run)} in {run.seconds:.2f} s{stopped}"


def tally(run: RunResult) -> str:
    """``N passed, N failed, N skipped, N errored``."""
    counts = run.counts()
    return ", ".join(f"{counts[status]} {status.value}" for status in Status)
