"""The explorer's pipelined transport against adapters that crash, hang or write an extra line
mid-pipeline: each is reported at the request that got no (or a shifted) reply, exactly as the
one-round-trip-per-request transport reports it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from session_toolset_harness.explore.run import ExploreResult, explore
from session_toolset_harness.explore.sut import AdapterSut

FAKE = Path(__file__).resolve().parent / "fakes" / "faulty_reference.py"


def run_against(*flags: str, window: int, pipeline: bool = True) -> ExploreResult:
    sut = AdapterSut([sys.executable, str(FAKE), *flags], timeout=1.0)
    try:
        return explore(
            sut, examples=5, steps=10, seed_value=1, shrink=False, pipeline=pipeline, window=window
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
    inserts = [r for r in result.failure.steps if r.request["op"] == "catalog_insert"]
    assert len(inserts) == 2  # the log ends at the request that got no reply
    assert result.failure.steps[-1] is inserts[-1] and inserts[-1].actual is None
    assert inserts[0].actual is not None


@pytest.mark.parametrize("window", [1, 64])
def test_a_hang_mid_pipeline_times_out(window: int) -> None:
    result = run_against("--fault", "hang", "--on", "catalog_insert", "--nth", "2", window=window)
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
