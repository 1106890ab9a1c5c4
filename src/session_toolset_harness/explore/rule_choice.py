"""Choosing the next rule with one draw: the machine's rule strategy.

Hypothesis's own rule strategy (`hypothesis.stateful.RuleStrategy`) picks a rule by rejection
sampling over all of the machine's 40-odd rules, filtered by its swarm-testing feature flags;
every rule it looks at costs a flag decision written to the choice sequence, so with half the
rules switched off a step spent about eight choices, spans and filter calls before its first
argument.  This strategy keeps the same design and the same shrink directions, at one choice
per step:

* swarm testing as Hypothesis does it: per example one probability ``p`` (``0..254 / 255``) and
  each rule off with probability ``p``, decided once at the example's first step (a flag shrinks
  towards on, ``p`` towards 0: towards every rule enabled); if every rule is off, all are on;
* the rule: one integer over the rules that are enabled and can run (their bundles non-empty,
  preconditions true), in Hypothesis's rule order (shrinks towards the first);
* its arguments: drawn exactly as Hypothesis draws them (the rule's argument strategies, in
  order), so bundles, ``multiple`` results and the printed steps work unchanged.

It replaces the machine's ``_rules_strategy`` (what Hypothesis's stateful loop draws each step;
`tests/explore/test_rule_choice.py` fails if a Hypothesis upgrade stops drawing it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis.stateful import RuleBasedStateMachine

from .hypothesis_private import RuleStrategy


class OneDrawRuleStrategy(RuleStrategy):
    """The rule strategy of one machine (one example)."""

    def __init__(self, machine: RuleBasedStateMachine) -> None:
        super().__init__(machine)
        self._enabled: list[Any] | None = None
        self._plain = all(not r.preconditions for r in self.rules)
        self._by_bundles: dict[frozenset[str], list[Any]] = {}
        self.draws = 0
        """Steps drawn (a test's witness that Hypothesis draws this strategy)."""

    def _swarm(self, data: Any) -> list[Any]:
        p_disabled = data.draw_integer(0, 254) / 255
        enabled = [r for r in self.rules if not data.draw_boolean(p_disabled)]
        return enabled or list(self.rules)

    def _can_run(self, rule: Any) -> bool:
        bundles = self.machine.bundles
        if not all(bundles.get(b.name) for b in rule.bundles):
            return False
        preconditions: tuple[Callable[[RuleBasedStateMachine], bool], ...] = rule.preconditions
        return self._plain or all(pred(self.machine) for pred in preconditions)

    def _ready(self) -> list[Any]:
        assert self._enabled is not None
        ready = [r for r in self._enabled if self._can_run(r)]
        if not ready:  # the enabled rules all wait for a bundle: any rule that can run
            ready = [r for r in self.rules if self._can_run(r)]
        return ready

    def do_draw(self, data: Any) -> tuple[Any, dict[str, Any]]:
        self.draws += 1
        if self._enabled is None:
            self._enabled = self._swarm(data)
        if self._plain:  # without preconditions only the bundles that are empty matter
            key = frozenset(name for name, values in self.machine.bundles.items() if values)
            ready = self._by_bundles.get(key)
            if ready is None:
                ready = self._by_bundles[key] = self._ready()
        else:
            ready = self._ready()
        if not ready:
            data.mark_invalid("no rule can run")
        rule = ready[data.draw_integer(0, len(ready) - 1)]
        arguments = {k: data.draw(s) for k, s in rule.arguments_strategies.items()}
        return rule, arguments
