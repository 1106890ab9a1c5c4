"""``--summary FILE``: a short Markdown account of a run for a CI page (title, verdict, one
table, the first failure), also appended to ``$GITHUB_STEP_SUMMARY`` when that is set; both
files are checked writable before any work (`outputs`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

__all__ = ["GITHUB_STEP_SUMMARY", "code_block", "outputs", "publish", "table"]

GITHUB_STEP_SUMMARY = "GITHUB_STEP_SUMMARY"
MAX_BLOCK_LINES = 60
"""A failure shown in a summary keeps its first lines; the JSON report has all of it."""


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table (pipes in cells escaped, whitespace collapsed)."""
    lines = [
        "| " + " | ".join(" ".join(str(v).split()).replace("|", "\\|") for v in row) + " |"
        for row in (headers, *rows)
    ]
    lines.insert(1, "|" + "|".join("---" for _ in headers) + "|")
    return "\n".join(lines) + "\n"


def code_block(text: str) -> str:
    """``text`` fenced so that no backtick run inside it can close the fence; long texts keep
    their first `MAX_BLOCK_LINES` lines."""
    lines = text.rstrip("\n").splitlines()
    if len(lines) > MAX_BLOCK_LINES:
        cut = len(lines) - MAX_BLOCK_LINES
        lines = [*lines[:MAX_BLOCK_LINES], f"... {cut} more lines (see the JSON report)"]
    body = "\n".join(lines)
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{body}\n{fence}\n"


def outputs(summary: Path | None) -> list[tuple[str, Path | None]]:
    """The files `publish` will write, as (name, path) pairs for `envelope.check_writable`:
    ``--summary`` and ``$GITHUB_STEP_SUMMARY`` (None for one that is not asked for)."""
    step_summary = os.environ.get(GITHUB_STEP_SUMMARY)
    return [
        ("--summary", summary),
        (f"${GITHUB_STEP_SUMMARY}", Path(step_summary) if step_summary else None),
    ]


def publish(markdown: str, path: Path | None) -> None:
    """Write ``markdown`` to ``path`` (if given) and append it to ``$GITHUB_STEP_SUMMARY`` (if
    set); `OSError` propagates (the caller's usage error)."""
    if path is not None:
        path.write_text(markdown, encoding="utf-8")
    step_summary = os.environ.get(GITHUB_STEP_SUMMARY)
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as stream:
            stream.write(markdown + "\n")
