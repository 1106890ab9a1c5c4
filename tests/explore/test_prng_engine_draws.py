"""What `test_prng_engine` leaves open about ``--engine prng``, each found by a bug injected into
`prng_engine` or `run._run_prng` that the suite did not catch: the budget of
steps, initialize rules in the PRNG's order, a ``one_of`` beside an empty bundle, the
distributions and forced values of the primitive draws, the fast paths, ``only=``, and the
replay of a pipelined divergence (its own example, once, with a window of one step)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

import hypothesis.strategies as st
import pytest
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, rule

from session_toolset_harness.explore import prng_engine
from session_toolset_harness.explore import run as run_module
from session_toolset_harness.explore.context import Divergence
from session_toolset_harness.explore.hypothesis_private import prng_engine_unsupported
from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.sut import InProcessSut, Sut
from session_toolset_harness.explore.vectorize import diverging_index

from .conftest import miniature
from .test_flaky import INJECTED, OnceWrong

pytestmark = pytest.mark.skipif(
    prng_engine_unsupported() is not None, reason=str(prng_engine_unsupported())
)


class _Plain(RuleBasedStateMachine):
    """Two initialize rules and rules that can always run: no draw is ever discarded."""

    empty = Bundle("empty")  # never filled

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, Any]] = []

    @initialize(value=st.just("a"))
    def init_a(self, value: str) -> None:
        self.log.append(("init", value))

    @initialize(value=st.just("b"))
    def init_b(self, value: str) -> None:
        self.log.append(("init", value))

    @rule(value=st.none() | empty)
    def maybe(self, value: None) -> None:
        self.log.append(("maybe", value))  # the bundle branch is empty: always None


def _plain_runs(examples: int = 40, steps: int = 9) -> list[tuple[_Plain, int]]:
    runs = []
    with prng_engine.drawing():
        for index in range(examples):
            m = _Plain()
            ran = prng_engine.run_example(m, prng_engine.example_random(1, index), steps)
            runs.append((m, ran))
    return runs


def test_every_step_of_the_budget_runs_a_rule_and_initialize_rules_come_in_either_order() -> None:
    orders: Counter[str] = Counter()
    for m, ran in _plain_runs():
        assert ran == 9 and len(m.log) == 9  # nothing is discarded: the whole budget runs
        assert sorted(m.log[:2]) == [("init", "a"), ("init", "b")]  # both, before any rule
        assert m.log[2:] == [("maybe", None)] * 7  # a one_of skips its empty bundle branch
        orders[m.log[0][1]] += 1
    assert orders["a"] > 5 and orders["b"] > 5  # the PRNG picks the order, as Hypothesis does


def _data(index: int = 0) -> prng_engine.PrngData:
    return prng_engine.PrngData(prng_engine.example_random(7, index))


def test_primitive_draws_follow_what_they_are_asked_for() -> None:
    data = _data()
    with prng_engine.drawing():
        picks = Counter(data.draw(st.sampled_from("abcde")) for _ in range(500))
        mapped = {data.draw(st.sampled_from([1, 2, 3]).map(lambda x: -x)) for _ in range(100)}
        branches = Counter(data.draw(st.just(0) | st.just(1) | st.just(2)) for _ in range(300))
        built = data.draw(st.builds(dict, st.just([("k", 1)]), extra=st.just(2)))
        pair = data.draw(st.tuples(st.just(1), st.sampled_from([2])))
    assert set(picks) == set("abcde") and min(picks.values()) > 50  # every element, evenly
    assert mapped == {-1, -2, -3}  # a transformed sampled_from keeps its transformation
    assert set(branches) == {0, 1, 2} and min(branches.values()) > 50
    assert built == {"k": 1, "extra": 2} and pair == (1, 2)
    rare = sum(data.draw_boolean(0.05) for _ in range(2000))
    common = sum(data.draw_boolean(0.95) for _ in range(2000))
    assert 40 < rare < 200 and 1800 < common < 1960  # p is honoured, not a coin flip
    ints = {data.draw_integer(3, 6) for _ in range(200)}
    assert ints == {3, 4, 5, 6}


def test_forced_values_are_returned_as_given() -> None:
    # Hypothesis's collection helpers force their last "stop" draw; the provider would draw
    # something else for these (p=0 never gives True, a 0..0 range never gives 5).
    data = _data()
    assert data.draw_boolean(0.0, forced=True) is True
    assert data.draw_integer(0, 0, forced=5) == 5
    assert data.draw_float(0.0, 0.0, forced=2.5) == 2.5
    assert data.draw_string("", max_size=0, forced="xy") == "xy"
    assert data.draw_bytes(0, 0, forced=b"z") == b"z"
    assert data.choice(("p", "q", "r"), forced="r") == "r"


class _Record(RuleBasedStateMachine):
    made: ClassVar[list[_Record]] = []

    def __init__(self) -> None:
        super().__init__()
        self.log: list[int] = []
        _Record.made.append(self)

    @rule(value=st.integers(0, 10**6))
    def note(self, value: int) -> None:
        self.log.append(value)


class _Never(Exception):
    pass


def test_only_runs_that_one_example_with_its_own_stream() -> None:
    _Record.made = []
    assert (
        prng_engine.run_examples(_Record, examples=5, steps=6, seed_value=3, stop_on=_Never) is None
    )
    every = [m.log for m in _Record.made]
    assert len(every) == 5 and len({tuple(log) for log in every}) == 5
    _Record.made = []
    prng_engine.run_examples(_Record, examples=5, steps=6, seed_value=3, stop_on=_Never, only=3)
    assert [m.log for m in _Record.made] == [every[3]]


class _Examples(InProcessSut):
    """The in-process reference noting, per example, the most request lines it ever had
    unanswered when more arrived (0 for every submit: a window of one step)."""

    def __init__(self) -> None:
        super().__init__()
        self.flight: list[int] = []
        self._sent = self._read = 0

    def start_example(self) -> None:
        super().start_example()
        self.flight.append(0)
        self._sent = self._read = 0

    def submit(self, lines: Sequence[bytes]) -> None:
        if self.flight:
            self.flight[-1] = max(self.flight[-1], self._sent - self._read)
        self._sent += len(lines)
        super().submit(lines)

    def receive(self) -> Any:
        self._read += 1
        return super().receive()


def test_a_pipelined_divergence_is_replayed_alone_with_a_window_of_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    budget: dict[str, Any] = {"examples": 100, "steps": 30, "seed_value": 0, "engine": "prng"}
    with miniature("mini_gate_ignores_digest").patch():  # diverges in a later example
        found = _Examples()
        raw = explore(found, shrink=False, window=8, **budget)
        assert raw.failure is not None and raw.failure.flaky is None
        failing = len(found.flight)  # examples run, the failing one last (no replay unshrunk)
        assert failing > 1 and max(found.flight) > 0  # not the first example; pipelined

        at_reduce: list[list[int]] = []
        real_reduce = run_module.reduce  # type: ignore[attr-defined]

        def spy(sut: Sut, failure: Divergence) -> Divergence:
            at_reduce.append(list(found.flight))
            return real_reduce(sut, failure)

        monkeypatch.setattr(run_module, "reduce", spy)
        found = _Examples()
        shrunk = explore(found, shrink=True, window=8, **budget)
    assert shrunk.error is None and shrunk.failure is not None
    assert shrunk.failure.flaky is None  # the replay diverged again: a real divergence
    assert len(at_reduce) == 1
    before = at_reduce[0]
    # The same examples, then the failing one once more (not every example, not the first)
    # with nothing in flight when a step goes out (a window of one), then reduce.
    assert len(before) == failing + 1
    assert before[-1] == 0 and max(before[:-1]) > 0


def test_a_pipelined_once_only_divergence_is_reported_flaky_by_the_replay() -> None:
    # With a window the failing example is replayed; its replay passes (the fault is spent),
    # which is what the note names, and the exchange is the one that diverged.
    sut = OnceWrong(nth=40)
    result = explore(sut, examples=20, steps=20, seed_value=0, window=8, engine="prng")
    assert result.error is None, result.error
    failure = result.failure
    assert failure is not None and sut.at_fault is not None
    assert failure.flaky is not None and failure.literal
    assert failure.flaky.startswith("the example was replayed: no divergence (Flaky)")
    index = diverging_index(failure.exchange)
    assert index is not None and failure.exchange[index].actual == INJECTED


class _Crashing(InProcessSut):
    """An in-process implementation that raises at its 300th request line."""

    def __init__(self) -> None:
        super().__init__()
        self.lines = 0

    def submit(self, lines: Sequence[bytes]) -> None:
        self.lines += len(lines)
        if self.lines >= 300:
            raise RuntimeError("the implementation crashed")
        super().submit(lines)


def test_an_exception_outside_the_comparison_is_the_run_s_error() -> None:
    result = explore(_Crashing(), examples=20, steps=20, seed_value=0, engine="prng")
    assert result.failure is None
    assert result.error == "RuntimeError: the implementation crashed"


class _Interrupted(RuleBasedStateMachine):
    """A rule interrupted (Ctrl-C) mid-operation, after which the teardown's final check fails,
    as an implementation's half-done operation no longer matches the model."""

    torn_down = 0

    @rule()
    def interrupted(self) -> None:
        raise KeyboardInterrupt

    def teardown(self) -> None:
        _Interrupted.torn_down += 1
        raise AssertionError("the final observation differs")


def test_an_interrupt_is_not_turned_into_a_divergence_by_the_teardown() -> None:
    _Interrupted.torn_down = 0
    with pytest.raises(KeyboardInterrupt):
        prng_engine.run_examples(
            _Interrupted, examples=3, steps=5, seed_value=0, stop_on=AssertionError
        )
    assert _Interrupted.torn_down == 1  # the teardown still ran, once
