"""Shrinking a person can read: drop the requests that do not influence the divergence, then
simplify the values of those left (`shrink_values`), then drop again.

Requests are replayed from ``reset`` against the system under test and a fresh expected world,
removing chunks (halves, quarters, ... single requests) while the sequence still diverges at the
same operation; an exact grant's generation follows the catalog mutations left before it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from session_toolset_model.world import World

from ..conform.matcher import first_difference
from .observe import OBSERVATION, Divergence, StepRecord
from .protocol_rules import expected_reply, op_name
from .shrink_values import shrink_values
from .sut import Sut, SutFailure

Reply = dict[str, Any]
MAX_REPLAYS = 400
"""Replays the removal of requests may spend (each is one reset and the candidate sequence)."""
MAX_VALUE_REPLAYS = 600
"""Replays the shrinking of values may spend."""


def replay(sut: Sut, requests: list[Any]) -> Divergence | None:
    """Run ``requests`` after ``reset``; the first divergence (reply or observable state)."""
    world = World()
    sut.send({"op": "reset"})
    records: list[StepRecord] = []
    for request in requests:
        expected = expected_reply(world, request)
        try:
            actual: Reply | None = sut.send(request)
        except SutFailure as err:
            records.append(StepRecord(request, expected, None))
            return Divergence(tuple(records), (), f"no usable reply: {err}", kind=err.kind)
        records.append(StepRecord(request, expected, actual))
        found = first_difference(expected, actual)
        if found is not None:
            return Divergence(tuple(records), (), f"reply differs at {found.path}: {found.message}")
        observed = []
        for probe in OBSERVATION:
            want = world.handle(probe)
            kind = "divergence"
            try:
                got: Reply | None = sut.send(probe)
            except SutFailure as err:
                got, kind = None, err.kind
            observed.append(StepRecord(probe, want, got))
            diff = None if got is None else first_difference(want, got)
            if got is None or diff is not None:
                where = "no reply" if diff is None else f"{diff.path}: {diff.message}"
                return Divergence(
                    tuple(records),
                    tuple(observed),
                    f"observable state differs after {op_name(request)} ({probe['op']} {where})",
                    kind=kind,
                )
    return None


def replay_exchange(sut: Sut, exchange: tuple[StepRecord, ...]) -> str | None:
    """Send exactly ``exchange`` after ``reset`` (what a vector of it sends), comparing each
    reply with its recorded expectation; where it diverges, or None when it passes."""
    sut.send({"op": "reset"})
    for index, record in enumerate(exchange, 1):
        try:
            actual = sut.send(record.request)
        except SutFailure as err:
            return f"request {index} ({op_name(record.request)}): no usable reply: {err}"
        found = first_difference(record.expected, actual)
        if found is not None:
            return f"request {index} ({op_name(record.request)}): differs at {found.path}"
    return None


def reduce(sut: Sut, failure: Divergence, *, values: bool = True) -> Divergence:
    """The shortest sequence found by chunk removal that still diverges at the same op, its
    values then shrunk (unless ``values`` is false) and its requests removed once more."""
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
    if first is None:  # not reproducible by its operations alone: keep what it found
        return failure
    best = _drop(first, still, lambda: budget > 0)
    if not values:
        return best
    budget = MAX_VALUE_REPLAYS
    kept = [best]

    def simpler(candidate: list[Any]) -> list[Any] | None:
        found = still(candidate)
        if found is None:
            return None
        kept[0] = found
        return [r.request for r in found.steps]

    shrink_values([r.request for r in best.steps], simpler, lambda: budget > 0)
    budget = max(budget, 0) + MAX_REPLAYS // 4
    return _drop(kept[0], still, lambda: budget > 0)


def _exact_grants(requests: list[Any]) -> set[int]:
    """The `forge_grant` requests issued at the catalog generation of their moment (an exact
    grant): a derived value, like a digest - when a catalog mutation before one is dropped, its
    generation follows (`_regranted`).  A grant forged at another generation stays as it is."""
    world, exact = World(), set()
    for i, request in enumerate(requests):
        if isinstance(request, dict) and request.get("op") == "forge_grant":
            now = world.handle({"op": "catalog_state"}).get("generation")
            if request.get("generation") == now:
                exact.add(i)
        expected_reply(world, request)
    return exact


def _regranted(requests: list[Any], exact: set[int]) -> list[Any]:
    if not exact:
        return requests
    world, out = World(), []
    for i, request in enumerate(requests):
        if i in exact:
            now = world.handle({"op": "catalog_state"}).get("generation")
            request = {**request, "generation": now}
        expected_reply(world, request)
        out.append(request)
    return out


def _drop(
    best: Divergence, still: Callable[[list[Any]], Divergence | None], budget: Callable[[], bool]
) -> Divergence:
    """Chunk removal: halves, quarters, ... single requests; the diverging request stays."""
    requests = [r.request for r in best.steps]
    chunk = max(len(requests) // 2, 1)
    while chunk >= 1 and budget():
        index, changed = 0, False
        while index < len(requests) - 1 and budget():  # the diverging request stays
            candidate = requests[:index] + requests[index + chunk :]
            if len(candidate) == 0 or index + chunk > len(requests) - 1:
                index += chunk
                continue
            # The exact grants left, at their places in the candidate (one removed with the
            # chunk is gone: shifting it would rewrite whichever request took its index).
            exact = {
                i if i < index else i - chunk
                for i in _exact_grants(requests)
                if not index <= i < index + chunk
            }
            found = still(_regranted(candidate, exact))
            if found is not None:
                best, requests, changed = found, [r.request for r in found.steps], True
            else:
                index += chunk
        if not changed:
            chunk //= 2
    return best
