"""The explorer's pipelined transport against adapters that crash, hang or write an extra line
mid-pipeline: each is reported at the request that got no (or a shifted) reply, exactly as the
one-round-trip-per-request transport reports it."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from session_toolset_harness.explore.protocol_rules import op_name
from session_toolset_harness.explore.run import ExploreResult, explore
from session_toolset_harness.explore.sut import AdapterSut, InProcessSut

Reply = dict[str, Any]

FAKE = Path(__file__).resolve().parent / "fakes" / "faulty_reference.py"


def run_against(
    *flags: str, window: int, pipeline: bool = True, timeout: float = 30.0
) -> ExploreResult:
    # Only the hang test needs a short per-request timeout; elsewhere a short one turns a loaded
    # machine's slow adapter start into a false "timeout" (seen at load average ~6).
    sut = AdapterSut([sys.executable, str(FAKE), *flags], timeout=timeout)
    try:
        return explore(
            sut, examples=5, steps=10, seed_value=0, shrink=False, pipeline=pipeline, window=window
        )
    finally:
        sut.close()


@pytest.mark.parametrize(("window", "pipeline"), [(1, False), (1, True), (64, True)])
def test_a_crash_mid_pipeline_is_reported_at_its_request(window: int, pipeline: bool) -> None:
    result = run_against(
        "--fault", "crash", "--on", "catalog_insert", "--nth", "2", window=window, pipeline=pipeline
    )
    assert result.failure is not None
    assert result.failure.reason.startswith("no usable reply: crash"), result.failure.reason
    assert "injected crash" in result.failure.reason  # the stderr tail
    inserts = [r for r in result.failure.steps if op_name(r.request) == "catalog_insert"]
    assert len(inserts) == 2  # the log ends at the request that got no reply
    assert result.failure.steps[-1] is inserts[-1] and inserts[-1].actual is None
    assert inserts[0].actual is not None


@pytest.mark.parametrize("window", [1, 64])
def test_a_hang_mid_pipeline_times_out(window: int) -> None:
    result = run_against(
        "--fault", "hang", "--on", "catalog_insert", "--nth", "2", window=window, timeout=1.0
    )
    assert result.failure is not None
    assert result.failure.reason.startswith("no usable reply: timeout"), result.failure.reason
    assert result.failure.steps[-1].request["op"] == "catalog_insert"


@pytest.mark.parametrize("window", [1, 64])
def test_an_extra_reply_line_is_named_as_such(window: int) -> None:
    result = run_against("--fault", "extra", "--on", "catalog_insert", "--nth", "1", window=window)
    assert result.failure is not None
    reason = result.failure.reason
    assert "replies shifted" in reason, reason


def test_the_same_adapter_without_a_fault_passes() -> None:
    result = run_against("--fault", "crash", "--on", "no-such-op", window=64)
    assert result.failure is None and result.error is None
    assert result.steps > 0


class _Counting(InProcessSut):
    """The in-process reference, noting how many request lines were unanswered at every
    submit (a pipelined window leaves some in flight; a window of one never does)."""

    def __init__(self) -> None:
        super().__init__()
        self.in_flight: list[int] = []
        self.examples = 0
        self._sent = self._read = 0

    def submit(self, lines: Sequence[bytes]) -> None:
        self.in_flight.append(self._sent - self._read)
        self._sent += len(lines)
        super().submit(lines)

    def receive(self) -> Reply:
        self._read += 1
        return super().receive()

    def start_example(self) -> None:
        super().start_example()
        self.examples += 1
        self._sent = self._read = 0


def test_a_sliding_window_keeps_requests_in_flight_and_checks_the_same() -> None:
    runs: dict[int, tuple[ExploreResult, list[int], int]] = {}
    for window in (1, 64):
        sut = _Counting()
        result = explore(sut, examples=8, steps=50, seed_value=3, shrink=False, window=window)
        assert result.failure is None and result.error is None
        runs[window] = (result, sut.in_flight, sut.examples)
    (one, flight_one, _), (sliding, flight, examples) = runs[1], runs[64]
    assert max(flight_one) == 0  # a window of one step: every reply read before the next step
    # The window is read down to half (32 lines), never to zero: within an example every step
    # after the first goes out behind unread replies (only the reset that starts one finds
    # none), and never more than the window plus one step's lines (1 + 11 + the probe) wait.
    assert examples > 1 and flight.count(0) == examples
    assert max(flight) < 64 + 13
    # ... and what was explored and compared is the same.
    assert (sliding.steps, sliding.coverage) == (one.steps, one.coverage)
