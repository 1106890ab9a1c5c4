"""Shared plumbing for the broken miniature adapters.

Each miniature is ``mini_<fault>.py``: ``patch()`` returns a context manager that breaks exactly
one behaviour of the reference implementation and restores it on exit; run as a script it serves
PROTOCOL.md on stdin/stdout with the fault in place (``python tests/miniatures/mini_<fault>.py``).
The helpers below rebuild the two decision procedures several miniatures break (the gate and the
activate validation) with one check switched off, so each fault stays exactly one behaviour.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

from session_toolset import errors
from session_toolset import gate as gate_module
from session_toolset.adapter import main as adapter_main
from session_toolset.catalog import ToolCatalog
from session_toolset.gate import CoreBasis, ExactBasis, ExecutionGate
from session_toolset.grant import SessionActivationGrant
from session_toolset.record import CapabilityRecord
from session_toolset.registry import ResolvedToolCall
from session_toolset.source import SourceTrust
from session_toolset.toolset import SessionToolSet

Patch = Callable[[], contextlib.AbstractContextManager[None]]


@contextlib.contextmanager
def replaced(target: object, name: str, value: object) -> Iterator[None]:
    """``target.name = value`` for the duration of the block (restored afterwards)."""
    with mock.patch.object(target, name, value):
        yield


def serve(patch: Patch) -> int:
    """Run the reference adapter's stdin/stdout loop with ``patch`` applied."""
    with patch():
        return adapter_main()


def run_script(patch: Patch, name: str) -> None:
    """Serve the reference adapter with ``patch`` applied when the miniature's module ``name`` is
    ``__main__`` (run as a script, as ``conform --adapter`` does)."""
    if name == "__main__":
        sys.exit(serve(patch))


def make_authorize(
    *, check_digest: bool = True, check_provenance: bool = True, factory_first: bool = False
) -> Any:
    """SPEC.md 4 ``authorize`` with one behaviour switched (the reference's logic otherwise)."""

    def authorize(
        catalog: ToolCatalog, tool_set: SessionToolSet, resolved: ResolvedToolCall
    ) -> gate_module.AuthorizedToolCall:
        tool_id = resolved.tool_id
        record = catalog.get(tool_id)
        early = record.factory() if factory_first and record is not None else None
        if record is None:
            raise errors.AuthorizationNotCataloged(tool_id.text)
        basis: CoreBasis | ExactBasis
        pin = tool_set.core_pin(tool_id)
        if pin is not None:
            if check_digest and pin.schema_digest != record.schema_digest:
                raise errors.AuthorizationSchemaDigestMismatch(tool_id.text)
            basis, pinned = CoreBasis(), pin.provenance
        else:
            activated = tool_set.activation(tool_id)
            if activated is None:
                raise errors.AuthorizationNotActivated(tool_id.text)
            grant = activated.grant
            if check_digest:
                if grant.schema_digest != record.schema_digest:
                    raise errors.AuthorizationSchemaDigestMismatch(tool_id.text)
                if not grant.covers_call(tool_set.session, tool_id, record.schema_digest):
                    raise errors.AuthorizationNotActivated(tool_id.text)
            basis, pinned = ExactBasis(grant.catalog_generation), activated.provenance
        if check_provenance and pinned != record.provenance:
            raise errors.AuthorizationSourceProvenanceMismatch(tool_id.text)
        if record.trust is SourceTrust.UNTRUSTED:
            raise errors.AuthorizationUntrustedSource(tool_id.text)
        if record.trust is SourceTrust.PROVENANCE_MISMATCH:
            raise errors.AuthorizationSourceProvenanceMismatch(tool_id.text)
        implementation = early if factory_first else record.factory()
        token = gate_module._GATE_TOKEN
        return gate_module.AuthorizedToolCall(token, resolved, implementation, basis)

    return staticmethod(authorize)


def patch_authorize(**switches: bool) -> contextlib.AbstractContextManager[None]:
    return replaced(ExecutionGate, "authorize", make_authorize(**switches))


def make_check_grant(*, check_generation: bool = True, check_snapshot: bool = True) -> Any:
    """SPEC.md 3 ``activate`` validation with one check switched off."""

    def _check_grant(
        self: SessionToolSet, grant: SessionActivationGrant, catalog: ToolCatalog
    ) -> CapabilityRecord:
        if grant.session_id != self.session:
            raise errors.ActivationSessionMismatch()
        tool_id = grant.tool_id
        record = catalog.get(tool_id)
        if record is None:
            raise errors.ActivationUnknownTool(tool_id.text)
        current = catalog.generation
        if check_generation and grant.catalog_generation != current:
            raise errors.ActivationStaleGeneration(grant.catalog_generation.value, current.value)
        if grant.schema_digest != record.schema_digest:
            raise errors.ActivationDigestMismatch(tool_id.text)
        if check_snapshot and self.catalog_generation != current:
            raise errors.ActivationStaleSnapshot(self.catalog_generation.value, current.value)
        if self.activation(tool_id) is not None:
            raise errors.ActivationAlreadyActivated(tool_id.text)
        if self.core_pin(tool_id) is not None:
            raise errors.ActivationAlreadyCore(tool_id.text)
        return record

    return _check_grant


def patch_check_grant(**switches: bool) -> contextlib.AbstractContextManager[None]:
    return replaced(SessionToolSet, "_check_grant", make_check_grant(**switches))
