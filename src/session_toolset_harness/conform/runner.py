"""Running vectors against one adapter command and classifying each one.

One adapter process serves vector after vector (each starts with ``hello`` and ``reset``); after
any vector that does not pass, a fresh one serves the next.  Each vector's steps and a final
``hello`` (the sync probe, exposing an adapter that wrote a line too many) are written at once.
The first process must answer ``hello`` (`client.start_checked`); ``max_failures`` adapter
failures in a row, or SIGINT/SIGTERM, stop the run, its results marked incomplete.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from session_toolset_harness.conform import checks, schemas, skips
from session_toolset_harness.conform.client import (
    AdapterProcess,
    ExchangeError,
    Reply,
    start_checked,
)
from session_toolset_harness.conform.matcher import first_difference
from session_toolset_harness.conform.results import (
    Hit,
    RunResult,
    Status,
    StepFailure,
    VectorResult,
)
from session_toolset_harness.conform.vectors import LoadProblem, Step, Vector, excluded_by
from session_toolset_harness.interrupt import Interrupted

SYNC_PROBE: dict[str, object] = {"op": "hello"}
SYNC_STEP = Step(SYNC_PROBE, {"ok": True, "protocol": 1})
"""After a vector's last step, its reply must be a hello reply: else the adapter wrote more
lines than it was sent."""
SYNC_WHERE = "after the last step, sync probe hello: "
SYNC_MISMATCH = (
    "after the last step, the sync probe hello got a reply that is not a hello reply: "
    "the adapter wrote more reply lines than it received requests"
)
MAX_FAILURES = 5
"""Consecutive vectors ending in an adapter failure after which a run stops (``--max-failures``)."""
EXTRA_LINES_READ = 16
"""Lines read while looking for the nonce probe's reply after a mismatch (`_extra_lines`)."""


@dataclass(frozen=True)
class RunOptions:
    """Everything that changes how vectors are run (not which ones: the CLI selects those)."""

    adapter: tuple[str, ...]
    timeout: float = 10.0
    strict_replies: bool = False
    skip_rules: tuple[skips.SkipRule, ...] = ()
    skip_must_fail: bool = False
    exclude_tags: tuple[str, ...] = ()
    max_failures: int = MAX_FAILURES
    """0: never stop early."""
    on_result: Callable[[VectorResult], None] | None = field(default=None, compare=False)
    on_exchange: Callable[[str, object, dict[str, object]], None] | None = field(
        default=None, compare=False
    )
    """Called with the vector id, the request sent and the reply read, for every step that
    got a reply (``--record``)."""


class Runner:
    """Runs vectors one after another against one adapter command."""

    def __init__(self, options: RunOptions) -> None:
        self._options = options
        self._process: AdapterProcess | None = None
        self._checked = False

    def run(self, items: Sequence[Vector | LoadProblem]) -> RunResult:
        """Run every item in order; raises ``AdapterStartError`` if the command cannot start or
        does not answer its first ``hello``."""
        started = time.monotonic()
        results: list[VectorResult] = []
        stopped: str | None = None
        signum: int | None = None
        in_a_row: list[VectorResult] = []
        try:
            for position, item in enumerate(items):
                result = self._one(item)
                results.append(result)
                if self._options.on_result is not None:
                    self._options.on_result(result)
                in_a_row = [*in_a_row, result] if _adapter_failure(result) else []
                limit = self._options.max_failures
                if limit and len(in_a_row) >= limit and position + 1 < len(items):
                    stopped = _gave_up(in_a_row, len(items) - position - 1)
                    break
        except Interrupted as signal:
            self._discard()
            signum = signal.signum
            stopped = f"interrupted by {signal.name} after {len(results)} of {len(items)} vectors"
        finally:
            problems = self._shutdown()
        return RunResult(
            adapter=self._options.adapter,
            results=tuple(results),
            seconds=time.monotonic() - started,
            adapter_problems=tuple(problems),
            stopped=stopped,
            signal=signum,
        )

    def _one(self, item: Vector | LoadProblem) -> VectorResult:
        if isinstance(item, LoadProblem):
            status = Status.SKIPPED if item.not_a_vector else Status.ERRORED
            return VectorResult(
                item.display_id,
                str(item.path),
                status,
                reason=item.message,
                file_problem=not item.not_a_vector,
            )
        tag = excluded_by(item, self._options.exclude_tags)
        if tag is not None:  # a policy, not a known failure: never run, even with skip-must-fail
            return VectorResult(
                item.id, str(item.path), Status.SKIPPED, reason=f"excluded by --exclude-tag {tag}"
            )
        rule = skips.find(self._options.skip_rules, item.id)
        if rule is None:
            return self._execute(item)
        if not self._options.skip_must_fail:
            return VectorResult(
                item.id, str(item.path), Status.SKIPPED, reason=rule.reason, skip_reason=rule.reason
            )
        outcome = self._execute(item)
        if outcome.status is Status.PASSED:
            return dataclasses.replace(
                outcome,
                status=Status.ERRORED,
                reason=f"stale skip entry {rule.pattern!r} (skip file line {rule.line}): "
                "the vector passes, remove the entry",
                skip_reason=rule.reason,
                stale_skip=True,
            )
        return dataclasses.replace(
            outcome,
            status=Status.SKIPPED,
            reason=f"{rule.reason} (still {outcome.status.value}: {outcome.reason})",
            skip_reason=rule.reason,
        )

    def _adapter(self) -> AdapterProcess:
        if not self._checked:  # the first vector that runs: the adapter must answer hello
            self._process = start_checked(self._options.adapter, self._options.timeout)
            self._checked = True
        if self._process is None or not self._process.alive:
            if self._process is not None:
                self._process.kill()
            self._process = AdapterProcess(self._options.adapter)
        return self._process

    def _discard(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process = None

    def _shutdown(self) -> list[str]:
        if self._process is None:
            return []
        process, self._process = self._process, None
        status = process.close()
        if status is None:
            return ["adapter did not exit within 2 s of EOF on stdin (killed)"]
        if status != 0:
            return [f"adapter exited with status {status} on EOF (PROTOCOL.md: it must exit 0)"]
        return []

    def _execute(self, vector: Vector) -> VectorResult:
        started = time.monotonic()
        adapter = self._adapter()
        hits: list[Hit] = []
        status, failure = Status.PASSED, None
        answers = _replies(adapter, [s.send for s in vector.steps], self._options.timeout)
        for index, step in enumerate((*vector.steps, SYNC_STEP)):
            answer, sync = next(answers), step is SYNC_STEP
            if isinstance(answer, ExchangeError):
                status, reply, raw, path = Status.ERRORED, None, answer.raw, None
                message = f"{SYNC_WHERE if sync else ''}{answer.kind}: {answer.message}"
            elif sync:
                status, reply, raw = Status.ERRORED, answer.value, answer.raw
                path, message = None, SYNC_MISMATCH
                if first_difference(step.expect, reply) is None:
                    status = Status.PASSED
                    break
            else:
                hits.append(Hit(checks.op_of(step.send), checks.outcome(answer.value)))
                if self._options.on_exchange is not None:
                    self._options.on_exchange(vector.id, step.send, answer.value)
                reply, raw = answer.value, answer.raw
                problem = self._judge(step, reply)
                if problem is None:
                    continue
                status, (path, message) = Status.FAILED, problem
                extra = _extra_lines(adapter, answers, len(vector.steps) - index, self._options)
                if extra:
                    status = Status.ERRORED
                    message = (
                        f"extra-reply: the adapter wrote {extra} reply line(s) more than it was "
                        f"sent requests, so its replies are shifted; first visible at this step "
                        f"as {message}"
                    )
            failure = StepFailure(
                index, step.send, step.expect, reply, path, message, raw, adapter.stderr_text()
            )
            break
        if status is not Status.PASSED:
            self._discard()
        return VectorResult(
            id=vector.id,
            path=str(vector.path),
            status=status,
            seconds=time.monotonic() - started,
            reason="" if failure is None else f"step {failure.index}: {failure.message}",
            failure=failure,
            hits=tuple(hits),
            steps_run=len(hits),
        )

    def _judge(self, step: Step, reply: dict[str, object]) -> tuple[str, str] | None:
        """(path, message) of the first reason ``reply`` fails its step: the subset rule, the
        protocol rules, then (``--strict-replies``) the reply schema; None when it passes."""
        difference = first_difference(step.expect, reply)
        if difference is not None:
            return difference.path, f"mismatch at {difference.path}: {difference.message}"
        problem = checks.reply_problem(reply)
        if problem is None and self._options.strict_replies:
            found = schemas.validate_reply(checks.op_of(step.send), reply)
            if found:
                problem = (found[0].path, f"reply schema: {found[0].message}")
        if problem is None:
            return None
        return problem[0], f"protocol rule broken at {problem[0]}: {problem[1]}"


def _replies(
    adapter: AdapterProcess, requests: Sequence[object], timeout: float
) -> Iterator[Reply | ExchangeError]:
    """The reply to each request and then to the sync probe, all written before any is read
    (a vector's expectations are fixed before it runs); after the first `ExchangeError`, that
    error again for every further item (the process is unusable)."""
    last: ExchangeError | None = None
    for answer in adapter.exchange_pipelined([*requests, SYNC_PROBE], timeout):
        last = answer if isinstance(answer, ExchangeError) else None
        yield answer
    while last is not None:
        yield last


def _adapter_failure(result: VectorResult) -> bool:
    """The vector ended because the adapter broke the protocol (no usable reply, extra lines),
    not because a reply was wrong."""
    return result.status is Status.ERRORED and result.failure is not None


def _gave_up(in_a_row: list[VectorResult], left: int) -> str:
    last = in_a_row[-1]
    kinds = sorted({r.failure.message.partition(":")[0] for r in in_a_row if r.failure})
    return (
        f"stopped after {len(in_a_row)} vectors in a row ended in adapter failures "
        f"({', '.join(kinds)}; the last: {last.id}); {left} vectors not run (--max-failures)"
    )


def _extra_lines(
    adapter: AdapterProcess,
    answers: Iterator[Reply | ExchangeError],
    owed: int,
    options: RunOptions,
) -> int:
    """After a mismatch: how many reply lines the adapter wrote beyond the requests it was sent
    (0 when it stays in step or that cannot be told): the replies still owed are read, then a
    probe naming a fresh nonce is sent, and every line read before its reply is extra."""
    for _ in range(owed):
        if isinstance(next(answers), ExchangeError):
            return 0
    nonce = f"conform-sync:{time.monotonic_ns()}"
    adapter.send([{"op": "tool_id_parse", "raw": nonce}])
    for extra in range(EXTRA_LINES_READ):
        answer = adapter.receive(options.timeout)
        if isinstance(answer, ExchangeError):
            return 0
        if answer.value.get("id") == nonce:
            return extra
    return EXTRA_LINES_READ
