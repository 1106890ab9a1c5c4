"""``explore --engine prng`` (`prng_engine`): the machine's rules and strategies over a seeded
PRNG.  It must walk reproducibly, honour the machine's bundles and initialize rules, skip a draw
Hypothesis would discard, catch what the Hypothesis engine catches (every miniature), shrink
what it finds, report a divergence that does not come back as flaky, and be selectable from the
command line and visible in the report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, rule

from session_toolset_harness.conform.jsonio import encode_line
from session_toolset_harness.explore import machine, prng_engine
from session_toolset_harness.explore.cli import main
from session_toolset_harness.explore.hypothesis_private import prng_engine_unsupported
from session_toolset_harness.explore.reduce import replay
from session_toolset_harness.explore.run import explore, explore_rounds
from session_toolset_harness.explore.sut import InProcessSut
from session_toolset_harness.explore.vectorize import diverging_index

from .conftest import miniature, miniature_names
from .test_flaky import INJECTED, OnceWrong

pytestmark = pytest.mark.skipif(
    prng_engine_unsupported() is not None, reason=str(prng_engine_unsupported())
)


def _walk(seed_value: int, examples: int = 12, steps: int = 15) -> tuple[list[bytes], Any]:
    """Every request the machine sent, in order, and the run's result."""
    sent: list[bytes] = []
    original = machine.ExploreMachine.step

    def recording(self: machine.ExploreMachine, request: Any) -> Any:
        sent.append(encode_line(request))
        return original(self, request)

    machine.ExploreMachine.step = recording  # type: ignore[method-assign]
    try:
        result = explore(
            InProcessSut(), examples=examples, steps=steps, seed_value=seed_value, engine="prng"
        )
    finally:
        machine.ExploreMachine.step = original  # type: ignore[method-assign]
    assert result.error is None, result.error
    assert result.failure is None, result.failure
    return sent, result


def test_a_seed_walks_the_same_way_every_time_and_another_seed_does_not() -> None:
    first, result = _walk(3)
    again, result_again = _walk(3)
    other, _ = _walk(4)
    assert len(first) > 50  # a walk, not a few resets
    assert first == again
    assert result.coverage == result_again.coverage and result.steps == result_again.steps
    assert other != first


def test_example_streams_do_not_depend_on_the_process() -> None:
    # A string seed is hashed by ``random`` itself, not by ``hash()``: another process with
    # another hash seed draws the same stream (and so the same walk, in a --jobs worker too).
    code = (
        "from session_toolset_harness.explore.prng_engine import example_random as r; "
        "print([r(5, 7).random(), r(7, 5).random(), r(5, 8).random()])"
    )
    here = [
        prng_engine.example_random(5, 7).random(),
        prng_engine.example_random(7, 5).random(),
        prng_engine.example_random(5, 8).random(),
    ]
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert json.loads(out.stdout) == here
    assert len(set(here)) == 3  # (seed, index) pairs do not share a stream


class _Tiny(RuleBasedStateMachine):
    """A machine with every feature the engine must honour, recording what its rules got."""

    things = Bundle("things")

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, Any]] = []

    @initialize(target=things, value=st.integers(100, 199))
    def first(self, value: int) -> int:
        self.log.append(("first", value))
        return value

    @rule(target=things, value=st.integers(0, 9))
    def make(self, value: int) -> int:
        self.log.append(("make", value))
        return value

    @rule(thing=things, more=st.lists(things, min_size=1, max_size=3))
    def use(self, thing: int, more: list[int]) -> None:
        self.log.append(("use", (thing, more)))

    @rule(never=st.integers().filter(lambda _: False))
    def impossible(self, never: int) -> None:
        self.log.append(("impossible", never))  # pragma: no cover - the draw is discarded

    @rule(data=st.data())
    def interactive(self, data: st.DataObject) -> None:
        self.log.append(("interactive", data.draw(st.sampled_from("xyz"))))

    def teardown(self) -> None:
        self.log.append(("teardown", None))


def _tiny_runs(examples: int = 30, steps: int = 12) -> list[tuple[_Tiny, int]]:
    runs = []
    with prng_engine.drawing():
        for index in range(examples):
            m = _Tiny()
            runs.append(
                (m, prng_engine.run_example(m, prng_engine.example_random(0, index), steps))
            )
    return runs


def test_bundles_initialize_rules_data_and_discarded_draws() -> None:
    runs = _tiny_runs()
    names = {name for m, _ in runs for name, _ in m.log}
    assert {"first", "make", "use", "interactive"} <= names
    assert "impossible" not in names  # its filter never passes: the rule is skipped
    for m, ran in runs:
        assert m.log[0][0] == "first" and 100 <= m.log[0][1] <= 199  # initialize rules first
        assert m.log[-1] == ("teardown", None)
        made_so_far: set[int] = set()
        for name, value in m.log:
            if name in ("first", "make"):
                made_so_far.add(value)
            if name == "use":  # bundle references arrive as the values they name
                thing, more = value
                assert thing in made_so_far and set(more) <= made_so_far
        assert ran == len(m.log) - 1 <= 12  # a skipped draw is a step that ran no rule
    assert any(ran < 12 for _, ran in runs)  # some draws were discarded


@pytest.mark.parametrize("name", miniature_names())
def test_the_prng_engine_finds_every_miniature(name: str) -> None:
    with miniature(name).patch():
        result = explore_rounds(
            InProcessSut(),
            examples=300,
            steps=50,
            rounds=3,
            min_hits=10**9,
            shrink=False,
            engine="prng",
        )
    assert result.error is None, result.error
    assert result.failure is not None, f"{name} was not caught ({result.steps} steps)"


def test_a_divergence_is_shrunk_and_still_diverges() -> None:
    with miniature("mini_partial_batch").patch():  # found after many steps, not at preflight
        raw = explore(InProcessSut(), examples=300, steps=50, shrink=False, engine="prng")
        shrunk = explore(InProcessSut(), examples=300, steps=50, shrink=True, engine="prng")
        assert raw.failure is not None and shrunk.failure is not None
        assert not shrunk.failure.literal
        assert 0 < len(shrunk.failure.steps) < len(raw.failure.steps)
        again = replay(InProcessSut(), [r.request for r in shrunk.failure.steps])
    assert again is not None  # the shrunk requests diverge on their own


def test_a_once_only_divergence_is_reported_flaky() -> None:
    sut = OnceWrong(nth=40)
    result = explore(sut, examples=20, steps=20, seed_value=0, engine="prng")
    assert result.error is None, result.error
    failure = result.failure
    assert failure is not None and sut.at_fault is not None
    assert failure.flaky is not None and failure.literal
    assert "replaying the exact exchange: no divergence" in failure.flaky  # spent: once only
    # The exchange is what the SUT received after the example's reset, through the faulty reply.
    index = diverging_index(failure.exchange)
    assert index is not None and failure.exchange[index].actual == INJECTED
    assert [encode_line(r.request) for r in failure.exchange[: index + 1]] == sut.at_fault


def test_the_cli_takes_the_engine_and_the_report_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    argv = ["--engine", "prng", "--examples", "6", "--steps", "8", "--seed", "2", "--quiet"]
    assert main([*argv, "--json", str(report)]) == 0
    assert "engine prng" in capsys.readouterr().out
    assert json.loads(report.read_text(encoding="utf-8"))["engine"] == "prng"
    assert main(["--engine", "fast"]) == 2
    err = capsys.readouterr().err
    assert "--engine" in err and "invalid choice" in err and "Traceback" not in err


def test_shards_of_two_engines_are_two_plans(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = []
    for k, engine in ((1, "hypothesis"), (2, "prng")):
        path = tmp_path / f"shard{k}.json"
        budget = ["--examples", "4", "--steps", "5", "--seed", "9", "--shard", f"{k}/2"]
        assert main([*budget, "--engine", engine, "--json", str(path), "--quiet"]) == 0
        paths.append(str(path))
    capsys.readouterr()
    assert main(["--merge", *paths, "--quiet"]) == 1  # each plan now lacks its other shard
    err = capsys.readouterr().err
    # Which plan lacks which shard, by its engine (else both shards read as missing).
    assert "engine hypothesis, 2 shards: shard(s) 2/2 missing" in err
    assert "engine prng, 2 shards: shard(s) 1/2 missing" in err
