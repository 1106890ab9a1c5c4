"""Where Hypothesis keeps its caches while ``session-toolset explore`` runs: not the working
directory.

Hypothesis writes a ``.hypothesis/`` directory (its Unicode tables) into the current directory
by default; a command-line tool run from a user's project must not leave files there.  The
explore command points it at the user's cache directory instead, unless the user chose one
(``HYPOTHESIS_STORAGE_DIRECTORY``).  Explore never writes an example database either
(`run.hypothesis_settings`), so the cache holds nothing a run depends on.  Hypothesis reads
``HYPOTHESIS_STORAGE_DIRECTORY`` (its documented setting) the first time it needs the directory.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

ENV = "HYPOTHESIS_STORAGE_DIRECTORY"


def cache_directory() -> Path:
    """``$XDG_CACHE_HOME/session-toolset/hypothesis`` (default ``~/.cache/...``).

    A relative ``XDG_CACHE_HOME`` is ignored, as the XDG base directory specification says (it
    would put the cache in the working directory).  With no home directory either (``HOME``
    unset and no password entry, as for an arbitrary container user) the cache goes under the
    system's temporary directory, per user: the command still runs, and still writes nothing
    into the working directory."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        base = Path(xdg)
    else:
        try:
            base = Path.home() / ".cache"
        except RuntimeError:  # pathlib: "Could not determine home directory."
            user = str(os.getuid()) if hasattr(os, "getuid") else "user"
            base = Path(tempfile.gettempdir()) / f"session-toolset-{user}"
    return base / "session-toolset" / "hypothesis"


def use_cache_directory() -> Path:
    """Send Hypothesis's caches to `cache_directory` (and the ``--jobs`` workers, through the
    environment they inherit), unless ``HYPOTHESIS_STORAGE_DIRECTORY`` is set; the directory
    used."""
    chosen = os.environ.get(ENV)
    where = Path(chosen) if chosen else cache_directory()
    os.environ[ENV] = str(where)
    return where
