"""``--jobs N``: partitions checked in N worker processes while the log streams through.

The parent reads each line once (it must know the line's partition), and routes the line's text
to the worker that owns the partition (a stable hash of file and stream), in small batches over
bounded queues: memory stays constant in the log's length, and a slow worker slows the reader
instead of piling lines up.  Each worker keeps the worlds of its partitions (at most
`partitions.LIVE` live, the others spilled to a temporary file of its own), checks their lines
in log order, and sends violations back as it finds them and its partitions' results, in small
batches, at each file's end.

Stopping: without ``--keep-going`` the parent stops reading at the first violation a worker
reports (workers finish the lines already handed to them, so a few more may be listed).  On
Ctrl-C or SIGTERM the parent stops reading and asks every worker for what it has checked;
workers ignore Ctrl-C (the parent decides), end on SIGTERM after reporting, and any worker still
alive after a grace period is terminated, so none outlives the command.
"""

from __future__ import annotations

import multiprocessing
import queue
import signal
import time
import zlib
from collections.abc import Sequence
from typing import IO, Any, Final

from . import logline
from .complete import Partition, strict_violation
from .partitions import PartitionResult, Partitions, Spill
from .run import Interrupted, Progress, TraceResult

BATCH: Final = 512
RESULTS: Final = 64
"""Partition results per message from a worker."""
QUEUE_BATCHES: Final = 4
GRACE_SECONDS: Final = 10.0

Batch = list[tuple[int, str]]


def owner(file: str, stream: str | None, jobs: int) -> int:
    """The worker that checks a partition: stable across runs and platforms."""
    return zlib.crc32(f"{file}\0{stream or ''}".encode("utf-8", "surrogatepass")) % jobs


def _stop(signum: int, _frame: object) -> None:
    raise Interrupted(signum)


def _worker(inbox: Any, outbox: Any, keep_going: bool) -> None:
    """A worker process: ``(fileno, file, batch)`` messages, ``(fileno, file, None)`` at a
    file's end, None to finish; replies ``("violation", v)``, ``("partitions", results)`` and
    finally ``("done", interrupted)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop)
    serve(inbox, outbox, keep_going)


def serve(inbox: Any, outbox: Any, keep_going: bool) -> None:
    """What a worker does with its messages (`_worker`), without its signal handling."""
    spill = Spill()
    parts: Partitions | None = None
    stopped = False
    interrupted = False
    try:
        while (message := inbox.get()) is not None:
            fileno, file, batch = message
            if parts is None or parts.fileno != fileno:
                _close(parts, outbox)
                parts = Partitions(file, fileno, spill)
            if batch is None:
                _close(parts, outbox)
                parts = None
                continue
            if not stopped:
                stopped = _check_batch(parts, batch, outbox, keep_going)
    except Interrupted:
        interrupted = True
    _close(parts, outbox)
    spill.close()
    outbox.put(("done", interrupted))


def _check_batch(parts: Partitions, batch: Batch, outbox: Any, keep_going: bool) -> bool:
    """Check a batch of lines; whether to stop (a violation, without ``--keep-going``)."""
    last: object = parts  # no stream yet
    part: Partition | None = None
    for number, text in batch:
        parsed = logline.parse(text, parts.file, number)
        if parsed is None:
            continue
        stream, recorded = parsed
        if stream != last or part is None:
            part, last = parts.get(stream, number), stream
        violation = part.check(recorded)
        if violation is not None:
            outbox.put(("violation", violation))
            if not keep_going:
                return True
    return False


def _close(parts: Partitions | None, outbox: Any) -> None:
    """Send a file's partition results, in batches."""
    if parts is None:
        return
    batch: list[PartitionResult] = []
    for result in parts.close():
        batch.append(result)
        if len(batch) >= RESULTS:
            outbox.put(("partitions", batch))
            batch = []
    if batch:
        outbox.put(("partitions", batch))


class _Pool:
    def __init__(self, jobs: int, keep_going: bool) -> None:
        context = multiprocessing.get_context("fork")
        self.outbox: Any = context.Queue()
        self.inboxes: list[Any] = [context.Queue(QUEUE_BATCHES) for _ in range(jobs)]
        self.workers = [
            context.Process(target=_worker, args=(inbox, self.outbox, keep_going), daemon=True)
            for inbox in self.inboxes
        ]
        for process in self.workers:
            process.start()
        self.buffers: list[Batch] = [[] for _ in range(jobs)]
        self.done = 0

    def send(self, index: int, message: object) -> None:
        self.inboxes[index].put(message)

    def stop(self) -> None:
        """Interrupted: pending batches are dropped, and nothing still queued for a worker may
        keep the command from exiting (a worker that ended on SIGTERM reads no more)."""
        self.buffers = [[] for _ in self.inboxes]
        for inbox in self.inboxes:
            inbox.cancel_join_thread()

    def flush(self, fileno: int, file: str) -> None:
        for index, batch in enumerate(self.buffers):
            if batch:
                self.send(index, (fileno, file, batch))
                self.buffers[index] = []

    def drain(self, result: TraceResult, block: bool) -> None:
        """Take what the workers sent: violations, and the final reports of finished ones."""
        while self.done < len(self.workers):
            try:
                message = self.outbox.get(timeout=1.0) if block else self.outbox.get_nowait()
            except queue.Empty:
                if not block:
                    return
                if not any(p.is_alive() for p in self.workers):
                    return
                continue
            if message[0] == "violation":
                result.violations.append(message[1])
            elif message[0] == "partitions":
                for part in message[1]:
                    result.add_partition(part)
            else:
                self.done += 1

    def finish(self, result: TraceResult) -> None:
        """Ask every worker to report and end; terminate any that does not within the grace."""
        deadline = time.monotonic() + GRACE_SECONDS
        for inbox, process in zip(self.inboxes, self.workers, strict=True):
            while process.is_alive() and time.monotonic() < deadline:
                try:  # a worker that ended on SIGTERM no longer reads its queue
                    inbox.put(None, timeout=0.2)
                    break
                except queue.Full:
                    continue
        self.drain(result, block=True)
        for process in self.workers:
            process.join(timeout=max(0.1, deadline - time.monotonic()))
            if process.is_alive():
                process.terminate()
                process.join(timeout=5.0)


def check_logs_parallel(
    names: Sequence[str],
    stdin: IO[str],
    *,
    jobs: int,
    keep_going: bool,
    progress: Progress | None = None,
    strict_replies: bool = False,
) -> TraceResult:
    """`run.check_logs` with partitions spread over ``jobs`` worker processes."""
    result = TraceResult(list(names), strict_replies=strict_replies)
    started = time.monotonic()
    pool = _Pool(jobs, keep_going)
    try:
        try:
            for fileno, name in enumerate(names):
                _route_file(fileno, name, stdin, pool, jobs, result, progress, keep_going)
                if result.stopped or result.unreadable is not None:
                    break
        except KeyboardInterrupt:
            result.interrupted = signal.SIGINT
            pool.stop()
        except Interrupted as why:
            result.interrupted = why.signum
            pool.stop()
        pool.finish(result)
    except BaseException:  # whatever went wrong, no worker may outlive the command
        for process in pool.workers:
            process.terminate()
            process.join(timeout=5.0)
        raise
    if not keep_going and result.violations:  # the reader may have read past the first one:
        result.stopped = True  # an unusable line there is not reached by a run in one process
        result.unreadable = None
    result.violations.sort(key=lambda v: (names.index(v.file), v.line))
    result.seconds = time.monotonic() - started
    return result


def _route_file(
    fileno: int,
    name: str,
    stdin: IO[str],
    pool: _Pool,
    jobs: int,
    result: TraceResult,
    progress: Progress | None,
    keep_going: bool,
) -> None:
    try:
        source = logline.open_log(name, stdin)
    except logline.LogLineError as err:
        result.unreadable = str(err)
        return
    try:
        try:
            _route_lines(fileno, name, source, pool, jobs, result, progress, keep_going)
        except logline.LogLineError as err:  # the lines before it are still checked
            result.unreadable = str(err)
    except BaseException:
        pool.stop()  # interrupted: no worker is waited for
        raise
    finally:
        if source is not stdin:
            source.close()
    pool.flush(fileno, name)
    for index in range(jobs):
        pool.send(index, (fileno, name, None))


def _route_lines(
    fileno: int,
    name: str,
    source: IO[str],
    pool: _Pool,
    jobs: int,
    result: TraceResult,
    progress: Progress | None,
    keep_going: bool,
) -> None:
    last: object = pool  # no stream yet
    index = 0
    number = 0
    for text in _numbered(source, name):
        number += 1
        parsed = logline.parse(text, name, number)
        if parsed is None:
            continue
        stream = parsed[0]
        if result.strict_replies:  # state-free: checked here, the model's check in a worker
            violation = strict_violation(name, stream, parsed[1])
            if violation is not None:
                result.violations.append(violation)
        if stream != last:
            index, last = owner(name, stream, jobs), stream
        buffer = pool.buffers[index]
        buffer.append((number, text))
        result.lines_read += 1
        if len(buffer) >= BATCH:
            pool.send(index, (fileno, name, buffer))
            pool.buffers[index] = []
            pool.drain(result, block=False)
            if result.violations and not keep_going:
                result.stopped = True
                return
        if progress is not None and result.lines_read % 4096 == 0:
            progress(result.lines_read, len(result.violations))


def _numbered(source: IO[str], name: str) -> Any:
    try:
        yield from source
    except UnicodeDecodeError as err:
        raise logline.LogLineError(f"{name}: not UTF-8 ({err.reason})") from None
    except OSError as err:
        raise logline.LogLineError(f"{name}: cannot read: {err.strerror or err}") from None
