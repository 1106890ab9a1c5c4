"""The skip-file format shared by ``--skip`` and ``--emit-known-failures``.

One entry per line: a vector id or a glob (``fnmatch``, case-sensitive), then optionally
whitespace and a free-text reason. Blank lines and lines starting with ``#`` are ignored. Vector
ids never contain whitespace, so the first whitespace ends the pattern. The same format is written
by ``--emit-known-failures`` so a CI job can bootstrap its known-failures list from one run.

Skip files shipped with the package (`PACKAGED`) are named without a path: ``--skip skeleton``
is the list of vectors beyond the five ops the adapter skeletons implement (docs/examples/: any
language's skeleton with the same ops can use it).
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
