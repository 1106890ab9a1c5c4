"""The reference data recorded from the original implementation, as the tests load it.

The package ships byte-for-byte copies of the project's shared reference data
(``session_toolset_harness/reference/digest.json`` and
``session_toolset_harness/vectors/original/*.json``), so the tests run on a newcomer's machine
that has only this repository.  ``tests/test_reference_data.py`` fails if the copies ever drift
from the shared originals (when those are present).

Paths are given as they are in the shared directory (``vectors/digest.json``,
``vectors/original-walkthrough-1.json``) and mapped to the packaged copies here.  A missing copy
is a test *failure*, never a skip: a silently skipped conformance check would report success for
an unchecked implementation.
"""

from __future__ import annotations

import json
import os
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import pytest

SHARED_ENV_VAR = "SESSION_TOOLSET_SHARED"
"""Environment variable that overrides the location of the shared data directory."""

REPO_ROOT = Path(__file__).resolve().parents[1]

_PACKAGED = {
    "vectors/digest.json": ("reference", "digest.json"),
    "vectors/original-walkthrough-1.json": ("vectors", "original", "original-walkthrough-1.json"),
    "vectors/original-walkthrough-2.json": ("vectors", "original", "original-walkthrough-2.json"),
}


def shared_dir_candidate() -> Path:
    """Where the project's shared directory should be (it may be absent on a fresh machine)."""
    configured = os.environ.get(SHARED_ENV_VAR)
    if configured:
        return Path(configured)
    return REPO_ROOT.parent / "shared"


def packaged(relative: str) -> Traversable:
    """The packaged copy of a shared reference file."""
    parts = _PACKAGED.get(relative)
    if parts is None:
        raise KeyError(f"no packaged copy of {relative}")
    node = files("session_toolset_harness")
    for part in parts:
        node = node / part
    return node


def load_shared_json(relative: str) -> Any:
    """Parse a packaged reference file; fails the calling test if it is missing."""
    node = packaged(relative)
    if not node.is_file():
        pytest.fail(f"packaged reference file not found: {relative}", pytrace=False)
    return json.loads(node.read_text(encoding="utf-8"))


def try_load_shared_json(relative: str) -> Any | None:
    """Like :func:`load_shared_json` but returns ``None`` when absent, for use at collection time.

    Parametrizing over vector rows happens while pytest collects, where failing would abort the
    whole session.  Callers parametrize with a placeholder instead and call
    :func:`load_shared_json` inside the test, which then fails with the clear message.
    """
    node = packaged(relative)
    if not node.is_file():
        return None
    return json.loads(node.read_text(encoding="utf-8"))
