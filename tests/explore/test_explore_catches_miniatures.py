"""Every miniature of the conformance suite is also caught by explore.

Each miniature's ``patch()`` breaks one behaviour of the reference implementation in-process;
explore (no shrinking: finding is what is measured here) must report a divergence within three
seeds of 300 examples (the `ci` budget; ``find_rate.py`` measures how many seeds of ten find it).
"""

from __future__ import annotations

import pytest

from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.sut import InProcessSut

from .conftest import miniature, miniature_names


@pytest.mark.parametrize("name", miniature_names())
def test_explore_finds_the_miniature(name: str) -> None:
    steps = 0
    with miniature(name).patch():
        for seed in range(3):
            result = explore(InProcessSut(), examples=300, steps=50, seed_value=seed, shrink=False)
            steps += result.steps
            if result.failure is not None:
                return
    raise AssertionError(f"{name} was not caught in 3 seeds ({steps} steps)")


def test_there_are_miniatures() -> None:
    assert len(miniature_names()) >= 5
