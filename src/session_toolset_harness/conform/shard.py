"""``--shard K/N``: a deterministic split of a run over N machines (or CI matrix jobs).

``conform`` sorts the selected vectors by id (then path) and keeps every N-th one starting at the
K-th, so shards are disjoint, together cover every vector, and differ in size by at most one;
``explore`` gives shard K the K-th of N seed streams (`explore.parallel`).  The same ``K/N``
parser serves both commands.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


class ShardError(argparse.ArgumentTypeError, ValueError):
    """``--shard`` is not ``K/N`` with 1 <= K <= N (`parse` is an argparse ``type``)."""


def parse(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``."""
    head, sep, tail = text.partition("/")
    if not sep or not head.strip().isdigit() or not tail.strip().isdigit():
        raise ShardError(f"expected K/N (for instance 2/4), got {text!r}")
    k, n = int(head), int(tail)
    if n < 1 or not 1 <= k <= n:
        raise ShardError(f"{text!r}: K must be between 1 and N (and N at least 1)")
    return k, n


def select(
    items: Sequence[T], shard: tuple[int, int], key: Callable[[T], tuple[str, ...]]
) -> list[T]:
    """Shard ``K/N`` of ``items``: sorted by ``key``, every N-th from the K-th (1-based)."""
    k, n = shard
    ordered = sorted(items, key=key)
    return [item for index, item in enumerate(ordered) if index % n == k - 1]
