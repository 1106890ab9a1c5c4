"""``--jobs N`` and ``--shard K/N``: one exploration split into seed streams.

A run is ``T`` streams (``T = jobs x shards``).  Stream ``g`` (0-based; shard ``K`` of ``N`` with
``M`` jobs owns streams ``(K-1)*M`` to ``K*M-1``) runs, in round ``r``, Hypothesis seed
``seed + r*T + g`` with its share of the examples (``examples // T``, the first
``examples % T`` streams one more).  With one stream this is exactly the single-process run:
seed ``seed``, then ``seed + 1``, ... per round.  So a run is reproducible from ``--seed``,
``--jobs`` and ``--shard``, and the shards of a CI matrix together run what ``--jobs T`` runs in
its first round.

With ``--jobs`` above 1 every stream is a worker process (``spawn``: a fresh interpreter that
shares no state with the parent; the constants Hypothesis mixes into its draws are fixed anyway,
`spec_constants`) with its own system under test (its own adapter child process, or its own
in-process reference).  Coverage tables are summed.  The first worker to find a divergence
announces it; the others are stopped at once (their adapter processes killed), while the finder
shrinks it; when several diverge, the lowest stream wins.  Rounds (a coverage minimum unmet) run
all streams again; a shard runs one round only, and its coverage minimum is judged on the merged
reports (``--merge``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..corpus.dsl import DECLARED_DIFFERENCE
from ..trace.record import TraceWriter
from . import condition_gate, coverage
from .prng_engine import DEFAULT_ENGINE
from .run import ExploreResult, explore
from .sut import REQUEST_TIMEOUT_SECONDS, AdapterSut, InProcessSut, RecordingSut, Sut, SutFailure

POLL_SECONDS = 0.5


@dataclass(frozen=True)
class Plan:
    """Everything that decides which examples a run explores."""

    examples: int
    steps: int
    seed: int
    jobs: int = 1
    shard: tuple[int, int] = (1, 1)
    rounds: int = 1
    min_hits: int = 0
    shrink: bool = True
    pipeline: bool = True
    adapter: tuple[str, ...] | None = None
    """None: the reference implementation in-process."""
    engine: str = DEFAULT_ENGINE
    """What draws the examples (`prng_engine.ENGINES`)."""
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

    def stream_seed(self, stream: int, round_: int) -> int:
        return self.seed + round_ * self.total_streams + stream

    def stream_examples(self, stream: int) -> int:
        share, extra = divmod(self.examples, self.total_streams)
        return share + (1 if stream < extra else 0)

    @property
    def round_count(self) -> int:
        return 1 if self.shard[1] > 1 else max(self.rounds, 1)


@dataclass
class StreamRun:
    stream: int
    seed: int
    examples: int
    steps: int
    cpu_seconds: float
    diverged: bool
    stopped: bool


@dataclass
class PlanResult:
    """The merged result of every stream and round."""

    result: ExploreResult
    wall_seconds: float
    runs: list[StreamRun] = field(default_factory=list)
    failing_stream: int | None = None

    @property
    def steps_per_second(self) -> float:
        return self.result.steps / self.wall_seconds if self.wall_seconds else 0.0


def make_sut(adapter: Sequence[str] | None, timeout: float = REQUEST_TIMEOUT_SECONDS) -> Sut:
    return InProcessSut() if adapter is None else AdapterSut(list(adapter), timeout)


def _one_stream(plan: Plan, stream: int, round_: int, found: Any, suts: list[Sut]) -> ExploreResult:
    seed = plan.stream_seed(stream, round_)
    sut = make_sut(plan.adapter, plan.timeout)
    suts.append(sut)
    with contextlib.ExitStack() as stack:
        if plan.record is not None:
            out = stack.enter_context(open(plan.record, "a", encoding="utf-8"))
            sut = RecordingSut(sut, TraceWriter(out), f"seed {seed}/")
        return _explore_stream(plan, stream, seed, found, sut)


def _explore_stream(plan: Plan, stream: int, seed: int, found: Any, sut: Sut) -> ExploreResult:
    try:
        return explore(
            sut,
            examples=plan.stream_examples(stream),
            steps=plan.steps,
            seed_value=seed,
            shrink=plan.shrink,
            pipeline=plan.pipeline,
            on_divergence=None if found is None else (lambda: found.put(("found", stream))),
            min_hits=plan.min_hits,
            engine=plan.engine,
            steer_declared=plan.steer_declared,
        )
    except SutFailure as err:
        return ExploreResult(Counter(), None, 0, 0.0, 0.0, seed, {}, f"the adapter failed: {err}")
    finally:
        sut.close()


def _worker(plan: Plan, stream: int, round_: int, events: Any) -> None:
    """A worker process: one stream of one round; its result goes back through ``events``.

    SIGTERM (another worker diverged) kills its adapter process and ends it at once."""
    suts: list[Sut] = []

    def stop(_signum: int, _frame: object) -> None:
        for sut in suts:
            if isinstance(sut, AdapterSut):
                sut.process.kill()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        result = _one_stream(plan, stream, round_, events, suts)
    except Exception as err:  # report, never die silently: the parent waits for "done"
        result = ExploreResult(
            Counter(),
            None,
            0,
            0.0,
            0.0,
            plan.stream_seed(stream, round_),
            {},
            f"worker {stream} failed: {type(err).__name__}: {err}",
        )
    events.put(("done", stream, result))


def _stopped(plan: Plan, stream: int, round_: int) -> ExploreResult:
    return ExploreResult(Counter(), None, 0, 0.0, 0.0, plan.stream_seed(stream, round_), {})


def _round_in_workers(plan: Plan, round_: int) -> dict[int, tuple[ExploreResult, bool]]:
    """One round, one worker process per stream.  At the first divergence announced, every
    other worker still running is stopped (its coverage is lost: the verdict is decided); the
    finder goes on to shrink."""
    context = multiprocessing.get_context("spawn")
    events = context.Queue()
    workers = {
        g: context.Process(target=_worker, args=(plan, g, round_, events), daemon=True)
        for g in plan.streams()
    }
    for process in workers.values():
        process.start()
    done: dict[int, tuple[ExploreResult, bool]] = {}
    finders: set[int] = set()

    def stop_others() -> None:
        for h, process in workers.items():
            if h not in done and h not in finders and process.is_alive():
                process.terminate()
                process.join(timeout=10.0)
                done[h] = (_stopped(plan, h, round_), True)

    try:
        while len(done) < len(workers):
            try:
                message = events.get(timeout=POLL_SECONDS)
            except queue.Empty:
                for g, process in workers.items():
                    if g not in done and not process.is_alive():
                        error = f"worker {g} died (exit code {process.exitcode})"
                        failed = _stopped(plan, g, round_)
                        failed.error = error
                        done[g] = (failed, False)
                continue
            if message[0] == "found":
                finders.add(message[1])
                stop_others()
            elif message[1] not in done:
                _, g, result = message
                done[g] = (result, False)
                if result.failure is not None or result.error is not None:
                    stop_others()
    finally:
        for process in workers.values():
            process.join(timeout=10.0)
            if process.is_alive():
                process.terminate()
                process.join(timeout=5.0)
    return done


def run_plan(plan: Plan) -> PlanResult:
    """Every round of every stream of ``plan``; stops at the first divergence or error, or when
    the coverage minimum is met on the merged table."""
    started = time.perf_counter()
    total = ExploreResult(Counter(), None, 0, 0.0, 0.0, plan.seed, {})
    runs: list[StreamRun] = []
    failing: int | None = None
    for round_ in range(plan.round_count):
        if plan.total_streams == 1:
            g = plan.streams()[0]
            results = {g: (_one_stream(plan, g, round_, None, []), False)}
        else:
            results = _round_in_workers(plan, round_)
        for g in sorted(results):
            result, stopped = results[g]
            runs.append(
                StreamRun(
                    g,
                    result.seed,
                    plan.stream_examples(g),
                    result.steps,
                    result.cpu_seconds,
                    result.failure is not None,
                    stopped,
                )
            )
            total.coverage.update(result.coverage)
            total.conditions.merge(result.conditions)
            total.steps += result.steps
            total.aimed += result.aimed
            total.swept += result.swept
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
            total.seed = plan.stream_seed(plan.streams()[-1], round_)
        if total.failure is not None or total.error is not None:
            break
        if not coverage.missing(total.coverage, plan.min_hits) and not (
            plan.min_hits and condition_gate.missing(total.conditions)
        ):
            break
    wall = time.perf_counter() - started
    total.seconds = wall
    return PlanResult(total, wall, runs, failing)
