"""Broken miniature: activate_many advances schema_generation once per applied grant instead of
once per batch.

Caught by ``batch/atomic-success`` (a three-grant batch moves schema_generation by three).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import replaced, run_script
from session_toolset.catalog import ToolCatalog
from session_toolset.grant import SessionActivationGrant
from session_toolset.toolset import SessionToolSet

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "batch/atomic-success"

_ORIGINAL = SessionToolSet.activate_many


def _activate_many(
    self: SessionToolSet, grants: list[SessionActivationGrant], catalog: ToolCatalog
) -> int:
    applied = _ORIGINAL(self, grants, catalog)
    # FAULT: one advance per grant.
    self._schema_generation += max(applied - 1, 0)
    return applied


def patch() -> contextlib.AbstractContextManager[None]:
    return replaced(SessionToolSet, "activate_many", _activate_many)


run_script(patch, __name__)
