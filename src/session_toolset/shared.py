"""``SharedSessionToolSet``: the one retained set per runtime session, safe across threads.

Activation mutates it; the execution gate and the next round read it.  Every method holds the
lock for exactly one operation on the set, so a reader always sees a state between two whole
operations (never a torn one), and critical sections stay short.  Snapshots are copies: a caller
can read one at leisure without holding anyone up.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from .catalog import ToolCatalog
from .gate import AuthorizedToolCall, ExecutionGate
from .grant import SessionActivationGrant
from .registry import ResolvedToolCall
from .tool_id import ToolId
from .toolset import DroppedActivation, SessionToolSet

__all__ = ["SharedSessionToolSet"]

T = TypeVar("T")


class SharedSessionToolSet:
    """A lock-protected :class:`SessionToolSet`."""

    __slots__ = ("_lock", "_set")

    def __init__(self, tool_set: SessionToolSet) -> None:
        self._lock = threading.Lock()
        self._set = tool_set.copy()

    def snapshot(self) -> SessionToolSet:
        """A copy of the current state."""
        with self._lock:
            return self._set.copy()

    def with_set(self, operation: Callable[[SessionToolSet], T]) -> T:
        """Run ``operation`` on the retained set under the lock (keep it short)."""
        with self._lock:
            return operation(self._set)

    def activate_many(self, grants: Sequence[SessionActivationGrant], catalog: ToolCatalog) -> int:
        with self._lock:
            return self._set.activate_many(grants, catalog)

    def revoke_exact(self, tool_id: ToolId) -> None:
        with self._lock:
            self._set.revoke_exact(tool_id)

    def authorize(self, catalog: ToolCatalog, resolved: ResolvedToolCall) -> AuthorizedToolCall:
        """Gate a call against the retained set (the factory runs under the lock, so the
        decision and the acquisition see the same pins)."""
        with self._lock:
            return ExecutionGate.authorize(catalog, self._set, resolved)

    def rebuild(self, catalog: ToolCatalog, *, progressive: bool) -> tuple[DroppedActivation, ...]:
        """Replace the retained set by its rebuild for ``catalog`` (carry-forward)."""
        with self._lock:
            self._set, dropped = self._set.rebuilt_for_catalog(catalog, progressive=progressive)
            return dropped

    def replace(self, tool_set: SessionToolSet) -> None:
        """Install ``tool_set`` (a copy of it) as the retained set."""
        fresh = tool_set.copy()
        with self._lock:
            self._set = fresh
