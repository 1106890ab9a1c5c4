"""``conform --merge REPORT...``: the ``--json`` reports of several runs (typically every
``--shard K/N`` of a CI matrix) as one summary, one coverage table and one verdict.

The merged run passes only when every report passed and every shard ``1..N`` of each N is
there.  A shard missing, like a report that stopped early, leaves the merged run incomplete
(verdict ``incomplete``, ``complete: false``, exit status 1: a shard job that wrote no report
failed).  A report given twice, a shard in two reports, a vector run by two reports (overlapping
shards would count it twice), unreadable or foreign files are usage errors (`MergeError`, exit
status 2): the merge was asked to count something twice, and has no verdict to give.  The
merged results are rebuilt as one `RunResult` (`merged_run`), so ``--json``, ``--junit`` and
``--summary`` write the same reports for a merged run as for a single one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

from session_toolset_harness.conform import coverage
from session_toolset_harness.conform.results import (
    Hit,
    RunResult,
    Status,
    StepFailure,
    VectorResult,
)

PROG = "session-toolset conform"
FORMAT = "session-toolset conform report"


class MergeError(ValueError):
    """A report that cannot be read or is not a conform ``--json`` report."""


def read(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise MergeError(f"cannot read {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise MergeError(f"{path} is not JSON: {exc}") from None
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise MergeError(f"{path} is not a conform report (written by conform --json)")
    vectors = value.get("vectors")
    shard = value.get("shard", [1, 1])
    if not isinstance(vectors, list) or not all(
        isinstance(v, dict) and isinstance(v.get("id"), str) and isinstance(v.get("status"), str)
        for v in vectors
    ):
        raise MergeError(f"{path}: malformed report (vectors)")
    if not (
        isinstance(shard, list)
        and len(shard) == 2
        and all(isinstance(x, int) for x in shard)
        and 1 <= shard[0] <= shard[1]
    ):
        raise MergeError(f"{path}: malformed report (shard)")
    return value


def _shard(report: dict[str, Any]) -> Hashable:
    return tuple(report.get("shard", [1, 1]))


def given_twice(
    reports: Sequence[tuple[Path, dict[str, Any]]],
    shard_of: Callable[[dict[str, Any]], Hashable] = _shard,
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


def repeated(reports: Sequence[tuple[Path, dict[str, Any]]]) -> str | None:
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


def incomplete(reports: Sequence[tuple[Path, dict[str, Any]]]) -> str | None:
    """Why the merged run does not cover the whole run (None when it does): a report that
    stopped early, shards missing."""
    found = [f"{path}: {report['stopped']}" for path, report in reports if report.get("stopped")]
    shards: dict[int, set[int]] = {}
    for _, report in reports:
        k, n = report.get("shard", [1, 1])
        shards.setdefault(n, set()).add(k)
    for n, present in sorted(shards.items()):
        missing = [f"{k}/{n}" for k in range(1, n + 1) if k not in present]
        if missing:
            found.append(f"shard(s) {', '.join(missing)} missing")
    return "; ".join(found) or None


def _failure(value: object) -> StepFailure | None:
    if not isinstance(value, dict):
        return None
    return StepFailure(
        index=int(value.get("step", 0)),
        request=value.get("request"),
        expected=value.get("expected"),
        reply=value.get("reply"),
        path=value.get("path"),
        message=str(value.get("message", "")),
        raw_reply=value.get("raw_reply"),
        stderr_tail=str(value.get("stderr_tail") or ""),
    )


def _result(vector: dict[str, Any]) -> VectorResult:
    try:
        status = Status(vector["status"])
    except ValueError:
        raise MergeError(f"unknown vector status {vector['status']!r}") from None
    return VectorResult(
        id=vector["id"],
        path=str(vector.get("path", "")),
        status=status,
        seconds=float(vector.get("seconds", 0.0)),
        reason=str(vector.get("reason") or ""),
        failure=_failure(vector.get("failure")),
        hits=tuple(Hit(str(op), str(outcome)) for op, outcome in vector.get("hits", [])),
        steps_run=int(vector.get("steps_run", 0)),
    )


def merged_run(reports: Sequence[tuple[Path, dict[str, Any]]]) -> RunResult:
    """Every report's vectors as one run; a report's adapter problems become the run's, and a
    report that stopped early or a shard missing leaves the run incomplete (`incomplete`), so
    they fail the merged verdict in every report written from it."""
    adapters = {tuple(str(a) for a in report.get("adapter", [])) for _, report in reports}
    adapter = adapters.pop() if len(adapters) == 1 else ("(several adapters)",)
    return RunResult(
        adapter=adapter,
        results=tuple(_result(v) for _, report in reports for v in report["vectors"]),
        seconds=sum(float(report.get("seconds", 0.0)) for _, report in reports),
        adapter_problems=tuple(
            f"{path}: {problem}"
            for path, report in reports
            for problem in report.get("adapter_problems", [])
        ),
        stopped=incomplete(reports),
    )


def read_all(paths: Sequence[Path]) -> tuple[list[tuple[Path, dict[str, Any]]], RunResult]:
    """The reports and their merged run; `MergeError` for a file that is not a conform report,
    or reports that would count something twice (`repeated`)."""
    reports = [(path, read(path)) for path in paths]
    try:
        twice = repeated(reports)
        if twice is not None:
            raise MergeError(twice)
        return reports, merged_run(reports)
    except MergeError:
        raise
    except (TypeError, ValueError, KeyError) as exc:
        raise MergeError(f"malformed report ({type(exc).__name__}: {exc})") from None


def main(
    reports: Sequence[tuple[Path, dict[str, Any]]],
    run: RunResult,
    *,
    show_coverage: bool,
    require_full: bool,
) -> int:
    """Print the merged summary; 0 when everything passed, 1 otherwise."""
    for path, report in reports:
        for vector in report["vectors"]:
            if vector["status"] in (Status.FAILED.value, Status.ERRORED.value):
                print(
                    f"{vector['status'].upper()} {vector['id']}  ({path}): {vector.get('reason')}"
                )
    for problem in run.adapter_problems:
        print(f"{PROG}: --merge: {problem}")
    status = 0
    if show_coverage:
        found = coverage.compute(r.hits for r in run.results)
        print(coverage.render(found), end="")
        if require_full and found.missing():
            print(f"{PROG}: {len(found.missing())} reachable error codes are covered by no vector")
            status = 1
    counts = run.counts()
    merged = f"{len(reports)} report{'s' if len(reports) != 1 else ''} merged"
    line = (
        f"{counts[Status.PASSED]} passed, {counts[Status.FAILED]} failed, "
        f"{counts[Status.SKIPPED]} skipped, {counts[Status.ERRORED]} errored ({merged})"
    )
    failed = not run.ok or status
    print(line if not failed else f"{line}: {_why(run)}")
    return 1 if failed else 0


def _why(run: RunResult) -> str:
    """What fails a merged run, for its summary line (the exit status is 1)."""
    if run.stopped is not None:  # as the merged reports' verdict: incomplete before failed
        return f"INCOMPLETE ({run.stopped})"
    counts = run.counts()
    if counts[Status.FAILED] or counts[Status.ERRORED]:
        return "FAILED"
    if run.adapter_problems:
        more = len(run.adapter_problems) - 1
        return f"FAILED ({run.adapter_problems[0]}{f' and {more} more' if more else ''})"
    return "FAILED (reachable error codes covered by no vector)"  # --require-full-coverage
