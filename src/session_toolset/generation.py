"""``CatalogGeneration``: the catalog's unsigned 64-bit mutation counter (SPEC.md §1.3).

Grants and tool sets are pinned to a generation, so a generation value must never be observed
for two different catalog states.  That is why :meth:`CatalogGeneration.checked_next` fails
closed at 2^64-1 instead of wrapping to 0 (which would reuse values) or saturating (which would
let two different states share the maximum).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .errors import CatalogGenerationOverflow

__all__ = ["GENERATION_MAX", "CatalogGeneration"]

GENERATION_MAX: Final = 2**64 - 1


@dataclass(frozen=True, order=True, slots=True)
class CatalogGeneration:
    """An immutable generation value in ``0 ..= 2^64-1``."""

    value: int = 0

    def __post_init__(self) -> None:
        if type(self.value) is not int:  # bool is an int subclass, and is not a generation
            raise TypeError(f"generation must be int, not {type(self.value).__name__}")
        if not 0 <= self.value <= GENERATION_MAX:
            raise ValueError(f"generation {self.value} is outside 0..2^64-1")

    def checked_next(self) -> CatalogGeneration:
        """The next generation, or :class:`CatalogGenerationOverflow` at the maximum."""
        if self.value == GENERATION_MAX:
            raise CatalogGenerationOverflow()
        return CatalogGeneration(self.value + 1)

    def __int__(self) -> int:
        return self.value

    def __str__(self) -> str:
        return str(self.value)
