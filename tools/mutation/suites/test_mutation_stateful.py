"""Mutation suite "stateful": the explore RuleBasedStateMachine (implementation and the model's
oracle side by side) against the (mutated) reference adapter in-process, under a fixed seed and the
bounded ``mutation`` budget.  A mutant is killed when the machine reports a divergence or the run
errors.

The budget comes from the environment so the driver can state it in its report:
``MUTATION_STATEFUL_EXAMPLES`` (default 25), ``MUTATION_STATEFUL_STEPS`` (default 20) and
``MUTATION_STATEFUL_SEED`` (default 0).  ``MUTATION_STATEFUL_PROFILE`` (``dev``, ``ci`` or
``nightly``; default unset) runs that explore budget's examples x steps instead, as
``explore --budget`` does.  ``MUTATION_STATEFUL_DRIVER=serve`` drives the adapter's whole
stdin/stdout loop (`serve`, in a thread: what
``explore --adapter "python -m session_toolset.adapter"`` exercises) instead of calling
``handle_line`` directly (``in-process``, the default); then `serve` must also exit 0 at EOF,
and the adapter runs with SPEC.md's carry-forward variable set to ``0`` (no PROTOCOL.md reply
may depend on the adapter's environment).
Shrinking is off: a kill needs one divergence, not the minimal one.
"""

from __future__ import annotations

import os

from session_toolset_harness.explore.run import PROFILES, explore
from session_toolset_harness.explore.serve_sut import ServeSut
from session_toolset_harness.explore.sut import InProcessSut, Sut

EXAMPLES = int(os.environ.get("MUTATION_STATEFUL_EXAMPLES", "25"))
STEPS = int(os.environ.get("MUTATION_STATEFUL_STEPS", "20"))
SEED = int(os.environ.get("MUTATION_STATEFUL_SEED", "0"))
PROFILE = os.environ.get("MUTATION_STATEFUL_PROFILE", "")
DRIVER = os.environ.get("MUTATION_STATEFUL_DRIVER", "in-process")


def test_stateful_machine() -> None:
    if DRIVER != "serve":
        run(InProcessSut())
        return
    sut = ServeSut(carry_forward_env="0")
    try:
        run(sut)
    finally:
        sut.close()
    assert sut.exit_status == 0, f"serve returned {sut.exit_status} at EOF"


def run(sut: Sut) -> None:
    examples, steps = EXAMPLES, STEPS
    if PROFILE:
        examples, steps = PROFILES[PROFILE].examples, PROFILES[PROFILE].steps
    result = explore(sut, examples=examples, steps=steps, seed_value=SEED, shrink=False)
    assert result.error is None, result.error
    assert result.failure is None, result.failure
