"""``-k PATTERN``: the one selection rule every ``session-toolset`` subcommand uses.

A name is selected when ``PATTERN`` occurs in it as a plain, case-sensitive substring (no regular
expression, no wildcards): ``-k activate`` picks ``activate/basic`` and ``gate.activate_many``
alike.  ``prove`` applies it to obligation names and ``conform`` to vector ids.  It lives in the
model package because both the proofs (which import the model only) and the harness use it.
"""

from __future__ import annotations

import re

__all__ = ["HELP", "Selector", "matches"]

HELP = "only {what} whose name contains PATTERN (a plain, case-sensitive substring)"


Selector = str | re.Pattern[str] | None
"""A ``-k`` text (substring), or, for callers of the Python API (tests), a compiled regular
expression searched in the name."""


def matches(pattern: Selector, name: str) -> bool:
    """True when ``name`` is selected by ``-k pattern`` (every name when no pattern is given)."""
    if pattern is None:
        return True
    if isinstance(pattern, re.Pattern):
        return pattern.search(name) is not None
    return pattern in name
