"""Choosing vectors by tag: ``--tag`` selects (the others are neither run nor reported, like
``-k``), ``--exclude-tag`` sets aside (each is reported skipped with the tag, so the reports
show how much of the corpus was not attempted).  A tag is a non-empty word without whitespace.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence

from session_toolset_harness.conform.vectors import LoadProblem, Vector

__all__ = ["excluded_by", "parse_tag", "select", "unknown_tags", "vectors_only"]


def parse_tag(text: str) -> str:
    """``argparse`` type for ``--tag`` / ``--exclude-tag``."""
    if not text or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError(f"a tag is a non-empty word without spaces: {text!r}")
    return text


Item = Vector | LoadProblem


def select(items: Iterable[Item], tags: Sequence[str]) -> list[Item]:
    """The items ``--tag`` keeps: vectors carrying any of ``tags`` (all when ``tags`` is empty),
    and every file that could not be loaded (its tags are unknown, and it must not go unnoticed)."""
    if not tags:
        return list(items)
    wanted = set(tags)
    return [
        item for item in items if not isinstance(item, Vector) or wanted.intersection(item.tags)
    ]


def vectors_only(items: Iterable[Item]) -> list[Vector]:
    """The loaded vectors among ``items`` (files that could not be loaded left out)."""
    return [item for item in items if isinstance(item, Vector)]


def unknown_tags(items: Iterable[Item], tags: Sequence[str]) -> list[str]:
    """The given tags that no loaded vector carries, in the order given (each once)."""
    carried = {tag for item in items if isinstance(item, Vector) for tag in item.tags}
    return [tag for tag in dict.fromkeys(tags) if tag not in carried]


def excluded_by(vector: Vector, exclude: Sequence[str]) -> str | None:
    """The first ``--exclude-tag`` (in command-line order) that ``vector`` carries, or None."""
    for tag in exclude:
        if tag in vector.tags:
            return tag
    return None
