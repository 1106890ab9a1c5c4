"""``--jobs N`` and ``--shard K/N``: one exploration split into seed streams.

A run is ``T`` streams (``T = jobs x shards``).  Stream ``g`` (0-based; shard ``K`` of ``N`` with
``M`` jobs owns streams ``(K-1)*M`` to ``K*M-1``) runs, in round ``r``, Hypothesis seed
``seed + r*T + g`` with its share of the examples (``examples // T``, the first
``examples % T`` streams one more).  With one stream this is exactly the single-process run:
seed ``seed``, then ``seed + 1``, ... per round.  So a run is reproducible from ``--seed``,
``--jobs`` and ``--shard``, and the shards of a CI matrix together run what ``--jobs T`` runs in
its first round.

With ``--jobs`` above 1 every stream is a worker process (``spawn``: a fresh interpreter, so
what it imported — which Hypothesis mixes into its draws — does not depend on the parent) with
its own system under test (its own adapter child process, or its own in-process reference).
Coverage tables are summed.  The first worker to find a divergence announces it; the others stop
before their next example, while the finder shrinks it; when several diverge, the lowest stream
wins.  Rounds (a coverage minimum unmet) run all streams again; a shard runs one round only, and
its coverage minimum is judged on the merged reports (``--merge``).
"""

from __future__ import annotations

import multiprocessing
import queue
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.synchronize import Event
from typing import Any

from . import coverage
from .run import ExploreResult, explore
from .sut import AdapterSut, InProcessSut, Sut, SutFailure

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


def make_sut(adapter: Sequence[str] | None) -> Sut:
    return InProcessSut() if adapter is None else AdapterSut(list(adapter))


def _one_stream(
    plan: Plan, stream: int, round_: int, stop: Event | None, found: Any
) -> ExploreResult:
    seed = plan.stream_seed(stream, round_)
    sut = make_sut(plan.adapter)
    try:
        return explore(
            sut,
            examples=plan.stream_examples(stream),
            steps=plan.steps,
            seed_value=seed,
            shrink=plan.shrink,
            pipeline=plan.pipeline,
            stop=None if stop is None else stop.is_set,
            on_divergence=None if found is None else (lambda: found.put(("found", stream))),
        )
    except SutFailure as err:
        return ExploreResult(Counter(), None, 0, 0.0, 0.0, seed, {}, f"the adapter failed: {err}")
    finally:
        sut.close()


def _worker(plan: Plan, stream: int, round_: int, stop: Event, events: Any) -> None:
    """A worker process: one stream of one round; its result goes back through ``events``."""
    try:
        result = _one_stream(plan, stream, round_, stop, events)
    except BaseException as err:  # report, never die silently: the parent waits for "done"
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
    events.put(("done", stream, result, stop.is_set()))


def _round_in_workers(plan: Plan, round_: int) -> dict[int, tuple[ExploreResult, bool]]:
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    events = context.Queue()
    workers = {
        g: context.Process(target=_worker, args=(plan, g, round_, stop, events), daemon=True)
        for g in plan.streams()
    }
    for process in workers.values():
        process.start()
    done: dict[int, tuple[ExploreResult, bool]] = {}
    try:
        while len(done) < len(workers):
            try:
                message = events.get(timeout=POLL_SECONDS)
            except queue.Empty:
                for g, process in workers.items():
                    if g not in done and not process.is_alive() and process.exitcode not in (0,):
                        error = f"worker {g} died (exit code {process.exitcode})"
                        seed = plan.stream_seed(g, round_)
                        done[g] = (
                            ExploreResult(Counter(), None, 0, 0.0, 0.0, seed, {}, error),
                            False,
                        )
                        stop.set()
                continue
            if message[0] == "found":
                stop.set()  # every other worker ends before its next example
            else:
                _, g, result, stopped = message
                done[g] = (result, stopped and result.failure is None)
                if result.failure is not None or result.error is not None:
                    stop.set()
    finally:
        stop.set()
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
            results = {g: (_one_stream(plan, g, round_, None, None), False)}
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
            total.steps += result.steps
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
        if not coverage.missing(total.coverage, plan.min_hits):
            break
    wall = time.perf_counter() - started
    total.seconds = wall
    return PlanResult(total, wall, runs, failing)
