"""``conform --merge REPORT...``: the ``--json`` reports of several runs (typically every
``--shard K/N`` of a CI matrix) as one summary, one coverage table and one verdict.

The merged run passes only when every report passed, every shard ``1..N`` of each N is there
exactly once, and no vector id was run by two reports (overlapping shards would count it twice).
Unreadable or foreign files are usage errors (`MergeError`, exit status 2).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from session_toolset_harness.conform import coverage
from session_toolset_harness.conform.results import Hit, Status

PROG = "session-toolset conform --merge"
TOOL = "session-toolset conform"


class MergeError(ValueError):
    """A report that cannot be read or is not a conform ``--json`` report."""


def read(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise MergeError(f"cannot read {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise MergeError(f"{path} is not JSON: {exc}") from None
    if not isinstance(value, dict) or value.get("tool") != TOOL:
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


def problems_of(reports: Sequence[tuple[Path, dict[str, Any]]]) -> list[str]:
    """Why the merged verdict fails, beyond failed vectors: adapter problems, shards missing or
    repeated, vectors run twice."""
    found: list[str] = []
    shards: dict[int, Counter[int]] = {}
    seen: dict[str, Path] = {}
    for path, report in reports:
        k, n = report.get("shard", [1, 1])
        shards.setdefault(n, Counter())[k] += 1
        found += [f"{path}: {p}" for p in report.get("adapter_problems", [])]
        for vector in report["vectors"]:
            first = seen.setdefault(vector["id"], path)
            if first is not path:
                found.append(f"vector {vector['id']} is in {first} and in {path}")
    for n, counts in sorted(shards.items()):
        missing = [f"{k}/{n}" for k in range(1, n + 1) if counts[k] == 0]
        repeated = [f"{k}/{n}" for k in sorted(counts) if counts[k] > 1]
        if missing:
            found.append(f"shard(s) {', '.join(missing)} missing")
        if repeated:
            found.append(f"shard(s) {', '.join(repeated)} given more than once")
    return found


def main(paths: Sequence[Path], *, show_coverage: bool, require_full: bool) -> int:
    """Print the merged summary; 0 when everything passed, 1 otherwise, 2 on a bad file."""
    try:
        reports = [(path, read(path)) for path in paths]
    except MergeError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    counts: Counter[str] = Counter()
    hits: list[list[Hit]] = []
    for path, report in reports:
        for vector in report["vectors"]:
            counts[vector["status"]] += 1
            hits.append([Hit(str(op), str(outcome)) for op, outcome in vector.get("hits", [])])
            if vector["status"] in (Status.FAILED.value, Status.ERRORED.value):
                print(
                    f"{vector['status'].upper()} {vector['id']}  ({path}): {vector.get('reason')}"
                )
    problems = problems_of(reports)
    for problem in problems:
        print(f"{PROG}: {problem}")
    status = 0
    if show_coverage:
        found = coverage.compute(hits)
        print(coverage.render(found), end="")
        if require_full and found.missing():
            print(f"{PROG}: {len(found.missing())} reachable error codes are covered by no vector")
            status = 1
    bad = counts[Status.FAILED.value] + counts[Status.ERRORED.value]
    print(
        f"{counts[Status.PASSED.value]} passed, {counts[Status.FAILED.value]} failed, "
        f"{counts[Status.SKIPPED.value]} skipped, {counts[Status.ERRORED.value]} errored "
        f"({len(reports)} reports merged)"
    )
    return 1 if bad or problems or status else 0
