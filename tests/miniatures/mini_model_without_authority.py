"""Broken miniature: model-initiated activation ignores the host's authority value and activates
without confirmation.

Caught by ``host/activate-model`` (an unauthorized request activates instead of
ConfirmationRequired).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import replaced, run_script
from session_toolset import host
from session_toolset.adapter import ops
from session_toolset.catalog import ToolCatalog
from session_toolset.tool_id import ToolId
from session_toolset.toolset import SessionToolSet

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "host/activate-model"


def _activate_model_initiated(
    authority: host.ActivationAuthority,
    tool_set: SessionToolSet,
    catalog: ToolCatalog,
    tool_ids: Sequence[ToolId],
) -> int:
    # FAULT: whatever the authority, treat the request as confirmed.
    confirmed = host.ActivationAuthority.MODEL_CONFIRMED
    return host.activate_model_initiated(confirmed, tool_set, catalog, tool_ids)


def patch() -> contextlib.AbstractContextManager[None]:
    return replaced(ops, "activate_model_initiated", _activate_model_initiated)


run_script(patch, __name__)
