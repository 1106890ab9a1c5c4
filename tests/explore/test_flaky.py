"""A divergence that happens only once (the implementation answers differently when the same
requests come again) is a normal divergence report: the exact exchange of the example that
diverged, written as a vector, marked flaky, exit status 1, no traceback.

The fakes answer their N-th ``catalog_state`` request (counted per process) with a rejection and
behave from then on, so a replay of the failing example passes."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.conform.jsonio import encode_line
from session_toolset_harness.conform.vectors import read_send
from session_toolset_harness.explore.cli import main
from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.sut import InProcessSut
from session_toolset_harness.explore.vectorize import diverging_index, failure_vector

Reply = dict[str, Any]

FAKE = Path(__file__).resolve().parent / "fakes" / "faulty_reference.py"
INJECTED: Reply = {"ok": False, "error": "Protocol", "message": "injected once"}
RESET = encode_line({"op": "reset"})


def fake_command(nth: int) -> str:
    return shlex.join(
        [sys.executable, str(FAKE), "--fault", "wrong", "--on", "catalog_state", "--nth", str(nth)]
    )


class OnceWrong(InProcessSut):
    """The in-process reference whose ``nth`` ``catalog_state`` reply is `INJECTED`; keeps the
    lines it received since the last ``reset`` up to that reply (what the SUT saw)."""

    def __init__(self, nth: int) -> None:
        super().__init__()
        self.nth, self.seen = nth, 0
        self.since_reset: list[bytes] = []
        self.at_fault: list[bytes] | None = None

    def _answer(self, line: bytes, reply: Reply) -> Reply:
        if line == RESET:
            self.since_reset = []
        else:
            self.since_reset.append(line)
        if line == encode_line({"op": "catalog_state"}):
            self.seen += 1
            if self.seen == self.nth:
                self.at_fault = list(self.since_reset)
                return dict(INJECTED)
        return reply

    def send(self, request: Reply) -> Reply:
        return self._answer(encode_line(request), super().send(request))

    def submit(self, lines: Sequence[bytes]) -> None:
        for line in lines:
            super().submit([line])
            self._replies[-1] = self._answer(line, self._replies[-1])


def test_a_once_only_divergence_is_reported_as_the_exchange_it_happened_in() -> None:
    # Hypothesis replays the failing example itself: the replay passes.
    sut = OnceWrong(nth=40)
    result = explore(sut, examples=20, steps=20, seed_value=0)
    assert result.error is None, result.error  # before: "FlakyFailure: Inconsistent results"
    failure = result.failure
    assert failure is not None and sut.at_fault is not None
    assert failure.flaky is not None and failure.literal
    assert "sent once more: no divergence" in failure.flaky  # the fault fired once only
    assert "catalog_state $.ok: expected true, got false" in failure.reason
    # The exchange is what the SUT received after the example's reset, up to the faulty reply.
    sent = [encode_line(r.request) for r in failure.exchange]
    assert sent == sut.at_fault
    index = diverging_index(failure.exchange)
    assert index is not None and failure.exchange[index].actual == INJECTED
    vector = failure_vector(failure, result.digests, result.seed)
    assert vector["id"] == "explore/flaky-divergence-seed-0"
    assert "flaky" in vector["tags"] and "did NOT reproduce" in vector["description"]
    steps = vector["steps"]
    reset = [s.get("send") for s in steps].index({"op": "reset"})
    assert [s["send"]["op"] for s in steps[:reset]] == ["hello", "digest", "digest", "digest"]
    assert [encode_line(read_send(s)) for s in steps[reset + 1 :]] == sut.at_fault
    assert f"step {reset + 1 + index} (0-based)" in vector["description"]


def test_the_cli_reports_it_and_the_vector_replays_the_exchange(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, report = tmp_path / "failure.json", tmp_path / "report.json"
    argv = ["--adapter", fake_command(30), "--examples", "30", "--steps", "20", "--seed", "0"]
    assert main([*argv, "--out", str(out), "--json", str(report), "--quiet"]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "error outside the comparison" not in captured.err
    assert "divergence (flaky: not reproduced on replay)" in captured.out
    assert "diverged once (flaky" in captured.out
    found = json.loads(report.read_text(encoding="utf-8"))
    assert found["verdict"] == "divergence" and found["error"] is None
    assert found["divergence"]["flaky"] and found["divergence"]["vector"] == str(out)
    vector = json.loads(out.read_text(encoding="utf-8"))
    assert "flaky" in vector["tags"]
    steps = vector["steps"]
    assert "injected once" in vector["description"]  # the reply the implementation gave
    polls = [i for i, s in enumerate(steps) if s.get("send") == {"op": "catalog_state"}]
    # Which step diverged: the one the description names (conform numbers steps from 0).
    at = next(i for i in polls if f"step {i} (0-based)" in vector["description"])
    k = polls.index(at) + 1  # the diverging request is the vector's k-th catalog_state
    assert k < 30
    # A conforming implementation passes; the flaky one passes too (its fault is spent before
    # the 30th catalog_state of a fresh process, and the vector holds fewer): flaky means the
    # replay cannot be relied on to fail.
    assert conform_main(["--vectors", str(out), "--quiet"]) == 0
    assert conform_main(["--vectors", str(out), "--adapter", fake_command(30), "--quiet"]) == 0
    capsys.readouterr()
    # The same fault placed on the vector's k-th catalog_state fails exactly at that step: the
    # vector sends the exchange as it happened, request for request.
    assert conform_main(["--vectors", str(out), "--adapter", fake_command(k)]) == 1
    assert f"step {at}: mismatch at $.ok" in capsys.readouterr().out
