"""The ``--json`` report of a run (`build`: everything the console shows, unabridged), and
``conform --merge REPORT...``: several such reports (every ``--shard K/N`` of a CI
matrix) as one run, one summary and one verdict.

The merge passes only when every report passed and every shard of each N is there; a missing
shard or a report that stopped early leaves it incomplete (exit 1).  A file given twice, a shard
or a vector in two reports, and a file that is not a conform report (its schema) are usage
errors (`MergeError`, exit 2).  `merged_run` rebuilds one `RunResult`, so every report is
written for a merge as for a single run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

from session_toolset_harness.conform.jsonio import RawLine
from session_toolset_harness.conform.results import (
    Hit,
    RunResult,
    Status,
    StepFailure,
    VectorResult,
    tally,
)
from session_toolset_harness.conform.vectors import PROTOCOL_VERSION
from session_toolset_harness.envelope import envelope

PROG = "session-toolset conform"
Reports = Sequence[tuple[Path, dict[str, Any]]]

FORMAT_VERSION = 2
"""2: the common envelope (`envelope`); ``summary`` became ``counts``, ``ok`` the ``verdict``."""


def _failure_json(failure: StepFailure) -> dict[str, object]:
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
        "failure": None if result.failure is None else _failure_json(result.failure),
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


class MergeError(ValueError):
    """A report that cannot be read or is not a conform ``--json`` report."""


def read(path: Path) -> dict[str, Any]:
    """The report at ``path``, checked against ``conform-report.schema.json``."""
    from session_toolset_harness.conform.schemas import validate_report

    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise MergeError(f"cannot read {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise MergeError(f"{path} is not JSON: {exc}") from None
    problems = validate_report("conform-report", value)
    if problems:
        raise MergeError(
            f"{path} is not a conform report (written by conform --json): {problems[0]}"
        )
    return dict(value)


def _shard(report: dict[str, Any]) -> Hashable:
    return tuple(report.get("shard", [1, 1]))


def given_twice(
    reports: Reports, shard_of: Callable[[dict[str, Any]], Hashable] = _shard
) -> str | None:
    """A file given twice, or one shard in two reports (None when neither): ``shard_of`` is what
    makes two reports the same shard (``explore`` adds its plan to ``--shard K/N``)."""
    files: dict[Path, Path] = {}
    shards: dict[Hashable, Path] = {}
    for path, report in reports:
        first_file = files.setdefault(path.resolve(), path)
        if first_file is not path:
            return f"{path} given twice"
        first_shard = shards.setdefault(shard_of(report), path)
        if first_shard is not path:
            k, n = report.get("shard", [1, 1])
            return f"shard {k}/{n} given twice ({first_shard} and {path})"
    return None


def repeated(reports: Reports) -> str | None:
    """Why the reports cannot be merged without counting something twice (None when they can):
    a file given twice, a shard in two reports (`given_twice`), vectors in two reports."""
    twice_given = given_twice(reports)
    if twice_given is not None:
        return twice_given
    seen: dict[str, Path] = {}
    twice: list[tuple[str, Path, Path]] = []
    for path, report in reports:
        for vector in report["vectors"]:
            first = seen.setdefault(vector["id"], path)
            if first is not path:
                twice.append((vector["id"], first, path))
    if twice:
        vid, first, path = twice[0]
        more = f" ({len(twice) - 1} more vectors are in two reports)" if len(twice) > 1 else ""
        return (
            f"vector {vid} is in {first} and in {path}{more}: shards of different --shard K/N "
            "splits"
        )
    return None


def incomplete(reports: Reports) -> str | None:
    """Why the merged run does not cover the whole run (None when it does): a report that
    stopped early, shards missing."""
    found = [f"{path}: {report['stopped']}" for path, report in reports if report.get("stopped")]
    shards: dict[int, set[int]] = {}
    for _, report in reports:
        k, n = report["shard"]
        shards.setdefault(n, set()).add(k)
    for n, present in sorted(shards.items()):
        missing = [f"{k}/{n}" for k in range(1, n + 1) if k not in present]
        if missing:
            found.append(f"shard(s) {', '.join(missing)} missing")
    return "; ".join(found) or None


def _result(vector: dict[str, Any]) -> VectorResult:
    """A vector of a report (`_vector`) as the result it was written from."""
    failure = vector["failure"]
    return VectorResult(
        id=vector["id"],
        path=vector["path"],
        status=Status(vector["status"]),
        seconds=float(vector["seconds"]),
        reason=vector["reason"],
        failure=None
        if failure is None
        else StepFailure(
            failure["step"],
            *(failure[key] for key in ("request", "expected", "reply", "path", "message")),
            *(failure[key] for key in ("raw_reply", "stderr_tail")),
        ),
        hits=tuple(Hit(str(op), str(outcome)) for op, outcome in vector["hits"]),
        steps_run=vector["steps_run"],
    )


def merged_run(reports: Reports) -> RunResult:
    """Every report's vectors as one run; a report's adapter problems become the run's, and a
    report that stopped early or a shard missing leaves the run incomplete (`incomplete`), so
    they fail the merged verdict in every report written from it."""
    adapters = {tuple(report["adapter"]) for _, report in reports}
    adapter = adapters.pop() if len(adapters) == 1 else ("(several adapters)",)
    return RunResult(
        adapter=adapter,
        results=tuple(_result(v) for _, report in reports for v in report["vectors"]),
        seconds=sum(float(report["seconds"]) for _, report in reports),
        adapter_problems=tuple(
            f"{path}: {problem}"
            for path, report in reports
            for problem in report["adapter_problems"]
        ),
        stopped=incomplete(reports),
    )


def read_all(paths: Sequence[Path]) -> tuple[list[tuple[Path, dict[str, Any]]], RunResult]:
    """The reports and their merged run; `MergeError` for a file that is not a conform report,
    or reports that would count something twice (`repeated`)."""
    reports = [(path, read(path)) for path in paths]
    twice = repeated(reports)
    if twice is not None:
        raise MergeError(twice)
    return reports, merged_run(reports)


def print_failures(reports: Reports, run: RunResult) -> None:
    """Each failed or errored vector with the report it is in, then the adapter problems."""
    for path, report in reports:
        for vector in report["vectors"]:
            if vector["status"] in (Status.FAILED.value, Status.ERRORED.value):
                print(f"{vector['status'].upper()} {vector['id']}  ({path}): {vector['reason']}")
    for problem in run.adapter_problems:
        print(f"{PROG}: --merge: {problem}")


def summary_line(merged: int, run: RunResult, coverage_status: int) -> str:
    """The merged run's summary line, saying what fails it (the exit status is then 1)."""
    line = f"{tally(run)} ({merged} report{'s' if merged != 1 else ''} merged)"
    if run.ok and not coverage_status:
        return line
    if run.stopped is not None:  # as the merged reports' verdict: incomplete before failed
        return f"{line}: INCOMPLETE ({run.stopped})"
    if run.bad:
        return f"{line}: FAILED"
    if run.adapter_problems:
        more = len(run.adapter_problems) - 1
        return f"{line}: FAILED ({run.adapter_problems[0]}{f' and {more} more' if more else ''})"
    return f"{line}: FAILED (reachable error codes covered by no vector)"  # --require-full-coverage
