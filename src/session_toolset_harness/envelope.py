"""The envelope every ``--json`` report of ``session-toolset`` opens with, so a CI step can judge
any of them the same way: ``format`` (``"session-toolset CMD report"``), ``format_version``,
``tool``, ``version``, ``verdict`` (``"pass"`` or a word saying why not), ``complete`` (false
after an interruption, or for a merge missing a shard) and ``counts``.  Each report has a JSON
Schema in ``session_toolset_harness/schemas/``; ``prove`` restates the envelope (the proofs
import nothing from the harness).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["check_writable", "envelope", "tool_version"]


def tool_version() -> str:
    """The installed distribution version, or ``unknown`` when running from a bare checkout."""
    try:
        return metadata.version("session-toolset")
    except metadata.PackageNotFoundError:
        return "unknown"


def envelope(
    command: str,
    format_version: int,
    verdict: str,
    counts: Mapping[str, int],
    *,
    complete: bool = True,
) -> dict[str, Any]:
    """The envelope keys of a ``command`` report, in their fixed order."""
    return {
        "format": f"session-toolset {command} report",
        "format_version": format_version,
        "tool": f"session-toolset {command}",
        "version": tool_version(),
        "verdict": verdict,
        "complete": complete,
        "counts": dict(counts),
    }


def check_writable(outputs: Iterable[tuple[str, Path | None]], error: type[Exception]) -> None:
    """Raise ``error`` for the first output file (flag, path) that cannot be written, so a
    command fails as a usage error before any work rather than after it.  Opening for append
    creates a missing file without truncating an existing one and meets every refusal the real
    write would; a file created only to probe is removed again."""
    for flag, path in outputs:
        if path is None:
            continue
        existed = path.exists()
        try:
            with path.open("a", encoding="utf-8"):
                pass
            if not existed:
                path.unlink()
        except OSError as exc:
            raise error(f"cannot write {flag} {path}: {exc.strerror or exc}") from None
