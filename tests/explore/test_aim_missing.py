"""Aimed examples (`aim_missing`): when the random examples leave a coverage minimum unmet, the
steering recipes of what is missing run in fresh examples, compared like any other, and a
divergence they meet is reported and reduced like any other."""

from __future__ import annotations

import pytest

from session_toolset_harness.explore import aim_missing as aiming
from session_toolset_harness.explore import pools
from session_toolset_harness.explore.aim_missing import MAX_EXAMPLES
from session_toolset_harness.explore.context import RunContext
from session_toolset_harness.explore.protocol_rules import ROWS
from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.steering import TARGETS
from session_toolset_harness.explore.sut import InProcessSut

from .conftest import miniature


def test_aimed_examples_reach_every_activation_outcome_the_random_ones_missed() -> None:
    plain = explore(InProcessSut(), examples=3, steps=10, seed_value=0)
    missed = [p for p in TARGETS if plain.coverage[p] == 0]
    assert plain.aimed == 0 and len(missed) >= len(TARGETS) // 2  # a tiny random budget
    aimed = explore(InProcessSut(), examples=3, steps=10, seed_value=0, min_hits=1)
    assert aimed.failure is None and aimed.error is None
    assert 0 < aimed.aimed <= MAX_EXAMPLES
    assert [p for p in TARGETS if aimed.coverage[p] == 0] == []
    assert aimed.steps > plain.steps


def test_a_divergence_in_an_aimed_example_is_reported_and_reduced() -> None:
    mini = miniature("mini_stale_grant_accepted")
    with mini.patch():
        aimed = explore(InProcessSut(), examples=3, steps=10, seed_value=0, min_hits=1)
    # Aimed examples run only when the random ones found nothing: an aimed example found it.
    assert aimed.failure is not None and aimed.error is None and aimed.aimed > 0
    assert aimed.failure.flaky is None and not aimed.failure.literal
    assert "StaleGeneration" in aimed.failure.reason
    ops = [r.request["op"] for r in aimed.failure.steps]
    assert ops[-1] == "activate" and len(ops) <= 6  # reduced: the macro's other steps dropped


def test_a_missing_protocol_rejection_is_aimed_at_by_its_op_without_fields() -> None:
    for op in sorted(ROWS):  # every op that has fields
        ctx = RunContext(InProcessSut(), pools.reference_digests())
        macro, args, pair = next(aiming.tasks([(op, "Protocol")], seed=0))
        assert (macro, pair) == ("missing_fields", (op, "Protocol"))
        assert aiming._example(ctx, macro, args) and ctx.failure is None
        assert ctx.coverage[(op, "Protocol")] == 1, op


def test_a_missing_raw_line_protocol_rejection_is_aimed_at_by_a_malformed_line() -> None:
    # `send_line` `Protocol` is a required pair too, and no op of ROWS: without its own recipe
    # the aimed examples spent their whole budget on the carry grid, as for `digest` before.
    ctx = RunContext(InProcessSut(), pools.reference_digests())
    macro, args, pair = next(aiming.tasks([("send_line", "Protocol")], seed=0))
    assert pair == ("send_line", "Protocol") and macro != "drift_then_rebuild"
    assert aiming._example(ctx, macro, args) and ctx.failure is None
    assert ctx.coverage[("send_line", "Protocol")] == 1


def test_one_aimed_example_settles_a_missing_protocol_rejection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Only `digest` `Protocol` left: without its recipe the carry grid can run all 400 aimed
    # examples without reaching it.
    wanted = [("digest", "Protocol")]

    def missing(ctx: RunContext, min_hits: int) -> tuple[list[tuple[str, str]], list[str]]:
        return [p for p in wanted if ctx.coverage[p] < min_hits], []

    monkeypatch.setattr(aiming, "missing", missing)
    ctx = RunContext(InProcessSut(), pools.reference_digests())
    assert aiming.aim_missing(ctx, 1, seed=6) == 1
    assert ctx.coverage[wanted[0]] == 1 and ctx.failure is None
