"""Broken miniature: CatalogGeneration.checked_next wraps from 2^64-1 to 0 instead of failing
closed.

Caught by ``catalog/generation-exhausted`` (an insert at 2^64-1 succeeds at generation 0).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import replaced, run_script
from session_toolset.generation import GENERATION_MAX, CatalogGeneration

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "catalog/generation-exhausted"


def _checked_next(self: CatalogGeneration) -> CatalogGeneration:
    return CatalogGeneration((self.value + 1) & GENERATION_MAX)  # FAULT: wraps


def patch() -> contextlib.AbstractContextManager[None]:
    return replaced(CatalogGeneration, "checked_next", _checked_next)


run_script(patch, __name__)
