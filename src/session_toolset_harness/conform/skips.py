"""The skip-file format shared by ``--skip`` and ``--emit-known-failures``.

One entry per line: a vector id or a glob (``fnmatch``, case-sensitive), then optionally
whitespace and a free-text reason. Blank lines and lines starting with ``#`` are ignored. Vector
ids never contain whitespace, so the first whitespace ends the pattern. The same format is written
by ``--emit-known-failures`` so a CI job can bootstrap its known-failures list from one run.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

DEFAULT_REASON = "listed in the skip file"


@dataclass(frozen=True)
class SkipRule:
    """One skip-file entry."""

    pattern: str
    reason: str
    line: int


class SkipFileError(Exception):
    """The skip file cannot be read (a usage error, exit 2)."""


def parse(text: str) -> list[SkipRule]:
    """Parse skip-file text into rules, in file order."""
    rules: list[SkipRule] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, *rest = line.split(None, 1)
        reason = rest[0].strip() if rest else DEFAULT_REASON
        rules.append(SkipRule(pattern, reason, number))
    return rules


def read(path: Path) -> list[SkipRule]:
    """Read and parse a skip file."""
    try:
        return parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SkipFileError(f"cannot read skip file {path}: {exc}") from exc


def find(rules: Iterable[SkipRule], vector_id: str) -> SkipRule | None:
    """The first rule whose pattern matches the id exactly or as a glob."""
    for rule in rules:
        if rule.pattern == vector_id or fnmatch.fnmatchcase(vector_id, rule.pattern):
            return rule
    return None


def render(entries: Iterable[tuple[str, str]], header: str) -> str:
    """Skip-file text for ``(id, reason)`` pairs; reasons are flattened to one line."""
    lines = [f"# {line}" for line in header.splitlines()]
    for vector_id, reason in entries:
        flat = " ".join(reason.split())
        lines.append(f"{vector_id} {flat}" if flat else vector_id)
    return "\n".join(lines) + "\n"
