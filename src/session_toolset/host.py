"""Host entry points: how a runtime issues grants and activates tools (SPEC.md §5).

Authority is a value the *host* passes in (:class:`ActivationAuthority`), never something read
from model-authored JSON: a model asking for tools gets nothing until the host confirms.
Every entry point validates completely before applying, through
:meth:`SessionToolSet.activate_many`, so rejections change nothing.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable, Mapping, Sequence

from .catalog import ToolCatalog
from .errors import (
    BulkActivationError,
    GrantIssuanceError,
    HostBulk,
    HostConfirmationRequired,
    HostIssuance,
    IssuanceSourceProvenanceMismatch,
    IssuanceUnknownTool,
    IssuanceUntrustedSource,
)
from .grant import SessionActivationGrant
from .session_id import SessionId
from .shared import SharedSessionToolSet
from .source import SourceTrust
from .tool_id import ToolId
from .toolset import DroppedActivation, SessionToolSet

__all__ = [
    "CARRY_FORWARD_ENV",
    "ActivationAuthority",
    "activate_exact_for_user",
    "activate_model_initiated",
    "carry_forward_enabled",
    "issue_exact_grant",
    "rebuild_session_set",
    "route_session_set",
]

CARRY_FORWARD_ENV = "SYNAPS_TOOLSET_CARRY_FORWARD"


class ActivationAuthority(enum.Enum):
    """What the host says about a model-initiated activation request."""

    UNAUTHORIZED = "unauthorized"
    MODEL_CONFIRMED = "model_confirmed"


def issue_exact_grant(
    catalog: ToolCatalog, session: SessionId, tool_id: ToolId
) -> SessionActivationGrant:
    """A grant for ``tool_id`` at the current generation and digest.  Pure: no factory call,
    no set mutation.  Refuses uncataloged and untrusted tools."""
    record = catalog.get(tool_id)
    if record is None:
        raise IssuanceUnknownTool(tool_id.text)
    trust = record.trust
    if trust is SourceTrust.UNTRUSTED:
        raise IssuanceUntrustedSource(tool_id.text)
    if trust is SourceTrust.PROVENANCE_MISMATCH:
        raise IssuanceSourceProvenanceMismatch(tool_id.text)
    return SessionActivationGrant(session, tool_id, catalog.generation, record.schema_digest)


def _activate(
    tool_set: SessionToolSet, catalog: ToolCatalog, grants: Sequence[SessionActivationGrant]
) -> int:
    try:
        return tool_set.activate_many(grants, catalog)
    except BulkActivationError as err:
        raise HostBulk(err) from err


def activate_exact_for_user(tool_set: SessionToolSet, catalog: ToolCatalog, tool_id: ToolId) -> int:
    """An explicit user request: issue a grant for the set's session and activate it."""
    try:
        grant = issue_exact_grant(catalog, tool_set.session, tool_id)
    except GrantIssuanceError as err:
        raise HostIssuance(err) from err
    return _activate(tool_set, catalog, [grant])


def activate_model_initiated(
    authority: ActivationAuthority,
    tool_set: SessionToolSet,
    catalog: ToolCatalog,
    tool_ids: Sequence[ToolId],
) -> int:
    """A model asked for tools: nothing happens without host confirmation; with it, every
    grant is issued first (in request order) and then the batch is applied atomically."""
    if authority is not ActivationAuthority.MODEL_CONFIRMED:
        raise HostConfirmationRequired()
    grants: list[SessionActivationGrant] = []
    for tool_id in tool_ids:
        try:
            grants.append(issue_exact_grant(catalog, tool_set.session, tool_id))
        except GrantIssuanceError as err:
            raise HostIssuance(err) from err
    return _activate(tool_set, catalog, grants)


def route_session_set(
    retained: SharedSessionToolSet | SessionToolSet | None,
    catalog: ToolCatalog,
    fallback_session: Callable[[], SessionId],
) -> SessionToolSet:
    """The set the next round uses: a copy of the retained set as is (stale or not — staleness
    is represented, never absorbed), or a fresh default set when nothing is retained."""
    if isinstance(retained, SharedSessionToolSet):
        return retained.snapshot()
    if retained is not None:
        return retained.copy()
    return SessionToolSet.default_core_for_catalog(fallback_session(), catalog)


def carry_forward_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """False only when ``SYNAPS_TOOLSET_CARRY_FORWARD`` is exactly ``"0"``."""
    env = os.environ if environ is None else environ
    return env.get(CARRY_FORWARD_ENV) != "0"


def rebuild_session_set(
    tool_set: SessionToolSet,
    catalog: ToolCatalog,
    *,
    progressive: bool,
    carry_forward: bool | None = None,
) -> tuple[SessionToolSet, tuple[DroppedActivation, ...]]:
    """Rebuild ``tool_set`` for ``catalog`` as the runtime does between rounds.

    With carry-forward (the default, see :func:`carry_forward_enabled`) matching activations
    are carried; without it the result is exactly a fresh default/progressive set for the same
    session — zero inheritance, ``schema_generation`` 0, nothing reported as dropped.
    """
    if carry_forward is None:
        carry_forward = carry_forward_enabled()
    if carry_forward:
        return tool_set.rebuilt_for_catalog(catalog, progressive=progressive)
    fresh = SessionToolSet.fresh_for_catalog(tool_set.session, catalog, progressive=progressive)
    return fresh, ()
