"""Every miniature of the conformance suite is also caught by explore.

Each miniature's ``patch()`` breaks one behaviour of the reference implementation in-process;
explore (no shrinking: finding is what is measured here) must report a divergence within three
seeds of 300 examples (an unreachable coverage minimum keeps the rounds going until found).
"""

from __future__ import annotations

import pytest

from session_toolset_harness.explore.run import explore_rounds
from session_toolset_harness.explore.sut import InProcessSut

from .conftest import miniature, miniature_names


@pytest.mark.parametrize("name", miniature_names())
def test_explore_finds_the_miniature(name: str) -> None:
    with miniature(name).patch():
        result = explore_rounds(
            InProcessSut(), examples=300, steps=50, rounds=3, min_hits=10**9, shrink=False
        )
    assert result.failure is not None, f"{name} was not caught ({result.steps} steps)"


def test_there_are_miniatures() -> None:
    assert len(miniature_names()) >= 5
