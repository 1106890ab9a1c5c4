"""Broken miniature: the historical rebuild bug of the original implementation.

An earlier `rebuilt_for_catalog` carried an activation whose record still had the pinned digest
and provenance but whose *source* had become untrusted: it compared digest and provenance, not
source trust (SPEC.md 3: carried only when "... equal to the pins and trusted").  The gate then
denied the carried tool.

Caught by ``rebuild/drops-untrusted-and-source-drift`` (the rebuild reports nothing dropped and
the new set still shows the activation).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import replaced, run_script
from session_toolset.catalog import ToolCatalog
from session_toolset.grant import SessionActivationGrant
from session_toolset.toolset import ActivatedTool, DroppedActivation, DropReason, SessionToolSet

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "rebuild/drops-untrusted-and-source-drift"


def _rebuilt_without_trust(
    self: SessionToolSet, catalog: ToolCatalog, *, progressive: bool
) -> tuple[SessionToolSet, tuple[DroppedActivation, ...]]:
    fresh = SessionToolSet.fresh_for_catalog(self._session, catalog, progressive=progressive)
    dropped: list[DroppedActivation] = []
    for tool_id, activated in self.activated():
        if tool_id in fresh._core:
            continue
        record = catalog.get(tool_id)
        if record is None:
            dropped.append(DroppedActivation(tool_id, DropReason.REMOVED))
        elif (
            record.schema_digest == activated.grant.schema_digest
            and record.provenance == activated.provenance
            # FAULT: no `record.trust is SourceTrust.TRUSTED` conjunct.
        ):
            regrant = SessionActivationGrant(
                self._session, tool_id, catalog.generation, record.schema_digest
            )
            fresh._activated[tool_id] = ActivatedTool(regrant, record.provenance)
        else:
            dropped.append(DroppedActivation(tool_id, DropReason.DRIFTED))
    fresh._schema_generation = self._schema_generation + (1 if dropped else 0)
    return fresh, tuple(dropped)


@contextlib.contextmanager
def _patched() -> Iterator[None]:
    with replaced(SessionToolSet, "rebuilt_for_catalog", _rebuilt_without_trust):
        yield


def patch() -> contextlib.AbstractContextManager[None]:
    return _patched()


run_script(patch, __name__)
