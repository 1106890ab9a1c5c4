"""explore's seeded generators and stateful runner (`explore.draw`): a walk is a function of the
seed alone, values stay in their bounds and reach them, and the runner keeps the rules' contract
(bundles, initialize rules, teardown)."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest

from session_toolset_harness.explore import draw as st
from session_toolset_harness.explore.draw import (
    Bundle,
    RuleBasedStateMachine,
    example_random,
    initialize,
    multiple,
    rule,
    run_example,
    samples,
)


def test_a_strategy_draws_the_same_values_from_the_same_seed() -> None:
    strategy = st.lists(st.one_of(st.integers(0, 2**64), st.text(max_size=5)), max_size=4)
    assert samples(strategy, 50, seed_value=7) == samples(strategy, 50, seed_value=7)
    assert samples(strategy, 50, seed_value=7) != samples(strategy, 50, seed_value=8)
    first = [example_random(3, i).random() for i in range(4)]
    assert len(set(first)) == 4  # every example its own stream
    assert first == [example_random(3, i).random() for i in range(4)]


def test_integers_stay_in_bounds_and_reach_both() -> None:
    for low, high in ((0, 3), (-5, 2**64 - 1), (2**63, 2**64)):
        drawn = samples(st.integers(low, high), 400)
        assert all(low <= v <= high for v in drawn)
        assert low in drawn and high in drawn


def test_utf8_characters_are_never_surrogates() -> None:
    chars = samples(st.characters(codec="utf-8", exclude_characters='"'), 2000)
    assert not any(unicodedata.category(c) == "Cs" or c == '"' for c in chars)
    assert any(ord(c) > 0xFFFF for c in chars) and any(ord(c) < 0x20 for c in chars)


def test_unique_lists_and_filters() -> None:
    for value in samples(st.lists(st.integers(0, 5), min_size=2, unique=True), 100):
        assert len(set(value)) == len(value) >= 2
    assert all(v % 2 == 0 for v in samples(st.integers(0, 100).filter(lambda v: v % 2 == 0), 50))


class Counting(RuleBasedStateMachine):
    things = Bundle("things")

    def __init__(self) -> None:
        super().__init__()
        self.log: list[str] = []
        self.torn_down = 0

    @initialize(target=things, n=st.integers(0, 2))
    def start(self, n: int) -> Any:
        self.log.append("start")
        return multiple(*range(n))

    @rule(thing=things)
    def use(self, thing: int) -> None:
        assert "start" in self.log  # initialize rules run first
        self.log.append(f"use {thing}")

    @rule(target=things, value=st.integers(10, 12))
    def make(self, value: int) -> int:
        self.log.append("make")
        return value

    def teardown(self) -> None:
        self.torn_down += 1


def test_the_runner_runs_initialize_rules_first_and_waits_for_bundles() -> None:
    for index in range(30):
        machine = Counting()
        ran = run_example(machine, example_random(0, index), 12)
        assert machine.log[0] == "start" and machine.torn_down == 1
        assert ran == len(machine.log) <= 12
        made = 0
        for entry in machine.log[1:]:  # a thing is used only once the bundle holds one
            if entry == "make":
                made += 1
            else:
                assert int(entry.split()[1]) in {0, 1, 10, 11, 12}
                assert made or machine.bundles["things"]


class Failing(Counting):
    @rule()
    def fail(self) -> None:
        raise AssertionError("planted")


def test_a_rule_that_raises_ends_the_example_after_its_teardown() -> None:
    machine = Failing()
    with pytest.raises(AssertionError, match="planted"):
        for index in range(50):
            machine = Failing()
            run_example(machine, example_random(1, index), 30)
    assert machine.torn_down == 1


class Discarding(Counting):
    @rule(data=st.data())
    def impossible(self, data: st.DataObject) -> None:
        self.log.append("impossible")
        data.draw(st.integers(0, 1).filter(lambda v: v > 5))  # never: the rule gives up


def test_a_draw_a_rule_cannot_make_inside_its_body_skips_the_rule_not_the_run() -> None:
    tried = 0
    for index in range(20):
        machine = Discarding()
        run_example(machine, example_random(2, index), 12)  # nothing escapes
        assert machine.torn_down == 1
        tried += machine.log.count("impossible")
    assert tried  # the rule did run, and gave up each time
