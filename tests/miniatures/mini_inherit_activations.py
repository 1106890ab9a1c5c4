"""Broken miniature: set_new copies the activations of the latest earlier set of the same session
(a new set inherits another set's activations).

Caught by ``isolation/new-set-inherits-nothing`` (set B shows set A's activations).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import replaced, run_script
from session_toolset.catalog import ToolCatalog
from session_toolset.session_id import SessionId
from session_toolset.tool_id import ToolId
from session_toolset.toolset import SessionToolSet

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "isolation/new-set-inherits-nothing"


@contextlib.contextmanager
def _patched() -> Iterator[None]:
    original = SessionToolSet.new
    original_copy = SessionToolSet.copy
    built: list[SessionToolSet] = []

    def copy(self: SessionToolSet) -> SessionToolSet:
        # A host keeps copies of a set (the retained SharedSessionToolSet holds one, snapshots
        # are others), so "the latest earlier set" includes the copies of a built set.
        duplicate = original_copy(self)
        if any(self is earlier for earlier in built):
            built.append(duplicate)
        return duplicate

    def new(
        cls: type[SessionToolSet],
        session: SessionId,
        core_ids: Iterable[ToolId],
        catalog: ToolCatalog,
    ) -> SessionToolSet:
        fresh = original(session, core_ids, catalog)
        for earlier in reversed(built):
            if earlier.session == session:
                # FAULT: the new set starts with another set's activations.
                fresh._activated.update(earlier._activated)
                break
        built.append(fresh)
        return fresh

    with replaced(SessionToolSet, "new", classmethod(new)), replaced(SessionToolSet, "copy", copy):
        yield


def patch() -> contextlib.AbstractContextManager[None]:
    return _patched()


run_script(patch, __name__)
