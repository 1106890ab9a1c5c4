"""Shrinking a person can read: the historical rebuild bug reduces to a handful of requests,
each of which is needed."""

from __future__ import annotations

import pytest
from miniatures import mini_rebuild_ignores_trust

from session_toolset_harness.explore.reduce import replay
from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.sut import InProcessSut

pytestmark = pytest.mark.spec("3")


def test_the_rebuild_bug_shrinks_to_a_handful_of_needed_requests() -> None:
    with mini_rebuild_ignores_trust.patch():
        sut = InProcessSut()
        result = explore(sut, examples=300, steps=50, seed_value=0, shrink=True)
        assert result.failure is not None
        requests = [r.request for r in result.failure.steps]
        assert len(requests) <= 8, requests
        assert requests[-1]["op"] in ("rebuild", "authorize", "snapshot")
        assert replay(sut, requests) is not None
        for index in range(len(requests) - 1):  # every request but the last is needed
            without = replay(sut, requests[:index] + requests[index + 1 :])
            same_op = without is not None and without.steps[-1].request["op"] == requests[-1]["op"]
            assert not same_op, f"request {index + 1} is not needed"
    assert replay(InProcessSut(), requests) is None  # the reference agrees with the world


def test_a_raw_line_step_is_written_as_send_line_or_send_hex() -> None:
    from session_toolset_harness.conform.jsonio import RawLine
    from session_toolset_harness.explore.context import StepRecord
    from session_toolset_harness.explore.vectorize import vector_steps

    records = [
        StepRecord(
            RawLine(b'{"op":"hello","op":"nope"}'), {"ok": False, "error": "Protocol"}, None
        ),
        StepRecord(RawLine(b'{"op":"hello","x":"\xff"}'), {"ok": False, "error": "Protocol"}, None),
    ]
    steps = vector_steps(records, None)[2:]
    assert steps[0] == {"send_line": '{"op":"hello","op":"nope"}', "expect": records[0].expected}
    assert steps[1] == {
        "send_hex": b'{"op":"hello","x":"\xff"}'.hex(),
        "expect": records[1].expected,
    }
    assert replay(InProcessSut(), [r.request for r in records]) is None  # the reference agrees
