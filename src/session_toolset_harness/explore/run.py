"""Running the machine: settings profiles, seeding, and the result of one exploration.

Profiles (``--profile`` on the CLI, ``SESSION_TOOLSET_PROFILE`` under pytest):

* ``dev`` — a quick look while editing;
* ``ci`` — the default pytest run: bounded so the explore tests stay well under a minute on two
  cores, and every required (operation, outcome) pair must be hit at least once;
* ``nightly`` — long; every required pair at least 5 times.

Every run is derandomized by an explicit seed (under the default ``prng`` engine each example's
PRNG is seeded from it and the example's index, `prng_engine`; under ``hypothesis`` it is
``hypothesis.seed``, and Hypothesis's example database is never written), and the constants
Hypothesis mixes into its draws (either engine draws through its provider) are a fixed list
(`spec_constants`) instead of the literals of whatever local modules the process has loaded: so the
same seed walks the same way under ``session-toolset explore``, under pytest, from an editable or a
regular install, and in any working directory (where the command writes nothing: `storage`; a bare
`explore` call leaves Hypothesis's caches where Hypothesis puts them).
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis.database import ExampleDatabase, InMemoryExampleDatabase
from hypothesis.errors import Flaky, FlakyFailure, FlakyReplay, FlakyStrategyDefinition
from hypothesis.reporting import with_reporter
from hypothesis.stateful import run_state_machine_as_test
from session_toolset_model.conditions import ConditionTable

from ..corpus import coverage as condition_gate
from . import coverage, pools, prng_engine
from .aim_missing import aim_missing
from .context import (
    DigestPreflightError,
    Divergence,
    DivergenceError,
    RunContext,
    learn_digests,
)
from .machine import ExploreMachine
from .prng_engine import DEFAULT_ENGINE, ENGINES
from .reduce import reduce, replay_exchange
from .spec_constants import fixed_constants
from .sut import InProcessSut, RecordingSut, Sut

PIPELINE_WINDOW = 64
"""Requests an external adapter may have outstanding before the explorer reads its replies."""

PROFILE_ENV = "SESSION_TOOLSET_PROFILE"

FLAKY_ERRORS = tuple(
    e.__name__ for e in (Flaky, FlakyFailure, FlakyReplay, FlakyStrategyDefinition)
)
"""Hypothesis's errors for an example that failed once and passed (or ran otherwise) when
replayed: with a divergence seen, the implementation answered differently the second time."""


@dataclass(frozen=True)
class Profile:
    examples: int
    steps: int
    min_hits: int
    rounds: int
    """Most seeds (``seed``, ``seed + 1``, ...) to run while a coverage minimum is unmet."""


PROFILES: dict[str, Profile] = {
    "dev": Profile(examples=50, steps=30, min_hits=0, rounds=1),
    "ci": Profile(examples=300, steps=50, min_hits=1, rounds=3),
    "nightly": Profile(examples=10_000, steps=60, min_hits=5, rounds=5),
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
    aimed: int = 0
    """Aimed examples run after the random ones (`aim_missing`)."""
    swept: int = 0
    """Edge-sweep examples run after the random ones (`edge_sweep`)."""
    steered: int = 0
    """Number literals steered off SPEC.md 1.4's declared difference (`RunContext.steered`)."""
    examples_done: int = 0
    """Examples finished (`RunContext.examples_done`): what an interrupted run got through."""

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.cpu_seconds if self.cpu_seconds else 0.0


def hypothesis_settings(
    examples: int,
    steps: int,
    *,
    shrink: bool = True,
    phases: Sequence[Phase] | None = None,
    database: ExampleDatabase | None = None,
) -> settings:
    if phases is None:
        phases = [Phase.generate, Phase.target, *([Phase.shrink] if shrink else [])]
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        database=database,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
    )


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
    min_hits: int = 0,
    engine: str = DEFAULT_ENGINE,
    steer_declared: bool = False,
    watch: Callable[[RunContext], None] | None = None,
) -> ExploreResult:
    """Run the machine against ``sut``; a divergence is returned, never raised.

    ``steer_declared``: steer every request off the number literals of SPEC.md 1.4's declared
    difference (``--exclude-tag declared-difference``; `RunContext.steer_declared`).

    ``watch``: called with the run's context once before the first example and after every
    example (progress; the caller keeps the context to report a run interrupted midway).

    ``engine``: ``prng`` (`prng_engine`, the default: the machine's rules and strategies over a
    seeded PRNG; a divergence is shrunk by `reduce` alone) or ``hypothesis`` (Hypothesis's
    engine draws the examples and shrinks a divergence's rules first).

    ``min_hits``: a coverage minimum (the profile's); with one, the edge sweep follows the
    random examples (`edge_sweep`), then, when the minimum is still unmet, aimed examples
    (`aim_missing`).

    ``window``: requests written before their replies are read (default: `default_window`).
    With a window, a divergence surfaces only where the window is read, which shrinks badly;
    so the run that finds it does not shrink, and a second run replays the failing example
    (kept in an in-memory example database, never written anywhere) with a window of one step
    and shrinks it.  ``on_divergence``: called once when the first divergence is found, before
    shrinking (``--jobs``: the other workers are stopped then).
    """
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        digests = learn_digests(sut)
    except DigestPreflightError as err:
        failure = Divergence(tuple(err.records[:-1]), (err.records[-1],), err.reason)
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

    def factory() -> ExploreMachine:
        return ExploreMachine(ctx)

    def run(phases: Sequence[Phase], database: ExampleDatabase | None) -> str | None:
        options = hypothesis_settings(examples, steps, phases=phases, database=database)
        with with_reporter(lambda _message: None), fixed_constants():
            try:
                run_state_machine_as_test(  # type: ignore[no-untyped-call]
                    seed(seed_value)(factory), settings=options
                )
            except DivergenceError:
                pass
            except Exception as err:
                return f"{type(err).__name__}: {err}"
        return None

    two_runs = shrink and window > 1
    if engine == "prng":
        error = _run_prng(ctx, factory, examples, steps, seed_value, replay=two_runs)
    elif engine == "hypothesis":
        database = InMemoryExampleDatabase() if two_runs else None
        generate = [
            Phase.generate,
            Phase.target,
            *([Phase.shrink] if shrink and not two_runs else []),
        ]
        error = run(generate, database)
        if two_runs and ctx.failure is not None and error is None:
            ctx.window = 1
            error = run([Phase.reuse, Phase.shrink], database)
            if ctx.failure is None and error is None:  # the replay of its example passed
                error = f"{Flaky.__name__}: the replay of the failing example passed"
    else:
        raise ValueError(f"engine {engine!r}: expected one of {', '.join(ENGINES)}")
    aimed = swept = 0
    if min_hits and ctx.first_failure is None and error is None:
        try:  # an exception of an in-process implementation is an error, as in the examples
            aimed = aim_missing(ctx, min_hits, seed_value)
        except Exception as err:
            error = f"{type(err).__name__}: {err}"
    if ctx.first_failure is not None and (_flaky(error) or (ctx.failure is None and not error)):
        # It did not happen again when Hypothesis replayed the example (its Flaky error, or a
        # replay that passed): report the first divergence, as it happened.
        ctx.failure, error = _as_flaky(sut, ctx.first_failure, error), None
    elif shrink and ctx.failure is not None and error is None and ctx.failure.kind != "timeout":
        # (a timeout is reported as found: every replay would wait the timeout out again)
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
        aimed=aimed,
        swept=swept,
        steered=ctx.steered,
        examples_done=ctx.examples_done,
    )


def _run_prng(
    ctx: RunContext,
    factory: Callable[[], ExploreMachine],
    examples: int,
    steps: int,
    seed_value: int,
    *,
    replay: bool,
) -> str | None:
    """The examples under `prng_engine`; with ``replay``, the failing example once more with a
    window of one step (so the divergence surfaces at its own step), as the Hypothesis engine
    replays it from its in-memory database."""

    def failing(only: int | None = None) -> int | None:
        return prng_engine.run_examples(
            factory,
            examples=examples,
            steps=steps,
            seed_value=seed_value,
            stop_on=DivergenceError,
            only=only,
        )

    with fixed_constants():
        try:
            failed = failing()
            if replay and failed is not None:
                ctx.window = 1
                if failing(only=failed) is None:
                    return f"{Flaky.__name__}: the replay of the failing example passed"
        except Exception as err:
            return f"{type(err).__name__}: {err}"
    return None


def _flaky(error: str | None) -> bool:
    return error is not None and error.startswith(FLAKY_ERRORS)


def _as_flaky(sut: Sut, first: Divergence, error: str | None) -> Divergence:
    """The first divergence, marked flaky, with what a replay of its exact exchange gives."""
    again = replay_exchange(sut, first.exchange)
    kind = (error or "").partition(":")[0]
    again = "no divergence" if again is None else again
    note = f"the example was replayed: no divergence ({kind}); the exact exchange sent "
    note += f"once more: {again}"
    return dataclasses.replace(first, flaky=note, literal=True)


def _literal(sut: Sut, found: Divergence) -> Divergence:
    """Hypothesis reproduced ``found``, but replaying its operations alone (with the standard
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


def explore_rounds(
    sut: Sut,
    *,
    examples: int,
    steps: int,
    seed_value: int = 0,
    rounds: int = 1,
    min_hits: int = 0,
    shrink: bool = True,
    engine: str = DEFAULT_ENGINE,
) -> ExploreResult:
    """Run seeds ``seed_value``, ``seed_value + 1``, ... until the coverage minimum is met, a
    divergence or error appears, or ``rounds`` seeds ran; coverage and steps accumulate.

    A seed's random examples can leave a rare outcome unhit (Hypothesis's draws cluster) where
    the aimed examples have no recipe; extra rounds keep the coverage gate from hanging on that
    while every round stays reproducible from its printed seed.
    """
    total: ExploreResult | None = None
    for offset in range(max(rounds, 1)):
        result = explore(
            sut,
            examples=examples,
            steps=steps,
            seed_value=seed_value + offset,
            shrink=shrink,
            min_hits=min_hits,
            engine=engine,
        )
        if total is None:
            total = result
        else:
            total.coverage.update(result.coverage)
            total.conditions.merge(result.conditions)
            total.steps += result.steps
            total.aimed += result.aimed
            total.swept += result.swept
            total.steered += result.steered
            total.seconds += result.seconds
            total.cpu_seconds += result.cpu_seconds
            total.failure, total.error, total.preflight = (
                result.failure,
                result.error,
                result.preflight,
            )
            total.seed = result.seed
        if total.failure is not None or total.error is not None:
            break
        if not coverage.missing(total.coverage, min_hits) and not (
            min_hits and condition_gate.missing(total.conditions)
        ):
            break
    assert total is not None
    return total


def partial_result(ctx: RunContext, seed_value: int, seconds: float) -> ExploreResult:
    """What a run interrupted midway had found: its coverage, steps and any divergence (not
    shrunk)."""
    return ExploreResult(
        ctx.coverage,
        ctx.first_failure,
        ctx.steps_run,
        seconds,
        0.0,
        seed_value,
        ctx.digests,
        conditions=ctx.conditions,
        examples_done=ctx.examples_done,
    )
