"""Broken miniature: wire names are echoed in full (no 128-byte bound) in resolved calls and
UnknownTool denials.

Caught by ``resolve/wire-name-bounds`` (a 64 KiB wire name comes back whole).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import replaced, run_script
from session_toolset import registry

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "resolve/wire-name-bounds"


def _unbounded(text: str, limit: int) -> str:
    return text  # FAULT: no bound


def patch() -> contextlib.AbstractContextManager[None]:
    return replaced(registry, "bound_utf8", _unbounded)


run_script(patch, __name__)
