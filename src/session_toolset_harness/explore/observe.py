"""Checking a system under test step by step, pipelined, observing what a step can have changed.

Every reply is compared with the oracle's by the PROTOCOL.md subset rule (a rejection carries a
string message, under 512 bytes for gate denials; a hello its ``implementation``).  After a step,
the observer reads back every observation item (``catalog_state``, ``snapshot`` of each pooled
set, ``factory_calls`` of each pooled tool) the model says moved or the request names, and all of
them after the reset, every `FULL_EVERY` steps and at the end of the example; after a rejection
nothing observed may have moved (no partial mutation).  Requests are written without waiting for
replies (the next request comes from the expected side); replies are read once a window of
requests is outstanding, and a divergence is raised at the step it happened at.  `RunContext` is
what one run shares between its examples (the SUT, digest labels, coverage, the divergence)."""

from __future__ import annotations

import dataclasses
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from session_toolset_model.conditions import ConditionTable

from ..conform.jsonio import RawLine, encode_line
from ..conform.matcher import first_difference, same_json
from . import pools
from .protocol_rules import op_name
from .sut import LockStep, Sut, SutFailure

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


OBSERVATION: Final[tuple[Reply, ...]] = (
    {"op": "catalog_state"},
    *({"op": "snapshot", "set": n} for n in pools.SET_NAMES),
    *({"op": "factory_calls", "tool": t} for t in pools.TOOL_IDS),
)
_LINES: Final = tuple(encode_line(r) for r in OBSERVATION)
_CATALOG: Final = 0
_SNAPSHOT: Final = {name: 1 + i for i, name in enumerate(pools.SET_NAMES)}
_FACTORY: Final = {tool: 1 + len(pools.SET_NAMES) + i for i, tool in enumerate(pools.TOOL_IDS)}
ALL_ITEMS: Final = tuple(range(len(OBSERVATION)))

FULL_EVERY: Final = 8
"""Every this many steps the whole observable state is read, whatever the step touched."""
GATE_MESSAGE_LIMIT: Final = 512
_RESET: Final[Reply] = {"op": "reset"}
_RESET_LINE: Final = encode_line(_RESET)
_PROBE: Final[Reply] = {"op": "hello"}
_PROBE_LINE: Final = encode_line(_PROBE)


def outcome(reply: Reply) -> str:
    return "ok" if reply.get("ok") is True else str(reply.get("error"))


def _without_message(reply: Reply) -> Reply:
    return {k: v for k, v in reply.items() if k != "message"} if "message" in reply else reply


def named_items(request: Reply | RawLine) -> set[int]:
    """The observation items a request names, whatever the model expects it to do (a raw line
    names none: what it changes shows as a changed expected item, or at the next full read)."""
    if isinstance(request, RawLine):
        return set()
    op = str(request.get("op"))
    items = {
        _SNAPSHOT[v]
        for k in ("set", "into", "name")
        if isinstance(v := request.get(k), str) and v in _SNAPSHOT  # a faulty field: any value
    }
    if op.startswith("catalog_"):
        items.add(_CATALOG)
    if op == "authorize" and isinstance(request.get("tool"), str) and request["tool"] in _FACTORY:
        items.add(_FACTORY[str(request["tool"])])
    elif op == "authorize_wire":
        items.update(_FACTORY.values())
    return items


@dataclass
class _Entry:
    """One submitted step awaiting its replies: the operation (``None`` for a bare observation)
    and the observation items that follow it, with their expected replies."""

    index: int
    request: Reply | RawLine | None
    expected: Reply | None
    items: tuple[int, ...]
    observed: tuple[Reply, ...]
    probe: bool = False
    """End of the example: a ``hello`` sync probe follows the observation."""


class Observer:
    """The comparison core of one example (one machine instance)."""

    def __init__(
        self, ctx: RunContext, expect: Callable[[Reply], Reply], state: Callable[[], object]
    ) -> None:
        """``expect`` answers an observation request (a constant, already-parsed value) from
        the expected side; ``state`` is a value that changes whenever an expected observation
        can (expected observations are cached on it)."""
        self.ctx = ctx
        self._sut: Sut = ctx.sut if ctx.pipeline else LockStep(ctx.sut)
        self._expect = expect
        self._state = state
        self.log: list[StepRecord] = []
        self.exchange: list[StepRecord] = []
        """Every request after the reset with its expected reply, in the order sent (checked so
        far): a divergence that does not reproduce is reported as exactly this."""
        self._seen_state: object = _Unset
        self._expected: list[Reply] = []
        self._pending: deque[_Entry] = deque()
        self._outstanding = 0
        self._index = 0
        self._last_ok = 0
        self._last_actual: list[Reply | None] = [None] * len(OBSERVATION)
        self._last_expected: list[Reply | None] = [None] * len(OBSERVATION)
        self._last_seen = [0] * len(OBSERVATION)
        self._failure = ""
        self._failure_kind = "no-reply"
        self._received = 0
        self.failed = False

    # -- submitting --------------------------------------------------------------------------
    def start(self) -> None:
        """Reset the SUT and observe everything (the reset's own reply is not compared)."""
        self._sut.start_example()
        self._submit(None, None, ALL_ITEMS, reset=True)

    def step(self, request: Reply | RawLine, expected: Reply, line: bytes | None = None) -> None:
        """One operation: queued, checked when its window is read (at once without pipelining).
        ``line``: the request already encoded (`encode_line`), if the caller has it."""
        self._index += 1
        before = self._expected
        now = self._expected_now()
        if self._index % FULL_EVERY == 0:
            items: tuple[int, ...] = ALL_ITEMS
        else:
            wanted = named_items(request)
            wanted.update(i for i in ALL_ITEMS if now[i] is not before[i])
            items = tuple(sorted(wanted))
        self._submit(request, expected, items, line=line)

    def finish(self) -> None:
        """End of the example: observe everything and check whatever is still outstanding."""
        if self.failed:
            return
        self._index += 1
        self._submit(None, None, ALL_ITEMS, probe=True)
        self.drain()

    def _expected_now(self) -> list[Reply]:
        """The expected observation, one object per item kept while its value is unchanged
        (so "did the model move this item" is an identity test)."""
        state = self._state()
        if state is self._seen_state or state == self._seen_state:
            return self._expected
        fresh = [self._expect(r) for r in OBSERVATION]
        old = self._expected
        if old:
            fresh = [o if same_json(o, f) else f for o, f in zip(old, fresh, strict=True)]
        self._expected, self._seen_state = fresh, state
        return fresh

    def _submit(
        self,
        request: Reply | RawLine | None,
        expected: Reply | None,
        items: tuple[int, ...],
        *,
        reset: bool = False,
        probe: bool = False,
        line: bytes | None = None,
    ) -> None:
        observed = tuple(self._expected_now()[i] for i in items)
        lines = [_LINES[i] for i in items]
        if reset:
            lines.insert(0, _RESET_LINE)
            request = _RESET
        elif request is not None:
            lines.insert(0, encode_line(request) if line is None else line)
        if probe:
            lines.append(_PROBE_LINE)
        self._pending.append(_Entry(self._index, request, expected, items, observed, probe))
        self._outstanding += len(lines)
        self._sut.submit(lines)
        if self._outstanding >= self.ctx.window:
            # A sliding window: check the older half and leave the rest in flight, so the SUT
            # never runs dry while the explorer checks replies and generates the next steps.
            self.drain(keep=self.ctx.window // 2)

    # -- checking ----------------------------------------------------------------------------
    def drain(self, keep: int = 0) -> None:
        """Read and check outstanding replies in order, oldest step first, until at most
        ``keep`` request lines are still unanswered (0: every one)."""
        owed, self._received = self._outstanding, 0
        try:
            while self._pending and owed - self._received > keep:
                self._check(self._pending.popleft())
        except DivergenceError as err:
            self._pending.clear()
            self._outstanding = 0
            reason = self._resynchronize(owed - self._received)
            if reason is None or self.ctx.failure is None:
                raise
            self.ctx.diverged(
                dataclasses.replace(self.ctx.failure, reason=reason, kind="extra-reply")
            )
            raise DivergenceError(reason) from err
        self._outstanding = owed - self._received

    def _resynchronize(self, owed: int) -> str | None:
        """After a divergence: read (and ignore) the replies still owed, so the SUT stays in
        step for the next example, then probe it once; a reason when its replies turn out to be
        shifted (it wrote more lines than it was sent), which then explains the divergence."""
        try:
            for _ in range(owed):
                self._sut.receive()
        except SutFailure:
            return None
        shifted = self._sut.resync()
        if shifted is None or self.ctx.failure is None:
            return None
        return f"{shifted}; first visible as: {self.ctx.failure.reason}"

    def _fail(self, reason: str, observation: list[StepRecord], kind: str = "divergence") -> None:
        """Record the divergence (``kind``: or the adapter failure, `Divergence.kind`) and end
        the example."""
        self.failed = True
        announce, self.ctx.on_divergence = self.ctx.on_divergence, None
        if announce is not None:
            announce()
        self.ctx.diverged(
            Divergence(tuple(self.log), tuple(observation), reason, tuple(self.exchange), kind=kind)
        )
        raise DivergenceError(reason)

    def _receive(self) -> Reply | None:
        self._received += 1
        try:
            return self._sut.receive()
        except SutFailure as err:
            self._failure, self._failure_kind = str(err), err.kind
            return None

    def _check(self, entry: _Entry) -> None:
        request, expected = entry.request, entry.expected
        code = "ok"
        if request is not None:
            reply = self._receive()
            if expected is None:  # the reset: its reply is not compared
                if reply is None:
                    self._fail(
                        f"no usable reply to reset: {self._failure}", [], kind=self._failure_kind
                    )
            else:
                code = self._check_reply(request, expected, reply)
        actual = [self._receive() for _ in entry.items]
        records = [
            StepRecord(OBSERVATION[i], e, a)
            for i, e, a in zip(entry.items, entry.observed, actual, strict=True)
        ]
        # Every exchange is kept: a divergence that does not reproduce is reported as it was.
        bares: list[Reply] = []
        for i, exp, seen, record in zip(entry.items, entry.observed, actual, records, strict=True):
            self.exchange.append(record)  # up to the item that diverges, if one does
            bare = None if seen is None else _without_message(seen)
            if bare is not None:
                bares.append(bare)
            if (
                bare is not None
                and exp is self._last_expected[i]
                and same_json(bare, self._last_actual[i])
            ):
                continue  # nothing moved on either side, and it matched before
            # identical values satisfy the subset rule: the walk is for finding a difference
            found = None if bare is None or same_json(exp, bare) else first_difference(exp, bare)
            if bare is None or found is not None:
                where = "no reply" if found is None else f"{found.path}: {found.message}"
                after = (
                    "the reset"
                    if expected is None and request is not None
                    else ("the end of the example" if request is None else op_name(request))
                )
                self._fail(
                    f"observable state differs after {after} ({OBSERVATION[i]['op']} {where})"
                    + ("" if bare is not None else f": {self._failure}"),
                    records,
                    kind="divergence" if bare is not None else self._failure_kind,
                )
            frame = code != "ok" and self._last_ok <= self._last_seen[i]
            if frame and not same_json(bare, self._last_actual[i]):
                op = "?" if request is None else op_name(request)
                self._fail(f"rejected {op} ({code}) changed the SUT's state", records)
            if frame and not same_json(exp, self._last_expected[i]):
                op = "?" if request is None else op_name(request)
                self._fail(f"oracle: rejected {op} ({code}) changed its state", records)
        if entry.probe:
            probe = self._receive()
            self.exchange.append(StepRecord(_PROBE, {"ok": True, "protocol": 1}, probe))
            self._check_probe(probe)
        if code == "ok":
            self._last_ok = entry.index
        for i, exp, bare in zip(entry.items, entry.observed, bares, strict=True):
            self._last_actual[i] = bare
            self._last_expected[i] = exp
            self._last_seen[i] = entry.index

    def _check_probe(self, reply: Reply | None) -> None:
        if reply is None:
            self._fail(
                f"no usable reply to the end-of-example hello: {self._failure}",
                [],
                kind=self._failure_kind,
            )
        elif reply.get("ok") is not True or reply.get("protocol") != 1:
            self._fail(
                "the sync probe hello at the end of the example got a reply that is not a hello "
                "reply: the adapter wrote more reply lines than it received requests",
                [],
                kind="extra-reply",
            )

    def _check_reply(self, request: Reply | RawLine, expected: Reply, actual: Reply | None) -> str:
        record = StepRecord(request, expected, actual)
        self.log.append(record)
        self.exchange.append(record)
        if actual is None:
            self._fail(f"no usable reply: {self._failure}", [], kind=self._failure_kind)
        assert actual is not None
        self.ctx.steps_run += 1
        code = outcome(expected)
        self.ctx.coverage[(op_name(request), code)] += 1
        diff = first_difference(expected, actual)
        if diff is not None:
            self._fail(f"reply differs at {diff.path}: {diff.message}", [])
        # PROTOCOL.md: a hello names its `implementation` (name and version), in a shape it
        # leaves open (the reply schema: a string or an object); the expected side cannot.
        # Which reply is a hello's is the model's word (only a hello's carries `protocol`),
        # so a hello sent as a raw line (spaces around it, an extra field) is judged too.
        if (
            code == "ok"
            and "protocol" in expected
            and not isinstance(actual.get("implementation"), str | dict)
        ):
            self._fail("a hello reply without an implementation (string or object)", [])
        if actual.get("ok") is not True:
            message = actual.get("message")
            if not isinstance(message, str):
                self._fail("a rejection without a string message", [])
            limit_applies = str(actual.get("error", "")).startswith("ToolAuthorizationError.")
            if limit_applies and len(str(message).encode()) >= GATE_MESSAGE_LIMIT:
                self._fail(f"gate denial message is {len(str(message))} bytes (limit 512)", [])
        return code


class _UnsetType:
    pass


_Unset = _UnsetType()
