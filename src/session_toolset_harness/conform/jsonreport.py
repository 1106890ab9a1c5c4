"""The machine-readable ``--json`` report.

Carries everything the console shows, unabridged except for the adapter's stderr tail (already
bounded), so a CI job can post-process failures without parsing text.
"""

from __future__ import annotations

import json
from pathlib import Path

from session_toolset_harness.conform.jsonio import RawLine
from session_toolset_harness.conform.results import RunResult, Status, StepFailure, VectorResult
from session_toolset_harness.conform.vectors import PROTOCOL_VERSION
from session_toolset_harness.envelope import envelope

FORMAT_VERSION = 2
"""2: the common envelope (`envelope`); ``summary`` became ``counts``, ``ok`` the ``verdict``."""


def _failure(failure: StepFailure) -> dict[str, object]:
    return {
        "step": failure.index,
        "message": failure.message,
        "path": failure.path,
        # a send_line / send_hex step shows as {"send_line": TEXT} / {"send_hex": HEX}
        "request": (
            failure.request.to_json() if isinstance(failure.request, RawLine) else failure.request
        ),
        "expected": failure.expected,
        "reply": failure.reply,
        "raw_reply": failure.raw_reply,
        "stderr_tail": failure.stderr_tail,
    }


def _vector(result: VectorResult) -> dict[str, object]:
    return {
        "id": result.id,
        "path": result.path,
        "status": result.status.value,
        "seconds": round(result.seconds, 6),
        "reason": result.reason,
        "steps_run": result.steps_run,
        "failure": None if result.failure is None else _failure(result.failure),
        "hits": [[hit.op, hit.outcome] for hit in result.hits],
    }


def build(run: RunResult, shard: tuple[int, int] = (1, 1)) -> dict[str, object]:
    """The report as a JSON-ready dict (``shard``: the ``--shard K/N`` this run was)."""
    counts = run.counts()
    return {
        **envelope(
            "conform",
            FORMAT_VERSION,
            "pass" if run.ok else ("fail" if run.complete else "incomplete"),
            {status.value: counts[status] for status in Status},
            complete=run.complete,
        ),
        "protocol": PROTOCOL_VERSION,
        "adapter": list(run.adapter),
        "seconds": round(run.seconds, 6),
        "requests": run.requests,
        "stopped": run.stopped,
        "shard": list(shard),
        "adapter_problems": list(run.adapter_problems),
        "vectors": [_vector(r) for r in run.results],
    }


def write(run: RunResult, path: Path, shard: tuple[int, int] = (1, 1)) -> None:
    """Write the report; OSError propagates to the CLI, which turns it into exit status 2."""
    text = json.dumps(build(run, shard), indent=2, ensure_ascii=True)
    path.write_text(text + "\n", encoding="utf-8")
