"""The broken miniature adapters' transcripts fail ``trace``: each miniature's fault shows in
the replies it gave over the corpus (recorded in-process with the fault patched in)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from .support import check, corpus, transcripts

MINIATURES = sorted(
    p.stem for p in (Path(__file__).resolve().parents[1] / "miniatures").glob("mini_*.py")
)


def test_the_miniatures_are_found() -> None:
    assert len(MINIATURES) >= 10


@pytest.mark.parametrize("name", MINIATURES)
def test_a_miniature_transcript_fails_complete_mode(name: str) -> None:
    module = importlib.import_module(f"miniatures.{name}")
    with module.patch():
        result = check(transcripts())  # stops at the first violation, and so does recording
    assert result.violations, f"{name}: its transcript of the corpus passed"
    # and the vector the miniature names as catching it fails on its own too
    (vector,) = [v for v in corpus() if v.id == module.CAUGHT_BY]
    with module.patch():
        alone = check(transcripts([vector]))
    assert [v.stream for v in alone.violations] == [module.CAUGHT_BY]
