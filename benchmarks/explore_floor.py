"""How fast can an in-process exploration get while Hypothesis drives its steps?  Prints figures.

Three timings, in one process, CPU seconds (``time.process_time``), after a warm-up run:

1. **the run**: ``explore()`` in-process (``--examples`` x ``--steps``, ``--seed``, no
   shrinking), as ``bench_explore.py`` times it;
2. **its checks alone**: the same run's requests, recorded, sent again through fresh machines
   outside Hypothesis: the model's world, the request encoding, the reference implementation,
   the observer, the condition recorder; everything the run does except choosing rules and
   drawing their arguments.  No generator that sends these requests through these checks can
   make the run cheaper than this;
3. **Hypothesis's stateful engine alone**: a machine with one rule that draws one integer and
   does nothing, under explore's settings; its cost per rule times the run's rule count is what
   the engine costs a run before any argument is drawn.

From them: the ceiling of an explorer in which Hypothesis chooses every rule, on this walk's
requests and today's checks (checks + engine, with argument generation free; probably
optimistic: the one-rule machine runs more rules per example and no initialize rules), as a
ratio to the run itself (the engine figure is the noisy part), and,
with ``--today STEPS_PER_S`` (the baseline's in-process figure), how it compares with twice that
figure.  ``bench_explore.py`` runs this with ``--json`` and sets it beside the baseline tree's
in-process figure of the same benchmark run, so that ratio is not one of two loads.

    python benchmarks/explore_floor.py [--examples 200] [--steps 50] [--seed 0] [--today N]
                                       [--json]
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from typing import Any

from hypothesis import Phase, seed
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule, run_state_machine_as_test

from session_toolset_harness.explore import machine, run
from session_toolset_harness.explore.context import RunContext, learn_digests
from session_toolset_harness.explore.sut import InProcessSut


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _rate(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive steps/s figure, got {text}")
    return value


def record_run(
    examples: int, steps: int, seed_value: int
) -> tuple[int, float, list[list[Any]], int]:
    """The run's steps and CPU seconds, every machine's requests in order, and its rule count."""
    machines: list[machine.ExploreMachine] = []
    requests: list[list[Any]] = []
    init, step = machine.ExploreMachine.__init__, machine.ExploreMachine.step

    def recording_init(self: machine.ExploreMachine, ctx: RunContext) -> None:
        init(self, ctx)
        machines.append(self)
        requests.append([])

    def recording_step(self: machine.ExploreMachine, request: Any) -> Any:
        requests[-1].append(copy.deepcopy(request))  # a rule may reuse its dict afterwards
        return step(self, request)

    machine.ExploreMachine.__init__ = recording_init  # type: ignore[method-assign]
    machine.ExploreMachine.step = recording_step  # type: ignore[method-assign]
    try:
        started = time.process_time()
        result = run.explore(
            InProcessSut(),
            examples=examples,
            steps=steps,
            seed_value=seed_value,
            shrink=False,
        )
        cpu = time.process_time() - started
    finally:
        machine.ExploreMachine.__init__ = init  # type: ignore[method-assign]
        machine.ExploreMachine.step = step  # type: ignore[method-assign]
    if result.failure is not None or result.error is not None:
        raise SystemExit(
            f"the run did not pass, so it cannot be timed: {result.error or result.failure}"
        )
    rules = sum(m._rules_strategy.draws for m in machines)  # type: ignore[attr-defined]
    return result.steps, cpu, requests, rules


def replay_checks(requests: list[list[Any]]) -> tuple[float, bool]:
    """CPU seconds to send ``requests`` through fresh machines without Hypothesis; whether any
    divergence appeared (it must not: the run passed)."""
    sut = InProcessSut()
    ctx = RunContext(sut, learn_digests(sut), pipeline=True, window=1)
    started = time.process_time()
    for sequence in requests:
        m = machine.ExploreMachine(ctx)
        for request in sequence:
            m.step(request)
        m.teardown()
    return time.process_time() - started, ctx.failure is not None


class _OneRule(RuleBasedStateMachine):
    rules_run = 0

    @rule(value=st.integers(0, 2**63))
    def nothing(self, value: int) -> None:
        _OneRule.rules_run += 1


def engine_per_rule(examples: int, steps: int, seed_value: int) -> float:
    """CPU seconds Hypothesis's stateful engine spends per rule with nothing else to do."""
    options = run.hypothesis_settings(examples, steps, [Phase.generate, Phase.target], None)
    _OneRule.rules_run = 0
    started = time.process_time()
    run_state_machine_as_test(seed(seed_value)(_OneRule), settings=options)  # type: ignore[no-untyped-call]
    return (time.process_time() - started) / max(_OneRule.rules_run, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--examples", type=_positive, default=200)
    parser.add_argument("--steps", type=_positive, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--today", type=_rate, help="the baseline's in-process steps/s")
    parser.add_argument("--json", action="store_true", help="one JSON line of CPU seconds")
    args = parser.parse_args()

    record_run(20, args.steps, args.seed + 1)  # warm-up: imports, caches, first-use costs
    steps, cpu, requests, rules = record_run(args.examples, args.steps, args.seed)
    checks, diverged = replay_checks(requests)
    if diverged:
        raise SystemExit("the replay diverged where the run passed: the figures mean nothing")
    engine = engine_per_rule(args.examples, args.steps, args.seed) * rules
    ceiling = steps / (checks + engine)
    if args.json:
        figures = {"steps": steps, "rules": rules, "run": cpu, "checks": checks, "engine": engine}
        print(json.dumps(figures))
        return

    print(f"{args.examples} x {args.steps}, seed {args.seed}: {steps:,} steps, {rules:,} rules")

    def row(name: str, seconds: float, rest: str) -> None:
        print(f"{name:44} {seconds:6.2f} s CPU  {rest}")

    row("the run (explore, in-process)", cpu, f"{steps / cpu:7,.0f} steps/s")
    row("its checks alone (no generation)", checks, f"{steps / checks:7,.0f} steps/s")
    row("Hypothesis's engine alone, for its rules", engine, f"({engine / rules * 1e6:.0f} us/rule)")
    row("ceiling with Hypothesis: checks + engine", checks + engine, f"{ceiling:7,.0f} steps/s")
    print(f"generation (rules and arguments) is {1 - checks / cpu:.0%} of the run")
    print(f"the ceiling is {ceiling / (steps / cpu):.2f}x this run's own steps/s")
    if args.today:
        target = 2 * args.today
        budget = steps / target - checks - engine
        print(f"2x today ({args.today:,.0f} steps/s) is {target:,.0f} steps/s:")
        print(f"  the ceiling is {ceiling / args.today:.2f}x today")
        print(
            f"  argument generation would have to cost {budget:+.2f} s CPU "
            f"({budget / steps * 1e6:+.0f} us per step; it costs "
            f"{(cpu - checks - engine) / steps * 1e6:.0f} us now)"
        )


if __name__ == "__main__":
    main()
