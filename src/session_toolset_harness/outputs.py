"""Report and vector files a command will write, checked before it does any work."""

from __future__ import annotations

from pathlib import Path


def unwritable(path: Path) -> str | None:
    """Why ``path`` cannot be written (a missing directory, a directory in the way, no
    permission, a read-only file system), or None.

    Opening for append creates a missing file without truncating an existing one, and meets
    every refusal the real write would meet; a file created only to probe is removed again."""
    existed = path.exists()
    try:
        with path.open("a", encoding="utf-8"):
            pass
        if not existed:
            path.unlink()
    except OSError as exc:
        return str(exc.strerror or exc)
    return None


def first_unwritable(files: dict[str, Path | None]) -> str | None:
    """``--flag PATH: reason`` for the first of ``files`` (flag -> path) that cannot be
    written, or None when all can (None paths are not written at all)."""
    for flag, path in files.items():
        if path is None:
            continue
        reason = unwritable(path)
        if reason is not None:
            return f"cannot write {flag} {path}: {reason}"
    return None
