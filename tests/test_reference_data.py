"""The packaged reference data is a byte-identical copy of the shared originals.

Every other test reads the packaged copies (``src/session_toolset_harness/...``), so they must
not drift from ``../shared/vectors``.  The shared directory is located through
``$SESSION_TOOLSET_SHARED`` or defaults to ``<repo>/../shared``; on a machine without it the
comparison is skipped (the packaged copies remain what the suite checks against).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "session_toolset_harness"

PAIRS = [
    ("vectors/original-walkthrough-1.json", "vectors/original/original-walkthrough-1.json"),
    ("vectors/original-walkthrough-2.json", "vectors/original/original-walkthrough-2.json"),
    ("vectors/digest.json", "reference/digest.json"),
]

# SPEC.md and PROTOCOL.md are kept in docs/spec/ (outside the package, beside the user docs).
DOC_PAIRS = [("SPEC.md", "docs/spec/SPEC.md"), ("PROTOCOL.md", "docs/spec/PROTOCOL.md")]


def _shared() -> Path:
    """The maintainers' directory of originals, or skip: a checkout alone does not have it."""
    configured = os.environ.get("SESSION_TOOLSET_SHARED")
    shared = Path(configured) if configured else REPO.parent / "shared"
    if not shared.is_dir():
        pytest.skip(
            "compares the packaged copies of the original implementation's recordings (and of "
            "SPEC.md and PROTOCOL.md) with the originals, which are not part of this checkout "
            f"(looked in {shared}); every other test uses the packaged copies. Maintainers: "
            "set SESSION_TOOLSET_SHARED to the directory of originals"
        )
    return shared


@pytest.mark.parametrize(("shared_rel", "packaged_rel"), PAIRS, ids=[p[1] for p in PAIRS])
def test_packaged_copy_is_byte_identical(shared_rel: str, packaged_rel: str) -> None:
    shared = _shared()
    original = shared / shared_rel
    assert original.is_file(), f"{original} is missing from the shared directory"
    packaged = PACKAGE / packaged_rel
    assert packaged.is_file(), f"{packaged} is missing from the package"
    assert packaged.read_bytes() == original.read_bytes(), f"{packaged_rel} differs from shared"


@pytest.mark.parametrize(("shared_rel", "repo_rel"), DOC_PAIRS, ids=[p[1] for p in DOC_PAIRS])
def test_spec_copy_is_byte_identical(shared_rel: str, repo_rel: str) -> None:
    shared = _shared()
    original = shared / shared_rel
    assert original.is_file(), f"{original} is missing from the shared directory"
    copy = REPO / repo_rel
    assert copy.is_file(), f"{copy} is missing"
    assert copy.read_bytes() == original.read_bytes(), (
        f"{repo_rel} differs from {original}: copy the new text and update what it changed"
    )


def test_every_shared_walkthrough_is_packaged() -> None:
    shared = _shared()
    shared_names = sorted(p.name for p in (shared / "vectors").glob("original-walkthrough-*.json"))
    packaged_names = sorted(p.name for p in (PACKAGE / "vectors" / "original").glob("*.json"))
    assert shared_names == packaged_names
