"""What every subcommand's command line shares: usage errors and integer values.

A `Parser` turns argparse's complaint into a `UsageError` ending in ``(see --help)``; the command
prints it as its one line ``session-toolset CMD: error: ...`` and exits 2.  `integer` checks
``--jobs``, ``--seed``, ``--max-failures``, ... the same way whatever the flag.  Standard library
only, so `trace` and `conform` can use it without loading anything else.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NoReturn

__all__ = ["Parser", "UsageError", "integer"]


class UsageError(Exception):
    """Anything that makes the requested run impossible: reported in one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose refusals raise `UsageError` instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see --help)")


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
