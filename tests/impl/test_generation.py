"""CatalogGeneration (SPEC.md 1.3): an unsigned 64-bit counter that never wraps or sticks."""

from __future__ import annotations

import dataclasses

import pytest

from session_toolset import GENERATION_MAX, CatalogGeneration
from session_toolset.errors import CatalogGenerationOverflow

pytestmark = pytest.mark.spec("1.3", "6.counters")

MAX = 2**64 - 1


def test_max_is_two_to_the_64_minus_one() -> None:
    assert GENERATION_MAX == MAX


def test_starts_at_zero() -> None:
    assert CatalogGeneration().value == 0


@pytest.mark.parametrize("value", [0, 1, 41, 2**32, MAX - 1])
def test_checked_next_is_plus_one(value: int) -> None:
    gen = CatalogGeneration(value)
    assert gen.checked_next().value == value + 1
    assert gen.value == value  # a value: checked_next does not change it


def test_checked_next_at_max_raises_and_does_not_stick() -> None:
    top = CatalogGeneration(MAX)
    with pytest.raises(CatalogGenerationOverflow) as info:
        top.checked_next()
    assert info.value.code == "CatalogGenerationOverflow"
    assert info.value.payload() == {}
    assert top.value == MAX
    with pytest.raises(CatalogGenerationOverflow):  # never returns MAX (sticking) either
        top.checked_next()


@pytest.mark.parametrize("bad", [-1, MAX + 1, 2**70])
def test_out_of_range_values_are_refused(bad: int) -> None:
    with pytest.raises(ValueError):
        CatalogGeneration(bad)


def test_ordering_and_immutability() -> None:
    assert CatalogGeneration(1) < CatalogGeneration(2)
    assert CatalogGeneration(7) == CatalogGeneration(7)
    gen = CatalogGeneration(3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        gen.value = 4  # type: ignore[misc]
