"""``-k PATTERN``: the one selection rule every ``session-toolset`` subcommand uses.

A name is selected when ``PATTERN`` occurs in it as a plain, case-sensitive substring (no regular
expression, no wildcards): ``-k activate`` picks ``activate/basic`` and ``gate.activate_many``
alike.  ``prove`` applies it to obligation names and ``conform`` to vector ids.  It lives in the
model package because both the proofs (which import the model only) and the harness use it.
"""

from __future__ import annotations

__all__ = ["HELP", "matches"]

HELP = "only {what} whose name contains PATTERN (a plain, case-sensitive substring)"


def matches(pattern: str | None, name: str) -> bool:
    """True when ``name`` is selected by ``-k pattern`` (every name when no pattern is given)."""
    return pattern is None or pattern in name
