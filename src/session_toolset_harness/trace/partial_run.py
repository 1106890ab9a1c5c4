"""``--partial``: a run's partitions checked by `partial.check_partial` in ``--jobs N`` worker
processes (one with ``--jobs 1``: in this process Z3 would take Ctrl-C for itself and only
cancel a query).

Partial mode re-reads windows of a partition's lines, so each partition's lines are held in
memory (every log is read first, then the partitions are checked in the order they first
appear).  A line of a kind declared unrecorded is unusable input, found while reading.  Without
``--keep-going`` the run stops at the first partition that no hidden history explains (in
partition order, also with ``--jobs``); an undecided partition does not stop it.  Ctrl-C or
SIGTERM stops it with the partitions checked so far; worker processes never outlive it.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Iterator, Sequence
from typing import IO, Any

from . import logline
from .complete import Counts
from .logline import LogLineError, RecordedLine
from .partial import PartialVerdict, check_partial
from .partitions import PartitionResult
from .run import (
    Explanation,
    Interrupted,
    PartialSettings,
    Progress,
    TraceResult,
    Undecided,
    Unexplained,
)

Task = tuple[int, str, str | None, list[RecordedLine]]
"""A partition: the position of its log among the logs, the log, its stream and its lines."""


def read_partitions(names: Sequence[str], stdin: IO[str], unrecorded: frozenset[str]) -> list[Task]:
    """Every partition of every log, its lines in log order; `LogLineError` for unusable input
    (also a recorded line of a kind declared unrecorded)."""
    tasks: list[Task] = []
    for fileno, name in enumerate(names):
        parts: dict[str | None, list[RecordedLine]] = {}
        source = logline.open_log(name, stdin)
        try:
            for stream, recorded in logline.read(source, name):
                op = recorded.request.get("op")
                if isinstance(op, str) and op in unrecorded:
                    raise LogLineError(
                        f"{name}:{recorded.line}: op {op!r} is recorded but --partial declares "
                        "it unrecorded"
                    )
                parts.setdefault(stream, []).append(recorded)
        finally:
            if source is not stdin:
                source.close()
        tasks += [(fileno, name, stream, lines) for stream, lines in parts.items()]
    return tasks


def _solve(job: tuple[Task, PartialSettings]) -> PartialVerdict:
    (_, _, _, lines), settings = job
    return check_partial(
        lines, frozenset(settings.unrecorded), settings.max_hidden, explain=settings.explain
    )


def _quiet_worker() -> None:
    """The parent decides: it ignores nothing, workers ignore Ctrl-C and end silently when the
    parent terminates them (not with the parent's SIGTERM handler, inherited by the fork)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _verdicts(tasks: list[Task], settings: PartialSettings, jobs: int) -> Iterator[PartialVerdict]:
    """The partitions' verdicts, in order, solved in worker processes."""
    if not tasks:
        return
    pool = multiprocessing.get_context("fork").Pool(min(jobs, len(tasks)), _quiet_worker)
    try:
        yield from pool.imap(_solve, [(task, settings) for task in tasks])
    finally:  # also when the caller stops early or is interrupted
        pool.terminate()
        pool.join()


def check_partitions(
    names: Sequence[str],
    stdin: IO[str],
    settings: PartialSettings,
    *,
    jobs: int,
    keep_going: bool,
    progress: Progress | None = None,
) -> TraceResult:
    """Check every partition of the logs in partial mode; `LogLineError` for unusable input."""
    result = TraceResult(list(names), partial=settings)
    started = time.monotonic()
    try:
        tasks = read_partitions(names, stdin, frozenset(settings.unrecorded))
        result.lines_read = sum(len(task[3]) for task in tasks)
        verdicts = _verdicts(tasks, settings, jobs)
        try:
            for task, verdict in zip(tasks, verdicts, strict=False):
                _add(result, task, verdict)
                if progress is not None:
                    progress(result.counts.lines, len(result.violations))
                if result.violations and not keep_going:
                    result.stopped = len(result.partitions) < len(tasks)
                    break
        finally:
            close = getattr(verdicts, "close", None)
            if close is not None:
                close()
    except KeyboardInterrupt:
        result.interrupted = signal.SIGINT
    except Interrupted as why:
        result.interrupted = why.signum
    result.seconds = time.monotonic() - started
    return result


def _add(result: TraceResult, task: Task, verdict: PartialVerdict) -> None:
    fileno, file, stream, lines = task
    found = 0
    if verdict.window is not None:
        first, last = verdict.window
        at = next(x for x in lines if x.line == last)
        op = at.request.get("op")
        result.violations.append(
            Unexplained(file, last, stream, op if isinstance(op, str) else "?", first, at.reply)
        )
        found = 1
    elif verdict.undecided is not None:
        result.undecided.append(Undecided(file, stream, verdict.undecided))
    elif verdict.explanation is not None:
        steps: list[dict[str, Any]] = []
        for step in verdict.explanation:
            shown: dict[str, Any] = {"after_line": step.after_line, "request": step.request}
            if step.digest is not None:
                shown["digest"] = step.digest
            steps.append(shown)
        result.explanations.append(Explanation(file, stream, tuple(steps)))
    counts = Counts(lines=len(lines), checked=verdict.checked)
    result.add_partition(PartitionResult(file, stream, counts, found, fileno, lines[0].line))
