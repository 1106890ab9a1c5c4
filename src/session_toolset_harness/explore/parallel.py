"""``--jobs N`` and ``--shard K/N``: one exploration split into seed streams.

A run is ``T = jobs x shards`` streams; stream ``g`` runs seed ``seed + g`` with its share of the
examples, so a run is reproducible from ``--seed``, ``--jobs`` and ``--shard`` and the shards of a
CI matrix together run what ``--jobs T`` runs.  With ``--jobs`` above 1 each stream is a spawned
worker with its own system under test; the first to diverge stops the others and shrinks."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import queue
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..declared_difference import DECLARED_DIFFERENCE
from ..interrupt import Interrupted, raising_on_signals
from ..trace.record import TraceWriter
from .observe import RunContext
from .run import ExploreResult, explore, partial_result
from .sut import REQUEST_TIMEOUT_SECONDS, AdapterSut, InProcessSut, RecordingSut, Sut, SutFailure

POLL_SECONDS = 0.5
PROGRESS_SECONDS = 0.5
"""How often a worker reports its examples finished."""
STOP_SECONDS = 5.0
"""How long a stopped worker may take to send what it found and exit before it is killed."""
EXIT_ORPHANED = 3
"""A worker's exit status when its parent died without stopping it."""


@dataclass(frozen=True)
class Plan:
    """Everything that decides which examples a run explores."""

    examples: int
    steps: int
    seed: int
    jobs: int = 1
    shard: tuple[int, int] = (1, 1)
    shrink: bool = True
    pipeline: bool = True
    adapter: tuple[str, ...] | None = None
    """None: the reference implementation in-process."""
    timeout: float = REQUEST_TIMEOUT_SECONDS
    """Seconds an adapter may take to answer one request (``--timeout``)."""
    exclude_tags: tuple[str, ...] = ()
    """``--exclude-tag``: ``declared-difference`` steers requests off SPEC.md 1.4's literals."""

    record: str | None = None
    """``--record``: a trace log every exchange is appended to (one writing process only)."""

    @property
    def steer_declared(self) -> bool:
        return DECLARED_DIFFERENCE in self.exclude_tags

    @property
    def total_streams(self) -> int:
        return self.jobs * self.shard[1]

    def streams(self) -> list[int]:
        first = (self.shard[0] - 1) * self.jobs
        return list(range(first, first + self.jobs))

    def stream_seed(self, stream: int) -> int:
        return self.seed + stream

    def stream_examples(self, stream: int) -> int:
        share, extra = divmod(self.examples, self.total_streams)
        return share + (1 if stream < extra else 0)


@dataclass
class StreamRun:
    stream: int
    result: ExploreResult
    stopped: bool


@dataclass
class PlanResult:
    """The merged result of every stream."""

    result: ExploreResult
    wall_seconds: float
    runs: list[StreamRun] = field(default_factory=list)
    failing_stream: int | None = None
    signal: int | None = None
    """The signal (SIGINT, SIGTERM) that interrupted the run: the result is partial."""

    @property
    def steps_per_second(self) -> float:
        return self.result.steps / self.wall_seconds if self.wall_seconds else 0.0


def make_sut(adapter: Sequence[str] | None, timeout: float = REQUEST_TIMEOUT_SECONDS) -> Sut:
    return InProcessSut() if adapter is None else AdapterSut(list(adapter), timeout)


Watch = Callable[[int, RunContext], None]
"""Told the stream and its context after each example (progress)."""


def _one_stream(
    plan: Plan, stream: int, found: Any, suts: list[Sut], watch: Watch | None = None
) -> tuple[ExploreResult, int | None]:
    """One stream's result, and the signal that interrupted it (its result then partial)."""
    seed = plan.stream_seed(stream)
    sut = make_sut(plan.adapter, plan.timeout)
    suts.append(sut)
    live: list[RunContext] = []
    started = time.perf_counter()

    def seen(ctx: RunContext) -> None:
        if not live:
            live.append(ctx)
        if watch is not None:
            watch(stream, ctx)

    try:
        with contextlib.ExitStack() as stack:
            target: Sut = sut
            if plan.record is not None:  # --record: every exchange appended to a trace log
                out = stack.enter_context(open(plan.record, "a", encoding="utf-8"))
                target = RecordingSut(sut, TraceWriter(out), f"seed {seed}/")
            return explore(
                target,
                examples=plan.stream_examples(stream),
                steps=plan.steps,
                seed_value=seed,
                shrink=plan.shrink,
                pipeline=plan.pipeline,
                on_divergence=None if found is None else (lambda: found.put(("found", stream))),
                steer_declared=plan.steer_declared,
                watch=seen,
            ), None
    except SutFailure as err:
        failed = ExploreResult(Counter(), None, 0, 0.0, 0.0, seed, {}, f"the adapter failed: {err}")
        return failed, None
    except Interrupted as stop:
        _kill(sut)
        seconds = time.perf_counter() - started
        if not live:
            return _stopped(plan, stream), stop.signum
        return partial_result(live[0], seed, seconds), stop.signum
    finally:
        sut.close()


def _kill(sut: Sut) -> None:
    if isinstance(sut, AdapterSut):
        sut.process.kill()


def _watch_parent(suts: list[Sut]) -> None:
    """In a worker: when the parent process is gone (killed without stopping its workers),
    kill this worker's adapter processes and exit."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def wait() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        for sut in list(suts):
            if isinstance(sut, AdapterSut):
                sut.process.kill_now()
        os._exit(EXIT_ORPHANED)

    threading.Thread(target=wait, name="watch-parent", daemon=True).start()


def _worker(plan: Plan, stream: int, events: Any) -> None:
    """A worker process: one stream; its progress and result go back through ``events``.
    SIGTERM kills its adapter and sends what it found so far; SIGINT is left to the parent."""
    suts: list[Sut] = []
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _watch_parent(suts)
    last = [0.0]

    def progress(g: int, ctx: RunContext) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_SECONDS:
            last[0] = now
            events.put(("progress", g, ctx.examples_done, ctx.steps_run))

    signum: int | None = None
    try:
        with raising_on_signals(signals=(signal.SIGTERM,)):
            result, signum = _one_stream(plan, stream, events, suts, progress)
    except Exception as err:  # report, never die silently: the parent waits for "done"
        result = ExploreResult(
            Counter(),
            None,
            0,
            0.0,
            0.0,
            plan.stream_seed(stream),
            {},
            f"worker {stream} failed: {type(err).__name__}: {err}",
        )
    events.put(("done", stream, result, signum))
    events.close()
    events.join_thread()


def _stopped(plan: Plan, stream: int) -> ExploreResult:
    return ExploreResult(Counter(), None, 0, 0.0, 0.0, plan.stream_seed(stream), {})


Progress = Callable[[int], None]
"""Told the examples finished so far, over all streams."""


def _in_workers(
    plan: Plan, progress: Progress | None = None
) -> tuple[dict[int, tuple[ExploreResult, bool]], int | None]:
    """One worker process per stream, and the signal that interrupted the run, if any (every
    worker then stopped, and what each found so far comes back).  At the first divergence the
    other workers are stopped; the finder goes on to shrink."""
    context = multiprocessing.get_context("spawn")
    events = context.Queue()
    workers = {
        g: context.Process(target=_worker, args=(plan, g, events), daemon=True)
        for g in plan.streams()
    }
    for process in workers.values():
        process.start()
    done: dict[int, tuple[ExploreResult, bool]] = {}
    finders: set[int] = set()
    examples = dict.fromkeys(workers, 0)
    signum: int | None = None

    def stop_others() -> None:
        for h, process in workers.items():
            if h not in done and h not in finders and process.is_alive():
                process.terminate()
                process.join(timeout=10.0)
                done[h] = (_stopped(plan, h), True)

    def take(message: tuple[Any, ...]) -> None:
        if message[0] == "progress":
            examples[message[1]] = message[2]
            if progress is not None:
                progress(sum(examples.values()))
        elif message[0] == "found":
            finders.add(message[1])
            stop_others()
        elif message[1] not in done:
            _, g, result, _signal = message
            done[g] = (result, False)
            if result.failure is not None or result.error is not None:
                stop_others()

    try:
        while len(done) < len(workers):
            try:
                message = events.get(timeout=POLL_SECONDS)
            except queue.Empty:
                for g, process in workers.items():
                    if g not in done and not process.is_alive():
                        error = f"worker {g} died (exit code {process.exitcode})"
                        failed = _stopped(plan, g)
                        failed.error = error
                        done[g] = (failed, False)
                continue
            take(message)
    except Interrupted as stop:
        signum = stop.signum
        for process in workers.values():
            if process.is_alive():
                process.terminate()  # the worker kills its adapter and sends what it found
        deadline = time.monotonic() + STOP_SECONDS
        while len(done) < len(workers) and time.monotonic() < deadline:
            try:
                message = events.get(timeout=POLL_SECONDS)
            except queue.Empty:
                if not any(p.is_alive() for g, p in workers.items() if g not in done):
                    break
                continue
            if message[0] == "done" and message[1] not in done:
                done[message[1]] = (message[2], True)
        for g in workers:
            done.setdefault(g, (_stopped(plan, g), True))
    finally:
        for process in workers.values():
            process.join(timeout=STOP_SECONDS)
            if process.is_alive():
                process.kill()
                process.join(timeout=5.0)
    return done, signum


def run_plan(plan: Plan, progress: Progress | None = None) -> PlanResult:
    """Every stream of ``plan``; stops at the first divergence or error, or at SIGINT/SIGTERM
    (inside `interrupt.raising_on_signals`: the result is then what the streams found so far,
    with ``signal`` set).  ``progress``: told the examples finished so far."""
    started = time.perf_counter()
    total = ExploreResult(Counter(), None, 0, 0.0, 0.0, plan.seed, {})
    runs: list[StreamRun] = []
    failing: int | None = None
    if plan.total_streams == 1:
        g = plan.streams()[0]

        def watch(_stream: int, ctx: RunContext) -> None:
            if progress is not None:
                progress(ctx.examples_done)

        result, signum = _one_stream(plan, g, None, [], watch)
        results = {g: (result, signum is not None)}
    else:
        results, signum = _in_workers(plan, progress)
    for g in sorted(results):
        result, stopped = results[g]
        runs.append(StreamRun(g, result, stopped))
        total.coverage.update(result.coverage)
        total.conditions.merge(result.conditions)
        total.steps += result.steps
        total.examples += result.examples
        total.steered += result.steered
        total.cpu_seconds += result.cpu_seconds
        total.digests = total.digests or result.digests
        if result.failure is not None and total.failure is None:
            total.failure, total.preflight, total.seed = (
                result.failure,
                result.preflight,
                result.seed,
            )
            total.digests = result.digests or total.digests
            failing = g
        if result.error is not None and total.error is None:
            total.error = f"stream {g} (seed {result.seed}): {result.error}"
    if total.failure is None:
        total.seed = plan.stream_seed(plan.streams()[-1])
    wall = time.perf_counter() - started
    total.seconds = wall
    return PlanResult(total, wall, runs, failing, signum)
