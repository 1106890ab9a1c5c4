"""What the corpus must reach: every PROTOCOL.md op, and every reachable error code.

The codes themselves are the runner's list (:mod:`session_toolset_harness.conform.codes`, one
list for the whole harness); ``tests/corpus/test_corpus.py`` checks it independently against the
error classes of the reference implementation, nesting included.  ``UNREACHABLE`` lists nested
codes that exist in the type system but that no request can produce through PROTOCOL.md; the
reasons are spelled out in ``UNREACHABLE.md`` beside this file.
"""

from __future__ import annotations

from typing import Final

from ..conform.codes import KNOWN_CODES as ALL_CODES
from ..conform.codes import REACHABLE_CODES as REACHABLE
from ..conform.codes import UNREACHABLE

__all__ = ["ALL_CODES", "OPS", "REACHABLE", "UNREACHABLE"]

OPS: Final[tuple[str, ...]] = (
    "hello",
    "reset",
    "tool_id_parse",
    "tool_id",
    "session_id_parse",
    "digest",
    "catalog_insert",
    "catalog_upsert",
    "catalog_remove",
    "catalog_rebase_past",
    "catalog_set_generation",
    "catalog_state",
    "factory_calls",
    "issue_grant",
    "forge_grant",
    "set_new",
    "set_default_core",
    "set_progressive_core",
    "activate",
    "activate_many",
    "activate_user",
    "activate_model",
    "revoke",
    "rebuild",
    "route",
    "is_stale",
    "snapshot",
    "resolve",
    "authorize",
    "authorize_wire",
    "carry_forward_enabled",
)
"""Every op of PROTOCOL.md's table."""
