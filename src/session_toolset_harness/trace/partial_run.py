"""``--partial``: a run's partitions checked by `partial.check_partial` in ``--jobs N`` worker
processes (one with ``--jobs 1``: in this process Z3 would take Ctrl-C for itself and only
cancel a query).

Every log is read first, its lines filed by partition in a temporary SQLite file
(`partitions.Spill`), then the partitions are checked in the order they first appear, each
worker streaming its partition's lines from the file: memory holds a partition's window
(`run.WINDOW`), not the log.  A line of a kind declared unrecorded is unusable input,
found while reading.  Without ``--keep-going`` the run stops at the first partition that no
hidden history explains (in partition order, also with ``--jobs``); an undecided partition
does not stop it.  Ctrl-C or SIGTERM stops it with the partitions checked so far; worker
processes never outlive it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import pickle
import signal
import sqlite3
import time
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Final

from . import logline
from .complete import Counts, strict_violation
from .logline import LogLineError, RecordedLine
from .partial import PartialVerdict, check_partial
from .partitions import LIVE, PartitionResult, Spill, key_of
from .run import (
    Explanation,
    Interrupted,
    PartialSettings,
    Progress,
    TraceResult,
    Undecided,
    Unexplained,
)

Part = tuple[int, int, str | None, int]
"""A partition: its number (in order of first appearance), the position of its log among the
logs, its stream and its first line."""

CHUNK: Final = 256
"""Partitions handed to the workers at a time."""
_BATCH: Final = 512


def _dump(line: RecordedLine) -> bytes:
    return pickle.dumps(line, pickle.HIGHEST_PROTOCOL)


def read_partitions(
    names: Sequence[str],
    stdin: IO[str],
    unrecorded: frozenset[str],
    spill: Spill,
    result: TraceResult | None = None,
) -> int:
    """File every line of every log under its partition in ``spill``; the lines read.
    `LogLineError` for unusable input (also a recorded line of a kind declared unrecorded)."""
    db = spill.db
    count = 0
    parts = 0
    for fileno, name in enumerate(names):
        recent: dict[str | None, int] = {}  # the partitions of the latest streams seen
        rows: list[tuple[int, int, bytes]] = []
        source = logline.open_log(name, stdin)
        try:
            for stream, recorded in logline.read(source, name):
                op = recorded.request.get("op")
                if isinstance(op, str) and op in unrecorded:
                    raise LogLineError(
                        f"{name}:{recorded.line}: op {op!r} is recorded but --partial declares "
                        "it unrecorded"
                    )
                part = recent.pop(stream, None)
                if part is None:
                    row = db.execute(
                        "SELECT part FROM parts WHERE fileno = ? AND key = ?",
                        (fileno, key_of(stream)),
                    ).fetchone()
                    if row is None:
                        part, parts = parts, parts + 1
                        db.execute(
                            "INSERT INTO parts VALUES (?, ?, ?, ?, ?)",
                            (part, fileno, key_of(stream), stream, recorded.line),
                        )
                    else:
                        part = row[0]
                    if len(recent) >= LIVE:
                        recent.pop(next(iter(recent)))
                recent[stream] = part
                if result is not None and result.strict_replies:
                    violation = strict_violation(name, stream, recorded)
                    if violation is not None:
                        result.violations.append(violation)
                rows.append((part, recorded.line, _dump(recorded)))
                count += 1
                if len(rows) >= _BATCH:
                    _store(db, rows)
        finally:
            if source is not stdin:
                source.close()
        _store(db, rows)
    return count


def _store(db: sqlite3.Connection, rows: list[tuple[int, int, bytes]]) -> None:
    db.executemany("INSERT INTO lines VALUES (?, ?, ?)", rows)
    rows.clear()


def _lines(path: Path, part: int) -> Iterator[RecordedLine]:
    """A partition's lines from the run's file, one at a time (a connection of this process:
    workers are forked)."""
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as db:
        rows = db.execute("SELECT entry FROM lines WHERE part = ? ORDER BY line", (part,))
        for (entry,) in rows:
            yield pickle.loads(entry)


def _solve(job: tuple[Part, PartialSettings, Path]) -> tuple[PartialVerdict, int]:
    """A partition's verdict and its number of lines."""
    (part, _, _, _), settings, path = job
    count = 0

    def counted() -> Iterator[RecordedLine]:
        nonlocal count
        for line in _lines(path, part):
            count += 1
            yield line

    verdict = check_partial(
        counted(),
        frozenset(settings.unrecorded),
        settings.max_hidden,
        explain=settings.explain,
        window=settings.window,
    )
    return verdict, count


def _quiet_worker() -> None:
    """The parent decides: it ignores nothing, workers ignore Ctrl-C and end silently when the
    parent terminates them (not with the parent's SIGTERM handler, inherited by the fork)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _parts(db: sqlite3.Connection, after: int) -> list[Part]:
    rows = db.execute(
        "SELECT part, fileno, stream, first FROM parts WHERE part > ? ORDER BY part LIMIT ?",
        (after, CHUNK),
    )
    return [(part, fileno, stream, first) for part, fileno, stream, first in rows]


def _verdicts(
    spill: Spill, settings: PartialSettings, jobs: int
) -> Generator[tuple[Part, tuple[PartialVerdict, int]], None, None]:
    """The partitions with their verdicts and lengths, in order, solved in worker processes."""
    db, path = spill.db, spill.path
    chunk = _parts(db, -1)
    if not chunk:
        return
    pool = multiprocessing.get_context("fork").Pool(min(jobs, len(chunk)), _quiet_worker)
    try:
        while chunk:
            yield from zip(
                chunk, pool.imap(_solve, [(p, settings, path) for p in chunk]), strict=True
            )
            chunk = _parts(db, chunk[-1][0])
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
    strict_replies: bool = False,
) -> TraceResult:
    """Check every partition of the logs in partial mode; `LogLineError` for unusable input."""
    result = TraceResult(list(names), partial=settings, strict_replies=strict_replies)
    started = time.monotonic()
    spill = Spill()
    try:
        result.lines_read = read_partitions(
            names, stdin, frozenset(settings.unrecorded), spill, result
        )
        if result.violations and not keep_going:  # a strict reply check failed: no solving
            result.stopped = True
            return result
        total = spill.db.execute("SELECT count(*) FROM parts").fetchone()[0]
        verdicts = _verdicts(spill, settings, jobs)
        try:
            for part, (verdict, count) in verdicts:
                _add(result, spill, part, verdict, count)
                if progress is not None:
                    progress(result.counts.lines, len(result.violations))
                if result.violations and not keep_going:
                    result.stopped = len(result.partitions) < total
                    break
        finally:
            verdicts.close()
    except KeyboardInterrupt:
        result.interrupted = signal.SIGINT
    except Interrupted as why:
        result.interrupted = why.signum
    finally:
        spill.close()
    result.seconds = time.monotonic() - started
    return result


def _add(
    result: TraceResult, spill: Spill, part: Part, verdict: PartialVerdict, count: int
) -> None:
    number, fileno, stream, first_line = part
    file = result.files[fileno]
    found = 0
    if verdict.window is not None:
        first, last = verdict.window
        (entry,) = spill.db.execute(
            "SELECT entry FROM lines WHERE part = ? AND line = ?", (number, last)
        ).fetchone()
        at: RecordedLine = pickle.loads(entry)
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
    counts = Counts(lines=count, checked=verdict.checked, open=verdict.open)
    result.add_partition(PartitionResult(file, stream, counts, found, fileno, first_line))
