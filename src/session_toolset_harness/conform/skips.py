"""The skip-file format of ``--skip`` and ``--emit-known-failures``: one vector id or
``fnmatch`` glob per line, then optionally whitespace and a reason; blank lines and ``#`` lines
are ignored.  ``--skip NAME`` also names a skip file the package ships (`PACKAGED`: ``skeleton``,
the vectors beyond the adapter skeletons' five ops).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

DEFAULT_REASON = "listed in the skip file"
SKIPFILES = Path(__file__).resolve().parent / "skipfiles"
PACKAGED = {path.stem: path for path in sorted(SKIPFILES.glob("*.skip"))}
"""Name -> skip file shipped in the package."""


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


def locate(argument: str | Path) -> Path:
    """The skip file ``--skip`` names: a file at that path, else a packaged one by name."""
    path = Path(argument)
    if not path.exists() and str(argument) in PACKAGED:
        return PACKAGED[str(argument)]
    return path


def read(path: str | Path) -> list[SkipRule]:
    """Read and parse a skip file, given by path or by a packaged name (`locate`)."""
    located = locate(path)
    try:
        return parse(located.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        names = ", ".join(PACKAGED)
        raise SkipFileError(
            f"cannot read skip file {located}: {exc} (packaged skip files: {names})"
        ) from exc


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
