"""Running the machine: budgets, seeding, and the result of one exploration.

Budgets (``--budget`` on the CLI, ``SESSION_TOOLSET_PROFILE`` under pytest) are examples x
steps: ``dev`` a quick look while editing, ``ci`` every CI run, ``nightly`` the long run.

The examples are drawn by seeded generators (`draw`): example ``i`` of a run seeded ``S`` is one
deterministic function of ``S`` and ``i``, so a failing example is replayed by running it again,
and `reduce` shrinks its requests.  The walk reports the (operation, outcome) pairs and the
model's condition outcomes it saw; it does not steer towards the ones it missed (the corpus's
fixed vectors cover those).
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from session_toolset_model.conditions import ConditionTable

from . import pools
from .draw import example_random, run_example
from .machine import ExploreMachine
from .observe import DigestPreflightError, Divergence, DivergenceError, RunContext, learn_digests
from .reduce import reduce, replay_exchange
from .sut import InProcessSut, RecordingSut, Sut

PIPELINE_WINDOW = 64
"""Requests an external adapter may have outstanding before the explorer reads its replies."""

PROFILE_ENV = "SESSION_TOOLSET_PROFILE"

UNSHRUNK = ("timeout", "extra-reply")
"""Adapter failures reported as found: every replay would wait a timeout out again, and a reply
line nobody asked for shifts every later reply, which a replay one request at a time (a fresh
process after a surplus line) shows as some other difference."""

FLAKY = "Flaky"
"""The error of an example that failed once and passed when replayed: with a divergence seen,
the implementation answered differently the second time."""


@dataclass(frozen=True)
class Profile:
    examples: int
    steps: int


PROFILES: dict[str, Profile] = {
    "dev": Profile(examples=50, steps=30),
    "ci": Profile(examples=300, steps=50),
    "nightly": Profile(examples=10_000, steps=60),
}


def profile_from_env(default: str = "ci") -> tuple[str, Profile]:
    name = os.environ.get(PROFILE_ENV, default)
    if name not in PROFILES:
        raise ValueError(f"{PROFILE_ENV}={name!r}: expected one of {', '.join(PROFILES)}")
    return name, PROFILES[name]


@dataclass
class ExploreResult:
    coverage: Counter[tuple[str, str]]
    failure: Divergence | None
    steps: int
    seconds: float
    cpu_seconds: float
    seed: int
    digests: dict[str, str]
    error: str | None = None
    preflight: bool = False
    """The failure is in the digest preflight (before any exploration)."""
    conditions: ConditionTable = field(default_factory=ConditionTable)
    """Condition coverage (MC/DC) of the model's decisions over the run."""
    steered: int = 0
    """Number literals steered off SPEC.md 1.4's declared difference (`RunContext.steered`)."""
    examples: int = 0
    """Examples run (not planned: an interrupted run counts the ones it finished)."""

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.cpu_seconds if self.cpu_seconds else 0.0


def explore(
    sut: Sut,
    *,
    examples: int,
    steps: int,
    seed_value: int = 0,
    shrink: bool = True,
    pipeline: bool = True,
    window: int | None = None,
    on_divergence: Callable[[], None] | None = None,
    steer_declared: bool = False,
    watch: Callable[[RunContext], None] | None = None,
) -> ExploreResult:
    """Run the machine against ``sut``; a divergence is returned, never raised.

    ``window``: requests written before their replies are read (default: `default_window`); the
    failing example is replayed with a window of one before it is shrunk.  ``on_divergence``: called
    at the first divergence, before shrinking (``--jobs`` stops the other workers).  ``watch``:
    called with the run's context before the first example and after every example.
    ``steer_declared``: steer requests off SPEC.md 1.4's declared difference."""
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        digests = learn_digests(sut)
    except DigestPreflightError as err:
        failure = Divergence(tuple(err.records[:-1]), (err.records[-1],), err.reason, kind=err.kind)
        return ExploreResult(
            Counter(), failure, 0, 0.0, 0.0, seed_value, pools.reference_digests(), preflight=True
        )
    if window is None:
        window = default_window(sut) if pipeline else 1
    ctx = RunContext(sut, digests, pipeline=pipeline, window=window)
    ctx.steer_declared = steer_declared
    ctx.on_divergence = on_divergence
    ctx.watch = watch
    if watch is not None:
        watch(ctx)

    error = _run(ctx, examples, steps, seed_value, replay=shrink)
    if ctx.first_failure is not None and (_flaky(error) or (ctx.failure is None and not error)):
        # It did not happen again when its example was replayed: report the first
        # divergence, as it happened.
        ctx.failure, error = _as_flaky(sut, ctx.first_failure, error), None
    elif shrink and ctx.failure is not None and error is None and ctx.failure.kind not in UNSHRUNK:
        reduced = reduce(sut, ctx.failure)  # drop requests that do not matter
        ctx.failure = _literal(sut, ctx.failure) if reduced is ctx.failure else reduced
    return ExploreResult(
        ctx.coverage,
        ctx.failure,
        ctx.steps_run,
        time.perf_counter() - start,
        time.process_time() - cpu_start,
        seed_value,
        digests,
        error,
        conditions=ctx.conditions,
        steered=ctx.steered,
        examples=ctx.examples_done,
    )


def _run(
    ctx: RunContext, examples: int, steps: int, seed_value: int, *, replay: bool
) -> str | None:
    """The examples in order until one diverges; with ``replay``, that one is run again with a
    window of one step (a divergence that does not happen again is told apart).  An error outside
    the comparison is returned as text."""

    def example(index: int) -> bool:
        try:
            run_example(ExploreMachine(ctx), example_random(seed_value, index), steps)
        except DivergenceError:
            return True
        return False

    try:
        for index in range(examples):
            if example(index):
                if not replay:
                    return None
                ctx.window = 1
                if not example(index):
                    return f"{FLAKY}: the replay of the failing example passed"
                return None
    except Exception as err:
        return f"{type(err).__name__}: {err}"
    return None


def _flaky(error: str | None) -> bool:
    return error is not None and error.startswith(FLAKY)


def _as_flaky(sut: Sut, first: Divergence, error: str | None) -> Divergence:
    """The first divergence, marked flaky, with what a replay of its exact exchange gives."""
    again = replay_exchange(sut, first.exchange)
    kind = (error or "").partition(":")[0]
    again = "no divergence" if again is None else again
    note = f"the example was replayed: no divergence ({kind}); the exact exchange sent "
    note += f"once more: {again}"
    return dataclasses.replace(first, flaky=note, literal=True)


def _literal(sut: Sut, found: Divergence) -> Divergence:
    """The example reproduced ``found``, but replaying its operations alone (with the standard
    observations) did not: the divergence depends on the exact requests sent, so the vector is
    the literal exchange; flaky if even that does not diverge again."""
    if not found.exchange:
        return found
    again = replay_exchange(sut, found.exchange)
    note = None if again is not None else "replaying the exact exchange: no divergence"
    return dataclasses.replace(found, literal=True, flaky=note)


def default_window(sut: Sut) -> int:
    """In-process nothing overlaps, so every step is checked at once; a child process works
    while the explorer generates the next steps."""
    inner = sut.sut if isinstance(sut, RecordingSut) else sut
    return 1 if isinstance(inner, InProcessSut) else PIPELINE_WINDOW


def partial_result(ctx: RunContext, seed_value: int, seconds: float) -> ExploreResult:
    """What a run interrupted midway had found: its coverage, steps, the examples it finished
    and any divergence (not shrunk)."""
    return ExploreResult(
        ctx.coverage,
        ctx.first_failure,
        ctx.steps_run,
        seconds,
        0.0,
        seed_value,
        ctx.digests,
        conditions=ctx.conditions,
        steered=ctx.steered,
        examples=ctx.examples_done,
    )
