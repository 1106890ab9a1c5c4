"""The machine's one-draw rule strategy: Hypothesis draws it at every step, (nearly) every rule
runs, and swarm testing still switches rules off per example."""

from __future__ import annotations

import inspect
from collections import Counter
from typing import Any

import pytest

from session_toolset_harness.explore import rule_choice
from session_toolset_harness.explore.machine import ExploreMachine
from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.sut import InProcessSut


def test_every_step_is_drawn_by_it_and_the_rules_run(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: Counter[str] = Counter()
    off_per_example: list[int] = []
    strategies: list[rule_choice.OneDrawRuleStrategy] = []
    original = rule_choice.OneDrawRuleStrategy.do_draw
    swarm = rule_choice.OneDrawRuleStrategy._swarm
    ready_rules = rule_choice.OneDrawRuleStrategy._ready
    offered: set[str] = set()

    def do_draw(self: rule_choice.OneDrawRuleStrategy, data: Any) -> Any:
        rule, arguments = original(self, data)
        ran[rule.function.__name__] += 1
        return rule, arguments

    def counting_swarm(self: rule_choice.OneDrawRuleStrategy, data: Any) -> list[Any]:
        enabled = swarm(self, data)
        off_per_example.append(len(self.rules) - len(enabled))
        strategies.append(self)
        return enabled

    def recording_ready(self: rule_choice.OneDrawRuleStrategy) -> list[Any]:
        ready = ready_rules(self)
        offered.update(r.function.__name__ for r in ready)
        return ready

    monkeypatch.setattr(rule_choice.OneDrawRuleStrategy, "do_draw", do_draw)
    monkeypatch.setattr(rule_choice.OneDrawRuleStrategy, "_ready", recording_ready)
    monkeypatch.setattr(rule_choice.OneDrawRuleStrategy, "_swarm", counting_swarm)
    result = explore(InProcessSut(), examples=120, steps=30, seed_value=0, shrink=False)
    assert result.failure is None and result.error is None, result.error
    rules = {r.function.__name__ for r in strategies[0].rules}
    assert len(rules) > 30
    # (nearly) every rule runs; which few never can depends on the run's draws (a set rule
    # needs a set first, a rule with a bundle nested in an argument needs that bundle too)
    assert len(ran) >= len(rules) - 3, (rules - set(ran), ran)
    # ... but every rule is offered to the one draw: once the bundles fill up every enabled rule
    # is ready, whatever the walk, so a rule the strategy wrongly never offers fails here
    assert offered == rules, rules - offered
    # (a draw whose arguments overran the example is not run)
    assert sum(s.draws for s in strategies) >= sum(ran.values()) > 0
    # swarm testing: some examples run (nearly) every rule, others far fewer
    assert min(off_per_example) <= 3 and max(off_per_example) >= len(rules) // 2, off_per_example


def test_hypothesis_draws_the_machines_rule_strategy() -> None:
    """The hook is Hypothesis's private ``_rules_strategy``, which its stateful loop draws each
    step: a Hypothesis that stops doing so would silently bring back its own rule choice."""
    import hypothesis.stateful

    assert "cd.draw(machine._rules_strategy)" in inspect.getsource(
        hypothesis.stateful.get_state_machine_test
    )
    assert "self._rules_strategy = OneDrawRuleStrategy(self)" in inspect.getsource(
        ExploreMachine.__init__
    )
