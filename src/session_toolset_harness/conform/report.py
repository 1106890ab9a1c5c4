"""Console output: live progress, failure details, and the one summary line.

On a terminal one progress line counts the vectors as they finish (done/total, rate, time left,
failures so far: `progress`); otherwise each prints one plain line (``PASS id``) that a CI log
can grep. ``--quiet`` keeps only the failure details and
the summary. Everything shown is bounded (``jsonio.DISPLAY_LIMIT``) so hostile 64 KiB requests do
not drown the report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final, TextIO

from session_toolset_harness.conform.jsonio import render, truncate
from session_toolset_harness.conform.results import RunResult, Status, VectorResult, summary_line
from session_toolset_harness.progress import Progress
from session_toolset_harness.summary import code_block, table

LABEL: Final = dict(zip(Status, ("PASS", "FAIL", "SKIP", "ERROR"), strict=True))
MAX_DETAILED: Final = 10
"""Failed or errored vectors explained in full on the console (the reports have them all)."""


class ConsoleReporter:
    """Writes progress while vectors run and the failure report at the end."""

    def __init__(
        self,
        stream: TextIO,
        *,
        terminal: bool,
        quiet: bool,
        requested: Sequence[str] = (),
        offered: Sequence[str] = ("--json", "--junit"),
    ) -> None:
        """``requested``: the flags of the reports being written that hold every vector, named
        where the console leaves some out; ``offered``: the command's flags for such reports,
        named when none was requested."""
        self._stream = stream
        if requested:
            plural = "s" if len(requested) > 1 else ""
            self._elsewhere = f"every one is in the {' and '.join(requested)} report{plural}"
        else:
            self._elsewhere = f"{' or '.join(f'{flag} FILE' for flag in offered)} writes every one"
        self._terminal = terminal and not quiet
        self._quiet = quiet
        self._progress = Progress("conform", None, "vectors", enabled=False)
        self._bad = 0

    def start(self, total: int) -> None:
        """``total`` vectors are about to run (for the progress line's count and ETA)."""
        self._progress = Progress(
            "conform", total, "vectors", enabled=self._terminal, stream=self._stream
        )

    def on_result(self, result: VectorResult) -> None:
        if self._quiet:
            return
        if self._terminal:
            self._bad += result.status in (Status.FAILED, Status.ERRORED)
            self._progress.advance(note=f"{self._bad} failed or errored" if self._bad else "")
            return
        self._stream.write(plain_line(result) + "\n")
        self._stream.flush()

    def finish(self, run: RunResult, *, summary: bool = True) -> None:
        """Failure details, then the summary line (``summary=False``: a caller that prints its
        own single summary, like ``check``, leaves it out)."""
        self._progress.close()
        bad = run.bad
        for result in bad[:MAX_DETAILED]:
            self._stream.write("\n" + failure_block(result))
        if len(bad) > MAX_DETAILED:
            self._stream.write(
                f"\n... and {len(bad) - MAX_DETAILED} more failed or errored vectors, not shown "
                f"({self._elsewhere})\n"
            )
        for problem in run.adapter_problems[:MAX_DETAILED]:
            self._stream.write(f"\nADAPTER {problem}\n")
        if len(run.adapter_problems) > MAX_DETAILED:
            more = len(run.adapter_problems) - MAX_DETAILED
            self._stream.write(f"\n... and {more} more adapter problems ({self._elsewhere})\n")
        if run.stopped is not None:
            self._stream.write(f"\nINCOMPLETE: {run.stopped}\n")
        if summary:
            self._stream.write("\n" + summary_line(run) + "\n")
        self._stream.flush()


def plain_line(result: VectorResult) -> str:
    """``LABEL id`` plus a one-line reason for anything but a pass."""
    line = f"{LABEL[result.status]} {result.id}"
    if result.reason:
        line += f"  ({truncate(' '.join(result.reason.split()), 200)})"
    return line


def failure_block(result: VectorResult) -> str:
    """The multi-line explanation of one failed or errored vector."""
    title = f"{LABEL[result.status]} {result.id}"
    lines = [f"{'_' * 8} {title} {'_' * 8}", f"file: {result.path}"]
    failure = result.failure
    if failure is None:
        lines.append(result.reason)
        return "\n".join(lines) + "\n"
    lines.append(f"step {failure.index}: {failure.message}")
    lines.append(f"  request:  {render(failure.request)}")
    lines.append(f"  expected: {render(failure.expected)}")
    if failure.reply is not None:
        lines.append(f"  reply:    {render(failure.reply)}")
    elif failure.raw_reply is not None:
        lines.append(f"  raw line: {truncate(failure.raw_reply)}")
    else:
        lines.append("  reply:    (none)")
    if failure.path is not None:
        lines.append(f"  first difference at: {failure.path}")
    if (
        result.status is Status.SKIPPED
        or result.reason != f"step {failure.index}: {failure.message}"
    ):
        lines.append(f"  status reason: {result.reason}")
    if failure.stderr_tail.strip():
        lines.append("  adapter stderr (tail):")
        lines.extend(f"    {line}" for line in failure.stderr_tail.rstrip("\n").splitlines())
    return "\n".join(lines) + "\n"


def markdown(run: RunResult, title: str = "session-toolset conform") -> str:
    """The ``--summary`` text: verdict, one row per vector group, the first failure."""
    counts: dict[str, Counter[Status]] = {}
    for result in run.results:
        group = result.id.rpartition("/")[0] or "vectors"
        counts.setdefault(group, Counter())[result.status] += 1
    rows = [
        [group, *(found[status] for status in Status)] for group, found in sorted(counts.items())
    ]
    verdict = "passed" if run.ok else ("**FAILED**" if run.complete else "**INCOMPLETE**")
    parts = [
        f"## {title}: {verdict}\n",
        f"{summary_line(run)}; adapter `{' '.join(run.adapter)}`\n",
        table(["group", *(status.value for status in Status)], rows),
    ]
    bad = run.bad
    if bad:
        more = f" ({len(bad) - 1} more in the JSON and JUnit reports)" if len(bad) > 1 else ""
        parts.append(f"### First failure: `{bad[0].id}`{more}\n")
        parts.append(code_block(failure_block(bad[0])))
    for problem in run.adapter_problems:
        parts.append(f"- {problem}\n")
    return "\n".join(parts)
