"""Broken miniature: revoke_exact removes a core tool instead of refusing with
ExactRevocationError.CoreTool.

Caught by ``revoke/exact`` (revoking a core tool succeeds).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import replaced, run_script
from session_toolset.tool_id import ToolId
from session_toolset.toolset import SessionToolSet

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "revoke/exact"

_ORIGINAL = SessionToolSet.revoke_exact


def _revoke_exact(self: SessionToolSet, tool_id: ToolId) -> None:
    if self.core_pin(tool_id) is not None:
        del self._core[tool_id]  # FAULT: core tools are revocable
        self._schema_generation += 1
        return
    _ORIGINAL(self, tool_id)


def patch() -> contextlib.AbstractContextManager[None]:
    return replaced(SessionToolSet, "revoke_exact", _revoke_exact)


run_script(patch, __name__)
