"""Integer command-line values, checked the same way by every subcommand (``--jobs``, ``--seed``,
``--max-failures``, ``--max-hidden``, ...): one message per kind of mistake, whatever the flag.

Standard library only, so `trace` and `conform` can use it without loading anything else.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["integer"]


def integer(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` accepting an integer in ``minimum..maximum`` (no upper bound when
    ``maximum`` is None); anything else is an `argparse.ArgumentTypeError` naming the range."""
    if maximum is not None:
        wanted = f"must be {minimum}..{maximum}"
    elif minimum == 0:
        wanted = "must be 0 or more"
    else:
        wanted = f"must be at least {minimum}"

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"{wanted}: {text!r}")
        return value

    return convert
