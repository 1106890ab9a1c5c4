"""``--engine prng``: the same machine, its rules and strategies, driven by a seeded PRNG instead
of Hypothesis's engine.

Hypothesis's engine records every choice of an example (its choice sequence, spans, a tree of
every example run so far), mutates earlier examples into new ones, and wraps each draw of each
strategy in bookkeeping that exists so it can shrink and replay.  For explore that cost more
than the checks it feeds: Hypothesis was 46% of an in-process run's self time, against 25% for
the model and the implementation together (``benchmarks/explore_profile.py --engine
hypothesis``; 11% and 47% under this engine).  This engine keeps what decides *what is sent*
and drops the rest:

* the rules, their bundles, initialize rules and the one-draw rule choice (`rule_choice`) are the
  machine's own; every strategy is the machine's own object, and its ``do_draw`` runs unchanged;
* the primitive draws those strategies make (integers, booleans, floats, strings, bytes) are
  answered by Hypothesis's own ``HypothesisProvider``, the code that answers them in Hypothesis's
  generate phase, over a ``random.Random`` seeded per example from ``--seed`` and the example's
  index (the same constant pool mixes in: `spec_constants`);
* nothing is recorded.  So there is no mutation of earlier examples and no replay by choice
  sequence: an example is replayed by running its seed again (it is one deterministic function
  of the seed, the index and the generation modules), and a divergence is shrunk by `reduce`,
  which already cuts requests and simplifies values after Hypothesis's own shrinking.

`PrngData` is the object strategies draw from: it answers the part of Hypothesis's
``ConjectureData`` that the machine's strategies call (at the Hypothesis versions
`hypothesis_private.PRNG_ENGINE_VERSIONS`; the engine's tests fail if a version makes them call
more).  Strategies the machine does not use may need more:
``st.shared``, ``st.from_regex``, ``st.uuids`` and ``st.emails`` (``_shared_strategy_draws``)
and ``st.functions`` do not draw here; explore then stops with an error outside the comparison
(exit 1), naming the missing attribute.  A draw Hypothesis would mark invalid (an empty
bundle, a filter that found nothing) skips that rule; the step still counts, as a discarded
draw does not in Hypothesis (whose example is then thrown away instead).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, Final

from hypothesis.stateful import MultipleResults, RuleBasedStateMachine, VarReference

from ..interrupt import Interrupted
from .hypothesis_private import (
    COLLECTION_DEFAULT_MAX_SIZE,
    BuildContext,
    BuildsStrategy,
    HypothesisProvider,
    OneOfStrategy,
    SampledFromStrategy,
    TupleStrategy,
    default_engine,
    unwrap_strategies,
)
from .rule_choice import OneDrawRuleStrategy

ENGINES: Final = ("hypothesis", "prng")
"""``--engine`` values: Hypothesis's engine, or this module."""
DEFAULT_ENGINE: Final = default_engine()
"""``prng`` where the installed Hypothesis supports it (`hypothesis_private`): it kills every
mutant Hypothesis's engine kills at the same budget, and more, finds every miniature in fewer
steps and runs about twice the steps per CPU-second (docs/explore.md)."""


class Discarded(Exception):
    """A draw Hypothesis would have marked invalid (``mark_invalid``): the rule is skipped."""


def example_random(seed_value: int, index: int) -> random.Random:
    """The PRNG of example ``index`` of a run seeded ``seed_value``: a string seed, hashed by
    ``random`` itself (SHA-512), so no two (seed, index) pairs share a stream and the stream is
    the same in every process and on every platform."""
    return random.Random(f"session-toolset explore {seed_value}:{index}")


class PrngDataObject:
    """What a rule's ``st.data()`` argument is under this engine: ``draw`` only (no notes)."""

    def __init__(self, data: PrngData) -> None:
        self._data = data

    def draw(self, strategy: Any, label: Any = None) -> Any:
        return self._data.draw(strategy)


class PrngData:
    """The part of Hypothesis's ``ConjectureData`` that strategies call, answered from a PRNG.

    ``forced`` values are returned as given (Hypothesis's collection helpers force their last
    "stop" draw); spans, observation flags and labels are accepted and ignored.
    """

    depth = 0
    nodes: tuple[Any, ...] = ()
    """Read by Hypothesis's build context when it labels arguments (nothing is recorded)."""

    def __init__(self, rng: random.Random) -> None:
        self._random = rng  # the provider reads ``_cd._random``
        self.hypothesis_runner: Any = None
        self.arg_slices: set[Any] = set()
        self.slice_comments: dict[Any, Any] = {}
        self.events: dict[str, Any] = {}
        """Where Hypothesis's filters count their retries (read by no one here)."""
        self.provider = HypothesisProvider(self)  # type: ignore[arg-type]
        self._shared_data_strategy = PrngDataObject(self)

    # -- strategies ------------------------------------------------------------------------
    def draw(self, strategy: Any, label: Any = None, observe_as: Any = None) -> Any:
        unwrapped = _unwrapped(strategy)
        kind = type(unwrapped)
        if kind is SampledFromStrategy and not unwrapped._transformations:
            elements = unwrapped.elements  # what its do_draw does, without the filter machinery
            return elements[self.draw_integer(0, len(elements) - 1)]
        if kind is OneOfStrategy:
            return self.draw(self._branch(unwrapped.element_strategies))
        # Two strategies read Hypothesis's build context to label their arguments for its
        # explain phase; drawing their parts here gives the same values without the labels.
        if kind is TupleStrategy:
            return tuple(self.draw(e) for e in unwrapped.element_strategies)
        if kind is BuildsStrategy:
            args = [self.draw(a) for a in unwrapped.args]
            kwargs = {k: self.draw(v) for k, v in unwrapped.kwargs.items()}
            return unwrapped.target(*args, **kwargs)
        return unwrapped.do_draw(self)

    def _branch(self, branches: Any) -> Any:
        """A branch of a ``one_of`` that can draw now (a bundle branch may be empty): what its
        ``do_draw`` picks with a filtered ``sampled_from`` (a few random tries, then one of the
        branches left), without building that strategy at every draw."""
        last = len(branches) - 1
        for _ in range(3):
            branch = branches[self.draw_integer(0, last)]
            if not branch.is_currently_empty(self):
                return branch
        left = [b for b in branches if not b.is_currently_empty(self)]
        if not left:
            self.mark_invalid("every branch of a one_of is an empty bundle")
        return left[self.draw_integer(0, len(left) - 1)]

    # -- primitive choices -----------------------------------------------------------------
    def draw_integer(
        self,
        min_value: int | None = None,
        max_value: int | None = None,
        *,
        weights: dict[int, float] | None = None,
        shrink_towards: int = 0,
        forced: int | None = None,
        observe: bool = True,
    ) -> int:
        if forced is not None:
            return forced
        return self.provider.draw_integer(
            min_value, max_value, weights=weights, shrink_towards=shrink_towards
        )

    def draw_boolean(
        self, p: float = 0.5, *, forced: bool | None = None, observe: bool = True
    ) -> bool:
        if forced is not None:
            return forced
        return self.provider.draw_boolean(p)

    def draw_float(
        self,
        min_value: float = -float("inf"),
        max_value: float = float("inf"),
        *,
        allow_nan: bool = True,
        smallest_nonzero_magnitude: float = 5e-324,
        forced: float | None = None,
        observe: bool = True,
    ) -> float:
        if forced is not None:
            return forced
        return self.provider.draw_float(
            min_value=min_value,
            max_value=max_value,
            allow_nan=allow_nan,
            smallest_nonzero_magnitude=smallest_nonzero_magnitude,
        )

    def draw_string(
        self,
        intervals: Any,
        *,
        min_size: int = 0,
        max_size: int = COLLECTION_DEFAULT_MAX_SIZE,
        forced: str | None = None,
        observe: bool = True,
    ) -> str:
        if forced is not None:
            return forced
        return self.provider.draw_string(intervals, min_size=min_size, max_size=max_size)

    def draw_bytes(
        self,
        min_size: int = 0,
        max_size: int = COLLECTION_DEFAULT_MAX_SIZE,
        *,
        forced: bytes | None = None,
        observe: bool = True,
    ) -> bytes:
        if forced is not None:
            return forced
        return self.provider.draw_bytes(min_size, max_size)

    def choice(self, values: Any, *, forced: Any = None, observe: bool = True) -> Any:
        index = None if forced is None else values.index(forced)
        return values[self.draw_integer(0, len(values) - 1, forced=index)]

    # -- bookkeeping Hypothesis keeps and this engine does not ------------------------------
    def start_span(self, label: int) -> None:
        pass

    def stop_span(self, *, discard: bool = False) -> None:
        pass

    def mark_invalid(self, why: str | None = None) -> None:
        raise Discarded(why or "invalid draw")


_UNWRAPPED: dict[int, tuple[Any, Any]] = {}
"""Strategy id -> (the strategy, what it unwraps to): Hypothesis's own cache is a thread-local
weak dictionary, about a quarter of a draw's cost here (0.72 of 2.71 profiled seconds).  The
strategy is kept alive with its entry, so its id cannot be reused while cached; the cache is
emptied when it grows past `_UNWRAPPED_MAX` (rules build a few strategies per draw)."""
_UNWRAPPED_MAX: Final = 4096


def _unwrapped(strategy: Any) -> Any:
    entry = _UNWRAPPED.get(id(strategy))
    if entry is not None and entry[0] is strategy:
        return entry[1]
    if len(_UNWRAPPED) >= _UNWRAPPED_MAX:
        _UNWRAPPED.clear()
    unwrapped = unwrap_strategies(strategy)  # type: ignore[no-untyped-call]
    _UNWRAPPED[id(strategy)] = (strategy, unwrapped)
    return unwrapped


@contextmanager
def drawing() -> Iterator[None]:
    """The build context strategies and machines expect to exist while they draw."""
    with BuildContext(PrngData(random.Random(0)), wrapped_test=None):  # type: ignore[arg-type]
        yield


def _resolved(machine: RuleBasedStateMachine, value: Any) -> Any:
    """A bundle reference (or a list of them) replaced by the value it names, as Hypothesis's
    stateful loop does before it calls the rule."""
    names = machine.names_to_values
    if isinstance(value, VarReference):
        return names[value.name]
    if isinstance(value, list) and value and all(isinstance(v, VarReference) for v in value):
        return [names[v.name] for v in value]
    return value


def run_example(machine: Any, rng: random.Random, steps: int) -> int:
    """Run ``steps`` rules of ``machine`` (initialize rules first, in an order the PRNG picks),
    then its teardown; the number of rules that ran.  Exceptions of a rule propagate (a
    divergence is the machine's ``DivergenceError``), after the teardown has run (what the
    teardown raises then is dropped: the rule's exception is the outcome)."""
    data = PrngData(rng)
    data.hypothesis_runner = machine
    strategy = machine._rules_strategy
    if not isinstance(strategy, OneDrawRuleStrategy):  # Hypothesis's own needs its runner
        strategy = OneDrawRuleStrategy(machine)
    pending: list[Any] = machine._initialize_rules_to_run
    ran = 0
    try:
        for _ in range(steps):
            try:
                if pending:
                    rule = pending.pop(rng.randrange(len(pending)))
                    arguments = {k: data.draw(s) for k, s in rule.arguments.items()}
                else:
                    rule, arguments = strategy.do_draw(data)
                arguments = {k: _resolved(machine, v) for k, v in arguments.items()}
                result = rule.function(machine, **arguments)
            except Discarded:
                continue
            ran += 1
            if rule.targets:
                values = result.values if isinstance(result, MultipleResults) else [result]
                machine._add_results_to_targets(rule.targets, values)
    except Interrupted:
        raise  # SIGINT/SIGTERM: stop now; a teardown would wait for the replies still owed
    except BaseException:
        # What the rule raised is the example's outcome: a teardown that then fails (an
        # implementation interrupted mid-operation by Ctrl-C no longer matches the model)
        # must not turn a KeyboardInterrupt or an error into a divergence.
        with suppress(Exception):
            machine.teardown()
        raise
    machine.teardown()
    return ran


def run_examples(
    factory: Callable[[], Any],
    *,
    examples: int,
    steps: int,
    seed_value: int,
    stop_on: type[BaseException],
    only: int | None = None,
) -> int | None:
    """Run the examples of the run seeded ``seed_value`` in order (``only``: that one example);
    the index of the first that raised ``stop_on`` (a divergence), or None.  Any other
    exception propagates."""
    indices = range(examples) if only is None else (only,)
    with drawing():
        for index in indices:
            try:
                run_example(factory(), example_random(seed_value, index), steps)
            except stop_on:
                return index
    return None
