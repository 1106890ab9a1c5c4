"""Checking logs line by line: partitions, the first violation or all of them, the result.

Memory is constant in a log's length: one line is held at a time, at most `partitions.LIVE`
expected worlds and `partitions.KEPT` partition results (the others wait in a temporary file),
and the violations reported.  A partition is one ``stream`` value of one file (lines without
``stream`` form the file's unnamed partition); each starts from its own ``reset``.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from . import logline
from .complete import Counts, Violation, strict_violation
from .partitions import PartitionResult, Partitions, Results, Spill

Progress = Callable[[int, int], None]
"""Called now and then with the lines read so far and the violations found."""
PROGRESS_EVERY = 4096


class Interrupted(BaseException):
    """SIGTERM (or Ctrl-C) while checking: stop, report what was checked (exit 128 + signal)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@dataclass(frozen=True)
class Unexplained:
    """Partial mode's violation: the shortest window of a partition's recorded lines that no
    hidden history within the bound explains, ending at the first line none explains."""

    file: str
    line: int
    """The window's last line: the first line of the partition that nothing explains."""
    stream: str | None
    op: str
    first_line: int
    """The window's first line."""
    observed: dict[str, Any]
    """The reply recorded at ``line``."""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Undecided:
    """A partition partial mode could not decide (the solver gave up, or a request it cannot
    model): neither consistent nor a violation."""

    file: str
    stream: str | None
    reason: str


@dataclass(frozen=True)
class Explanation:
    """An explaining history of a consistent partition (``--explain``): each step is an
    unrecorded request placed after a recorded line (0: before the first)."""

    file: str
    stream: str | None
    steps: tuple[dict[str, Any], ...]
    """``{"after_line": N, "request": {...}}``, plus ``"digest"`` when the log shows the
    record's digest but never its schema (the request then carries no ``schema``)."""


WINDOW = 1000
"""``--window``'s default: how far back partial mode's repair or unexplained window may reach
within a world (a ``reset`` ends any window anyway), and how far ahead a hidden record's source
and runtime name are looked up.  A partition's check holds about twice this many lines."""


@dataclass(frozen=True)
class PartialSettings:
    """``--partial KINDS --max-hidden K``: what the log left out, the bound, and what a check
    under them cannot conclude."""

    unrecorded: tuple[str, ...]
    max_hidden: int | None
    """None: any number per gap (`partial.bound`)."""
    limits: tuple[str, ...]
    explain: bool = False
    window: int = WINDOW


@dataclass
class TraceResult:
    """What a run checked and found; ``interrupted`` is the signal that stopped it, if any."""

    files: list[str]
    partitions: Results = field(default_factory=Results)
    violations: list[Violation | Unexplained] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)
    interrupted: int | None = None
    stopped: bool = False
    """Stopped at the first violation (no ``--keep-going``): later lines (complete mode) or
    partitions (partial mode) were not checked."""
    seconds: float = 0.0
    lines_read: int = 0
    partial: PartialSettings | None = None
    """Set in partial mode."""
    undecided: list[Undecided] = field(default_factory=list)
    explanations: list[Explanation] = field(default_factory=list)
    strict_replies: bool = False
    """``--strict-replies``: a reply breaking PROTOCOL.md's reply schema is a violation."""
    unreadable: str | None = None
    """The unusable input that ended the run (`logline.LogLineError`'s message, naming the file
    and line): the lines before it were checked, nothing after it."""

    @property
    def ok(self) -> bool:
        return (
            not self.violations
            and not self.undecided
            and self.interrupted is None
            and self.unreadable is None
        )

    def add_partition(self, part: PartitionResult) -> None:
        self.partitions.append(part)
        self.counts.add(part.counts)


def check_logs(
    names: Sequence[str],
    stdin: IO[str],
    *,
    keep_going: bool,
    progress: Progress | None = None,
    strict_replies: bool = False,
) -> TraceResult:
    """Check every log in turn in this process, up to the first unusable line if any
    (``unreadable``)."""
    result = TraceResult(list(names), strict_replies=strict_replies)
    started = time.monotonic()
    spill = Spill()
    try:
        for fileno, name in enumerate(names):
            _check_file(Partitions(name, fileno, spill), stdin, keep_going, result, progress)
            if result.stopped:
                break
    except logline.LogLineError as err:
        result.unreadable = str(err)
    except KeyboardInterrupt:
        result.interrupted = signal.SIGINT
    except Interrupted as why:
        result.interrupted = why.signum
    finally:
        spill.close()
    result.seconds = time.monotonic() - started
    return result


def _check_file(
    parts: Partitions,
    stdin: IO[str],
    keep_going: bool,
    result: TraceResult,
    progress: Progress | None,
) -> None:
    name = parts.file
    source = logline.open_log(name, stdin)
    last: object = parts  # no stream yet
    part = None
    try:
        for stream, recorded in logline.read(source, name):
            result.lines_read += 1
            if stream != last or part is None:
                part, last = parts.get(stream, recorded.line), stream
            violation = part.check(recorded)
            if violation is None and result.strict_replies:
                violation = strict_violation(name, stream, recorded)
            if violation is not None:
                result.violations.append(violation)
                if not keep_going:
                    result.stopped = True
                    break
            if progress is not None and result.lines_read % PROGRESS_EVERY == 0:
                progress(result.lines_read, len(result.violations))
    finally:
        if source is not stdin:
            source.close()
        for part_result in parts.close():
            result.add_partition(part_result)
