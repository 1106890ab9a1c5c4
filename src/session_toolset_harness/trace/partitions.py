"""A run's partitions in memory bounded by a constant, however many a log holds.

A log with one ``stream`` per runtime session has as many partitions as sessions, so neither
their expected worlds nor their results can all stay in memory.  `Partitions` keeps at most
`LIVE` partitions of a file live (the most recently used ones); the others are spilled to a
temporary SQLite file and reloaded, exactly as they were, when their stream appears again.
`Results` keeps the finished partitions' results the same way: up to `KEPT` in memory, all of
them on disk beyond that, listed in log order (file, then first line).  The file is created
only when a bound is exceeded (a log of few partitions never touches the disk) and removed when
its owner is closed or collected, or the process exits.  Partial mode files every line of a
run there by partition (`partial_run`), for its workers to stream.
"""

from __future__ import annotations

import pickle
import shutil
import sqlite3
import tempfile
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from session_toolset_model.world import World

from .complete import Counts, Partition

LIVE: Final = 64
"""Partitions of a file kept live per process (the others are spilled)."""
KEPT: Final = 256
"""Partition results kept in memory before they all go to disk."""

_SCHEMA: Final = """
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA temp_store = FILE;
PRAGMA cache_size = -1024;
CREATE TABLE spilled (
    fileno INTEGER, key TEXT, state BLOB,
    stream TEXT, first INTEGER, found INTEGER,
    lines INTEGER, checked INTEGER, before_reset INTEGER, open INTEGER,
    PRIMARY KEY (fileno, key)
);
CREATE TABLE results (fileno INTEGER, first INTEGER, result BLOB);
CREATE INDEX results_order ON results (fileno, first);
CREATE TABLE parts (
    part INTEGER PRIMARY KEY, fileno INTEGER, key TEXT, stream TEXT, first INTEGER,
    UNIQUE (fileno, key)
);
CREATE TABLE lines (part INTEGER, line INTEGER, entry BLOB);
CREATE INDEX lines_of_part ON lines (part, line);
"""


@dataclass(frozen=True)
class PartitionResult:
    file: str
    stream: str | None
    counts: Counts
    violations: int
    fileno: int = 0
    """The position of ``file`` among the logs of the run."""
    first: int = 0
    """The partition's first line."""


def result_of(part: Partition, fileno: int) -> PartitionResult:
    return PartitionResult(part.file, part.stream, part.counts, part.found, fileno, part.first)


def key_of(stream: str | None) -> str:
    return "" if stream is None else "=" + stream


def _remove(db: sqlite3.Connection, folder: str) -> None:
    db.close()
    shutil.rmtree(folder, ignore_errors=True)


class Spill:
    """A temporary SQLite file, created at first use; removed by `close`, or when the object is
    collected or the process exits."""

    def __init__(self) -> None:
        self._db: sqlite3.Connection | None = None
        self._finalizer: weakref.finalize[..., Spill] | None = None

    @property
    def path(self) -> Path:
        """The file (created by this call if it was not)."""
        return Path(self.db.execute("PRAGMA database_list").fetchone()[2])

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            folder = tempfile.mkdtemp(prefix="session-toolset-trace-")
            db = sqlite3.connect(Path(folder) / "partitions.sqlite", isolation_level=None)
            db.executescript(_SCHEMA)
            self._db = db
            self._finalizer = weakref.finalize(self, _remove, db, folder)
        return self._db

    def close(self) -> None:
        if self._finalizer is not None:
            self._finalizer()
        self._db = self._finalizer = None


class Partitions:
    """One file's partitions: `get` the one a line belongs to, `close` them at the file's end.
    At most `LIVE` are in memory; `spill` holds the others."""

    def __init__(self, file: str, fileno: int, spill: Spill) -> None:
        self.file, self.fileno, self.spill, self.capacity = file, fileno, spill, LIVE
        self.live: dict[str | None, Partition] = {}
        self.spilled = 0
        self.spare: World | None = None
        """The world of the partition spilled last, for the next one to reuse: a world holds
        a reference cycle, so one dropped at every spill would pile up until the collector
        runs."""

    def get(self, stream: str | None, line: int) -> Partition:
        """The partition of ``stream`` (new, starting at ``line``, if it never appeared)."""
        part = self.live.pop(stream, None)
        if part is None:
            part = self._reload(stream) if self.spilled else None
            if part is None:
                part = Partition(self.file, stream, line, self._spare())
            if len(self.live) >= self.capacity:
                self._evict()
        self.live[stream] = part  # the most recently used last
        return part

    def _evict(self) -> None:
        oldest = self.live.pop(next(iter(self.live)))
        state = pickle.dumps(oldest.state(), pickle.HIGHEST_PROTOCOL)
        c = oldest.counts
        self.spill.db.execute(
            "INSERT INTO spilled VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                *(self.fileno, key_of(oldest.stream), state, oldest.stream, oldest.first),
                *(oldest.found, c.lines, c.checked, c.before_reset, c.open),
            ),
        )
        self.spilled += 1
        self.spare = oldest.release()

    def _spare(self) -> World | None:
        spare, self.spare = self.spare, None
        return spare

    def _reload(self, stream: str | None) -> Partition | None:
        where = (self.fileno, key_of(stream))
        db = self.spill.db
        row = db.execute("SELECT state FROM spilled WHERE fileno = ? AND key = ?", where).fetchone()
        if row is None:
            return None
        db.execute("DELETE FROM spilled WHERE fileno = ? AND key = ?", where)
        self.spilled -= 1
        return Partition.restored(self.file, pickle.loads(row[0]), self._spare())

    def close(self) -> Iterator[PartitionResult]:
        """Every partition's result (in no particular order); none is kept after."""
        for part in self.live.values():
            yield result_of(part, self.fileno)
        self.live = {}
        if self.spilled:
            db = self.spill.db
            rows = db.execute(
                "SELECT stream, first, found, lines, checked, before_reset, open FROM spilled "
                "WHERE fileno = ?",
                (self.fileno,),
            )
            for stream, first, found, *counts in rows:
                yield PartitionResult(self.file, stream, Counts(*counts), found, self.fileno, first)
            db.execute("DELETE FROM spilled WHERE fileno = ?", (self.fileno,))
            self.spilled = 0


class Results:
    """The partitions' results of a run, listed in log order (file, then first line)."""

    def __init__(self) -> None:
        self.kept: list[PartitionResult] = []
        self.capacity = KEPT
        self.stored = 0
        self.spill = Spill()

    def append(self, result: PartitionResult) -> None:
        self.kept.append(result)
        if len(self.kept) > self.capacity:
            self._store()

    def _store(self) -> None:
        self.spill.db.executemany(
            "INSERT INTO results VALUES (?, ?, ?)",
            [(r.fileno, r.first, pickle.dumps(r, pickle.HIGHEST_PROTOCOL)) for r in self.kept],
        )
        self.stored += len(self.kept)
        self.kept = []

    def __len__(self) -> int:
        return self.stored + len(self.kept)

    def __iter__(self) -> Iterator[PartitionResult]:
        if not self.stored:
            yield from sorted(self.kept, key=lambda r: (r.fileno, r.first))
            return
        self._store()
        rows = self.spill.db.execute("SELECT result FROM results ORDER BY fileno, first")
        for (result,) in rows:
            yield pickle.loads(result)
