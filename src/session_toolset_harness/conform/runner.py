"""Running vectors against one adapter command and classifying each one.

One adapter process is reused across vectors (each vector starts with ``hello`` and ``reset``),
which keeps a large corpus fast; after any vector that does not pass, the process is discarded and
a fresh one serves the next vector, so one broken vector cannot poison the rest. After the last step
of a vector the runner sends one extra ``hello`` as a sync probe: the first line read back must be
a hello reply, which deterministically exposes an adapter that wrote more than one line for some
request of this vector instead of blaming the next vector.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from session_toolset_harness.conform import checks, pipeline, schemas, select, skips
from session_toolset_harness.conform.client import AdapterProcess, ExchangeError, Reply
from session_toolset_harness.conform.matcher import first_difference
from session_toolset_harness.conform.results import (
    Hit,
    RunResult,
    Status,
    StepFailure,
    VectorResult,
)
from session_toolset_harness.conform.vectors import LoadProblem, Step, Vector

SYNC_PROBE = pipeline.SYNC_PROBE


@dataclass(frozen=True)
class RunOptions:
    """Everything that changes how vectors are run (not which ones: the CLI selects those)."""

    adapter: tuple[str, ...]
    timeout: float = 10.0
    strict_replies: bool = False
    skip_rules: tuple[skips.SkipRule, ...] = ()
    skip_must_fail: bool = False
    exclude_tags: tuple[str, ...] = ()
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

    def run(self, items: Sequence[Vector | LoadProblem]) -> RunResult:
        """Run every item in order; raises ``AdapterStartError`` if the command cannot start."""
        started = time.monotonic()
        results: list[VectorResult] = []
        try:
            for item in items:
                result = self._one(item)
                results.append(result)
                if self._options.on_result is not None:
                    self._options.on_result(result)
        finally:
            problems = self._shutdown()
        return RunResult(
            adapter=self._options.adapter,
            results=tuple(results),
            seconds=time.monotonic() - started,
            adapter_problems=tuple(problems),
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
        tag = select.excluded_by(item, self._options.exclude_tags)
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
        # Pipelined: a vector's expectations are fixed in advance, so every step and the sync
        # probe are written at once and the replies read back in order (conform/pipeline.py).
        answers = pipeline.replies(adapter, [s.send for s in vector.steps], self._options.timeout)
        for index, step in enumerate(vector.steps):
            answer = next(answers)
            if isinstance(answer, ExchangeError):
                status = Status.ERRORED
                failure = self._exchange_failure(index, step, answer, adapter)
                break
            hits.append(Hit(checks.op_of(step.send), checks.outcome(answer.value)))
            if self._options.on_exchange is not None:
                self._options.on_exchange(vector.id, step.send, answer.value)
            failure = self._judge(index, step, answer.value, answer.raw, adapter)
            if failure is not None:
                status = Status.FAILED
                break
        else:
            failure = self._sync(len(vector.steps), adapter, next(answers))
            if failure is not None:
                status = Status.ERRORED
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

    def _judge(
        self, index: int, step: Step, reply: dict[str, object], raw: str, adapter: AdapterProcess
    ) -> StepFailure | None:
        """The first reason this reply fails its step: subset, protocol rules, then schema."""
        difference = first_difference(step.expect, reply)
        if difference is not None:
            path, message = difference.path, f"mismatch at {difference.path}: {difference.message}"
        else:
            problem = checks.reply_problem(reply)
            if problem is None and self._options.strict_replies:
                found = schemas.validate_reply(checks.op_of(step.send), reply)
                if found:
                    problem = (found[0].path, f"reply schema: {found[0].message}")
            if problem is None:
                return None
            path, message = problem[0], f"protocol rule broken at {problem[0]}: {problem[1]}"
        return StepFailure(
            index, step.send, step.expect, reply, path, message, raw, adapter.stderr_text()
        )

    def _exchange_failure(
        self, index: int, step: Step, error: ExchangeError, adapter: AdapterProcess
    ) -> StepFailure:
        return StepFailure(
            index,
            step.send,
            step.expect,
            None,
            None,
            f"{error.kind}: {error.message}",
            error.raw,
            adapter.stderr_text(),
        )

    def _sync(
        self, index: int, adapter: AdapterProcess, answer: Reply | ExchangeError
    ) -> StepFailure | None:
        if isinstance(answer, ExchangeError):
            message = f"after the last step, sync probe hello: {answer.kind}: {answer.message}"
            raw = answer.raw
            reply: object | None = None
        elif answer.value.get("ok") is True and answer.value.get("protocol") == 1:
            return None
        else:
            message = (
                "after the last step, the sync probe hello got a reply that is not a hello reply: "
                "the adapter wrote more reply lines than it received requests"
            )
            raw, reply = answer.raw, answer.value
        return StepFailure(
            index,
            SYNC_PROBE,
            {"ok": True, "protocol": 1},
            reply,
            None,
            message,
            raw,
            adapter.stderr_text(),
        )
