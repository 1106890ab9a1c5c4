"""Shrinking a person can read: drop the requests that do not influence the divergence.

Hypothesis shrinks the *rules* of a failing example; a macro rule still sends several requests,
most of which may not matter.  `reduce` replays the shrunk request sequence from ``reset``
against the system under test and a fresh expected world, and greedily removes chunks of
requests (halves, then quarters, ... then single requests) for as long as the remaining sequence
still diverges at the same operation.  The result is a sequence where every request is needed.
"""

from __future__ import annotations

from typing import Any

from session_toolset_model.world import World

from ..conform.matcher import first_difference
from .context import Divergence, StepRecord
from .protocol_rules import expected_reply, op_name
from .sut import Sut, SutFailure

Reply = dict[str, Any]
MAX_REPLAYS = 400
"""Replays one reduction may spend (each is one reset and the candidate sequence)."""


def replay(sut: Sut, requests: list[Any]) -> Divergence | None:
    """Run ``requests`` after ``reset``; the first divergence (reply or observable state)."""
    from .observe import OBSERVATION

    world = World()
    sut.send({"op": "reset"})
    records: list[StepRecord] = []
    for request in requests:
        expected = expected_reply(world, request)
        try:
            actual: Reply | None = sut.send(request)
        except SutFailure as err:
            records.append(StepRecord(request, expected, None))
            return Divergence(tuple(records), (), f"no usable reply: {err}")
        records.append(StepRecord(request, expected, actual))
        found = first_difference(expected, actual)
        if found is not None:
            return Divergence(tuple(records), (), f"reply differs at {found.path}: {found.message}")
        observed = []
        for probe in OBSERVATION:
            want = world.handle(probe)
            try:
                got: Reply | None = sut.send(probe)
            except SutFailure:
                got = None
            observed.append(StepRecord(probe, want, got))
            diff = None if got is None else first_difference(want, got)
            if got is None or diff is not None:
                where = "no reply" if diff is None else f"{diff.path}: {diff.message}"
                return Divergence(
                    tuple(records),
                    tuple(observed),
                    f"observable state differs after {op_name(request)} ({probe['op']} {where})",
                )
    return None


def reduce(sut: Sut, failure: Divergence) -> Divergence:
    """The shortest sequence found by chunk removal that still diverges at the same op."""
    requests = [r.request for r in failure.steps]
    if not requests:
        return failure
    target = op_name(requests[-1])
    best = failure
    budget = MAX_REPLAYS

    def still(candidate: list[Any]) -> Divergence | None:
        nonlocal budget
        budget -= 1
        found = replay(sut, candidate)
        if found is not None and op_name(found.steps[-1].request) == target:
            return found
        return None

    first = still(requests)
    if first is None:  # not reproducible outside Hypothesis: keep what it found
        return failure
    best, requests = first, [r.request for r in first.steps]
    chunk = max(len(requests) // 2, 1)
    while chunk >= 1 and budget > 0:
        index, changed = 0, False
        while index < len(requests) - 1 and budget > 0:  # the diverging request stays
            candidate = requests[:index] + requests[index + chunk :]
            if len(candidate) == 0 or index + chunk > len(requests) - 1:
                index += chunk
                continue
            found = still(candidate)
            if found is not None:
                best, requests, changed = found, [r.request for r in found.steps], True
            else:
                index += chunk
        if not changed:
            chunk //= 2
    return best
