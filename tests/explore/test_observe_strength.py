"""Observing only what a step can have changed loses nothing: a fault in something the step's own
observation skips is caught by the periodic full observation or, at the latest, by the one at the
end of the example (and explore finds it)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from session_toolset_harness.conform.jsonio import RawLine
from session_toolset_harness.explore import observe, pools
from session_toolset_harness.explore.machine import ExploreMachine
from session_toolset_harness.explore.observe import DivergenceError, RunContext
from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.sut import InProcessSut

INSERT = {
    "op": "catalog_insert",
    "source": {"kind": "builtin", "name": "read"},
    "provenance": {"kind": "builtin_runtime"},
    "schema": pools.SCHEMAS[0],
}


class StaleCheckCountsACall(InProcessSut):
    """The fault: ``is_stale`` (which changes nothing, says the model) also bumps the factory
    counter of a tool it does not name — visible only in a ``factory_calls`` observation."""

    def submit(self, lines: Sequence[bytes]) -> None:
        super().submit(lines)
        if any(line.startswith(b'{"op":"is_stale"') for line in lines):
            self.world.factory_calls["mcp.srv:query"] += 1


class StaleCheckTurnsCountsToBooleans(InProcessSut):
    """The fault: after an ``is_stale`` request, every ``factory_calls`` reply says ``false``
    for a count of 0. Python's ``==`` calls the two equal (``0 == False``), so an observation
    compared with ``==`` against its last reply would skip it; JSON says they differ."""

    def __init__(self) -> None:
        super().__init__()
        self.spoiled = False

    def submit(self, lines: Sequence[bytes]) -> None:
        for line in lines:
            self.spoiled |= line.startswith(b'{"op":"is_stale"')
            super().submit([line])
            if self.spoiled and line.startswith(b'{"op":"factory_calls"'):
                reply = self._replies[-1]
                if reply.get("calls") == 0:
                    self._replies[-1] = {**reply, "calls": False}


def machine(sut: InProcessSut | None = None) -> tuple[ExploreMachine, RunContext]:
    ctx = RunContext(sut or StaleCheckCountsACall(), pools.reference_digests())
    return ExploreMachine(ctx), ctx


def test_is_stale_names_no_factory_counter() -> None:
    assert observe.named_items({"op": "is_stale", "set": "A"}) == {observe._SNAPSHOT["A"]}


def test_the_end_of_example_observation_catches_what_the_step_skipped() -> None:
    m, ctx = machine()
    m.step(INSERT)
    m.step({"op": "set_new", "name": "A", "session": "s1", "core": ["builtin:read"]})
    m.step({"op": "is_stale", "set": "A"})  # the fault acts here, unobserved by this step
    with pytest.raises(DivergenceError):
        m.teardown()
    assert ctx.failure is not None
    assert "end of the example" in ctx.failure.reason
    assert "factory_calls" in ctx.failure.reason
    assert ctx.failure.steps[-1].request["op"] == "is_stale"


def test_the_periodic_full_observation_catches_it_before_the_end() -> None:
    m, ctx = machine()
    m.step(INSERT)
    m.step({"op": "is_stale", "set": "nope"})  # a Protocol rejection, then neutral steps
    with pytest.raises(DivergenceError):
        for _ in range(observe.FULL_EVERY):
            m.step({"op": "catalog_rebase_past", "prior": 0})
    assert ctx.failure is not None and "factory_calls" in ctx.failure.reason
    assert len(ctx.failure.steps) == observe.FULL_EVERY  # the step with index FULL_EVERY


def test_explore_finds_the_skipped_observation_fault() -> None:
    result = explore(StaleCheckCountsACall(), examples=100, steps=30, seed_value=0, shrink=False)
    assert result.failure is not None
    assert "factory_calls" in result.failure.reason


def test_an_unchanged_value_that_changes_json_type_is_still_compared() -> None:
    m, ctx = machine(StaleCheckTurnsCountsToBooleans())
    m.step(INSERT)
    m.step({"op": "set_new", "name": "A", "session": "s1", "core": ["builtin:read"]})
    m.step({"op": "is_stale", "set": "A"})
    with pytest.raises(DivergenceError):
        m.teardown()
    assert ctx.failure is not None
    assert "factory_calls" in ctx.failure.reason and "boolean" in ctx.failure.reason


class HelloWithoutImplementation(InProcessSut):
    """The fault: ``hello`` replies ``{"ok": true, "protocol": 1}`` only.  Every key the model
    expects is there, so the subset rule alone would pass it; PROTOCOL.md requires an
    ``implementation`` the model cannot predict."""

    def __init__(self, spelling: object = None) -> None:
        super().__init__()
        self.spelling = spelling

    def submit(self, lines: Sequence[bytes]) -> None:
        for line in lines:
            super().submit([line])
            if line.startswith(b'{"op":"hello"'):
                reply = {k: v for k, v in self._replies[-1].items() if k != "implementation"}
                if self.spelling is not None:
                    reply["implementation"] = self.spelling
                self._replies[-1] = reply


@pytest.mark.parametrize("spelling", [None, 1, ["session-toolset"]])
def test_a_hello_without_an_implementation_is_a_divergence(spelling: object) -> None:
    m, ctx = machine(HelloWithoutImplementation(spelling))
    with pytest.raises(DivergenceError):
        m.step({"op": "hello"})
        m.teardown()
    assert ctx.failure is not None and "implementation" in ctx.failure.reason


@pytest.mark.parametrize("spelling", ["other 2.0", {"name": "other", "version": "2.0"}])
def test_a_hello_may_name_its_implementation_as_it_likes(spelling: object) -> None:
    m, ctx = machine(HelloWithoutImplementation(spelling))
    m.step({"op": "hello"})
    m.teardown()
    assert ctx.failure is None


class EveryHelloWithoutImplementation(InProcessSut):
    """The fault: every hello reply, however its line is spelled, lacks ``implementation``."""

    def submit(self, lines: Sequence[bytes]) -> None:
        for line in lines:
            super().submit([line])
            if "protocol" in self._replies[-1]:
                self._replies[-1] = {
                    k: v for k, v in self._replies[-1].items() if k != "implementation"
                }


@pytest.mark.parametrize("line", [b' \t{"op":"hello"}\r ', b'{"op":"hello","x":"\\u00e9"}'])
def test_a_hello_sent_as_a_raw_line_must_name_its_implementation_too(line: bytes) -> None:
    m, ctx = machine(EveryHelloWithoutImplementation())
    with pytest.raises(DivergenceError):
        m.step(RawLine(line))
        m.teardown()
    assert ctx.failure is not None and "implementation" in ctx.failure.reason
