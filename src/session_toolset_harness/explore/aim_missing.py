"""Aimed examples: after the random examples of a run, the steering macros aimed at what the
coverage gate still misses.

Hypothesis's draws cluster (it mutates and splices the choice sequences of earlier examples), so
a rule argument drawn from a list of targets is far from uniform: over one `ci` round (300 x 50)
the `aim` macro's 35 targets got from 0 to 26 attempts each.  A target left at 0 or 1 leaves its
outcome to luck, and a coverage minimum to a second round of 300 examples.  So, when a minimum is
unmet at the end of the random examples, `aim_missing` runs short examples of its own (fresh
machine, ``reset``, one macro, the end-of-example observation: compared exactly like the random
ones) in a fixed order derived from what is missing and the seed:

* each missing (operation, outcome) pair that `steering.aim` has a recipe for, through that
  recipe, over a few subjects (a batch of one tool and of two), until the pair is hit;
* each missing ``Protocol`` rejection of an op with fields, by that op with none of them
  (PROTOCOL.md: a missing field is ``Protocol``), and a missing ``send_line`` ``Protocol`` by a
  truncated JSON line (PROTOCOL.md: a malformed line is answered ``Protocol``);
* then, while anything is still missing (condition outcomes included), `drift_then_rebuild` over
  its argument grid in an order shuffled by the seed (each call flips one condition of the
  rebuild's carry decision, or none).

It stops as soon as nothing is missing, at a divergence (reported and reduced like any other:
`reduce` replays request sequences, it does not need Hypothesis), or after `MAX_EXAMPLES`.  What
it cannot reach is left to the profile's further rounds.  The recipes know the model's decisions
(SPEC.md's check lists and carry condition), not any implementation's bugs.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any, Final

from ..conform.jsonio import RawLine
from ..corpus import coverage as condition_gate
from . import coverage, pools
from .context import DivergenceError, RunContext
from .machine import ExploreMachine
from .protocol_rules import ROWS
from .steering import CHANGES, NOT_PROGRESSIVE, TARGETS

MAX_EXAMPLES: Final = 400
"""Aimed examples one run may spend (each is a reset and one macro: about 10 requests)."""
MALFORMED_LINE: Final = RawLine(b'{"op":')
"""A raw line that is not a JSON object: the recipe for ``send_line``'s ``Protocol``."""

Task = tuple[str, dict[str, Any], tuple[str, str] | None]
"""A macro, its arguments, and the (op, outcome) pair it aims at (None: the carry grid)."""


def missing(ctx: RunContext, min_hits: int) -> tuple[list[tuple[str, str]], list[str]]:
    """The required pairs below ``min_hits`` and the reachable condition outcomes never seen."""
    short = [pair for pair, _ in coverage.missing(ctx.coverage, min_hits)]
    return short, condition_gate.missing(ctx.conditions)


def tasks(pairs: list[tuple[str, str]], seed: int) -> Iterator[Task]:
    """The aimed macro calls, in order: the recipes of the missing pairs, then the carry grid."""
    for pair in pairs:
        if pair[1] == "Protocol" and pair[0] in ROWS:
            yield "missing_fields", {"op": pair[0]}, pair
        if pair == ("send_line", "Protocol"):  # not an op: the raw-line step (`op_name`)
            yield "step", {"request": MALFORMED_LINE}, pair
        if pair not in TARGETS:
            continue
        others = [*NOT_PROGRESSIVE[1:], NOT_PROGRESSIVE[0]]
        for index, (tool, other) in enumerate(zip(NOT_PROGRESSIVE, others, strict=True)):
            name = pools.SET_NAMES[index % len(pools.SET_NAMES)]
            for partner in (tool, other):  # a batch of one, then of two
                yield (
                    "aim",
                    {"target_pair": pair, "name": name, "tool": tool, "other": partner},
                    pair,
                )
    grid = list(
        itertools.product(
            sorted(set(CHANGES)),
            NOT_PROGRESSIVE,
            range(4),
            ["same", "other"],
            [True, False],
            [None, True, False],
            [True, False],
        )
    )
    random.Random(seed).shuffle(grid)
    for change, tool, flavor, into, progressive, carry, call in grid:
        yield (
            "drift_then_rebuild",
            {
                "name": pools.SET_NAMES[0],
                "session": pools.SESSIONS[0],
                "tool": tool,
                "flavor": flavor,
                "change": change,
                "into": into,
                "progressive": progressive,
                "carry": carry,
                "call": call,
            },
            None,
        )


def aim_missing(ctx: RunContext, min_hits: int, seed: int) -> int:
    """Run aimed examples while the coverage minimum is unmet; the number run."""
    pairs, unseen = missing(ctx, min_hits)
    if not pairs and not unseen:
        return 0
    run = 0
    for macro, args, pair in tasks(pairs, seed):
        if run >= MAX_EXAMPLES or ctx.failure is not None:
            break
        if pair is not None and pair not in pairs:
            continue  # reached by an earlier aimed example
        run += 1
        if not _example(ctx, macro, args):
            break
        pairs, unseen = missing(ctx, min_hits)
        if not pairs and not unseen:
            break
    return run


def _example(ctx: RunContext, macro: str, args: dict[str, Any]) -> bool:
    """One aimed example; False at a divergence (recorded in ``ctx``)."""
    try:
        machine = ExploreMachine(ctx)
        getattr(machine, macro)(**args)
        machine.teardown()
    except DivergenceError:
        return False
    return True
