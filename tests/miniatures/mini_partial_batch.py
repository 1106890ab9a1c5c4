"""Broken miniature: activate_many applies each grant as soon as it is validated, so a batch
rejected at a later grant leaves the earlier ones activated (partial mutation).

Caught by ``batch/grant-errors`` (the snapshot after the rejected batch shows an activation).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import replaced, run_script
from session_toolset.catalog import ToolCatalog
from session_toolset.errors import (
    ActivationError,
    BulkDuplicateRequest,
    BulkGrant,
    BulkSourceProvenanceMismatch,
    BulkUntrustedSource,
)
from session_toolset.grant import SessionActivationGrant
from session_toolset.source import SourceTrust
from session_toolset.tool_id import ToolId
from session_toolset.toolset import ActivatedTool, SessionToolSet

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "batch/grant-errors"


def _activate_many(
    self: SessionToolSet, grants: list[SessionActivationGrant], catalog: ToolCatalog
) -> int:
    if not grants:
        return 0
    seen: set[ToolId] = set()
    for grant in grants:
        if grant.tool_id in seen:
            raise BulkDuplicateRequest(grant.tool_id.text)
        seen.add(grant.tool_id)
        try:
            record = self._check_grant(grant, catalog)
        except ActivationError as err:
            raise BulkGrant(err) from err
        if record.trust is SourceTrust.UNTRUSTED:
            raise BulkUntrustedSource(grant.tool_id.text)
        if record.trust is SourceTrust.PROVENANCE_MISMATCH:
            raise BulkSourceProvenanceMismatch(grant.tool_id.text)
        # FAULT: applied immediately instead of staged until the whole batch validated.
        self._activated[grant.tool_id] = ActivatedTool(grant, record.provenance)
    self._schema_generation += 1
    return len(grants)


def patch() -> contextlib.AbstractContextManager[None]:
    return replaced(SessionToolSet, "activate_many", _activate_many)


run_script(patch, __name__)
