"""What one exploration run shares between its examples: the SUT, digest labels, coverage and
the last divergence (the replay of the failing example runs last)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from session_toolset_model.conditions import ConditionTable

from . import pools
from .sut import Sut, SutFailure

Reply = dict[str, Any]


@dataclass(frozen=True)
class StepRecord:
    """One request with the oracle's expected reply and the SUT's actual one."""

    request: Any
    """A request object, or a `conform.jsonio.RawLine` sent byte for byte."""
    expected: Reply
    actual: Reply | None


@dataclass(frozen=True)
class Divergence:
    """A failing sequence: the operations sent, the observation at the failure, and why."""

    steps: tuple[StepRecord, ...]
    observation: tuple[StepRecord, ...]
    reason: str
    exchange: tuple[StepRecord, ...] = ()
    """Every request of the example after its ``reset``, in the order sent (operations, their
    observations, the end-of-example probe), up to the one that diverged: what the SUT saw."""
    flaky: str | None = None
    """Set when the divergence did not reproduce when its example was replayed: what
    replaying gave.  A flaky divergence is reported `literal`."""
    literal: bool = False
    """The vector is the literal `exchange`: no replay of the operations alone reproduced the
    divergence, so nothing was cut (flaky, or dependent on the observation requests sent)."""
    kind: str = "divergence"
    """``divergence`` (a reply or the state differs from the oracle's), or the adapter failure
    that ended the example: ``crash``, ``timeout``, ``extra-reply`` (more reply lines than
    requests), ``invalid-json``, ..."""

    @property
    def adapter_failure(self) -> bool:
        return self.kind != "divergence"


class DivergenceError(AssertionError):
    """Raised inside the machine: the example ends there."""


@dataclass
class RunContext:
    sut: Sut
    digests: dict[str, str]
    coverage: Counter[tuple[str, str]] = field(default_factory=Counter)
    failure: Divergence | None = None
    steps_run: int = 0
    conditions: ConditionTable = field(default_factory=ConditionTable)
    """MC/DC of the model's decisions, recorded by the oracle's interpretation."""
    pipeline: bool = True
    """Send a step's requests together before reading replies; off: one round trip each."""
    window: int = 1
    """Requests outstanding before their replies are read; 1: every step is checked before the
    next one is generated (its own requests still go out at once).  More overlaps the SUT's work
    with the explorer's, but a divergence then surfaces only at the window's end (the failing
    example is replayed with a window of one before it is shrunk)."""
    on_divergence: Callable[[], None] | None = None
    """Called at the first divergence of the run, before any shrinking."""
    steer_declared: bool = False
    """``--exclude-tag declared-difference``: requests are steered off the number literals of
    SPEC.md 1.4's declared difference (`declared_difference`) before they are sent."""
    steered: int = 0
    """Number literals replaced by that steering over the run."""
    examples_done: int = 0
    """Examples finished so far."""
    watch: Callable[[RunContext], None] | None = None
    """Called after every example (progress, and the partial result of an interrupted run)."""
    first_failure: Divergence | None = None
    """The first divergence of the run, kept whatever the replay does next (`failure`
    is the last example's, None when the final replay passed: a flaky implementation)."""

    def diverged(self, failure: Divergence) -> None:
        """Record a divergence of the current example (and the run's first, if none yet)."""
        if self.first_failure is None or self.first_failure is self.failure:
            self.first_failure = failure  # (the second case: the same example, a new reason)
        self.failure = failure


def digest_requests() -> list[Reply]:
    return [{"op": "digest", "schema": s} for s in pools.SCHEMAS]


class DigestPreflightError(Exception):
    """The SUT's digest of a pooled schema is not the original implementation's value, or the
    SUT gave no usable reply to a digest request (``kind``: the adapter failure, as in
    `Divergence.kind`)."""

    def __init__(self, records: list[StepRecord], reason: str, kind: str = "divergence") -> None:
        super().__init__(reason)
        self.records = records
        self.reason = reason
        self.kind = kind


def learn_digests(sut: Sut) -> dict[str, str]:
    """Ask the SUT for the digest of every pooled schema: these become the oracle's digest labels.
    Each must equal the original implementation's value (a three-row preflight)."""
    reference = pools.reference_digests()
    labels: dict[str, str] = {}
    records: list[StepRecord] = []
    for request in digest_requests():
        key = pools.schema_key(request["schema"])
        expected = {"ok": True, "digest": reference[key]}
        try:
            reply = sut.send(request)
        except SutFailure as err:  # a crash or hang here is found like one later in the run
            records.append(StepRecord(request, expected, None))
            raise DigestPreflightError(records, f"no usable reply: {err}", err.kind) from None
        records.append(StepRecord(request, expected, reply))
        digest = reply.get("digest")
        if reply.get("ok") is not True or not isinstance(digest, str):
            raise DigestPreflightError(records, f"digest request failed: {reply!r}"[:300])
        if digest != reference[key]:
            raise DigestPreflightError(
                records, f"digest of {key} is {digest}, the original's is {reference[key]}"
            )
        labels[key] = digest
    if len(set(labels.values())) != len(labels):
        raise SutFailure(f"the SUT gives equal digests to distinct schemas: {labels}")
    return labels
