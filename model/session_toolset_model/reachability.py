"""The reviewed table of (operation, outcome) pairs no state can produce; every other pair of
the operation table (`ops.OPS`) is expected reachable from the initial state.

`prove`'s ``reach.*`` rows compare what the run finds with this table, so a run cannot
certify itself: a pair that becomes reachable (or unreachable) after a model change fails its
row until the table is changed and reviewed.  The outcomes here are the nested host codes the
conformance harness lists as unreachable through PROTOCOL.md (``conform/codes.py``), plus one
that is unreachable through one entry point only; ``tests/proofs`` keeps the two lists equal.
"""

from __future__ import annotations

from typing import Final

_ISSUED_FIRST = (
    "the host issues the grant first, at the set's session, current generation and digest"
)
_TRUST_FIRST = "issuance checks source trust before the batch does"
_UNKNOWN_FIRST = "issuance rejects an uncataloged tool first"

_HOST_UNREACHABLE: Final = {
    "HostActivationError.Bulk.Grant.SessionMismatch": _ISSUED_FIRST,
    "HostActivationError.Bulk.Grant.UnknownTool": _UNKNOWN_FIRST,
    "HostActivationError.Bulk.Grant.StaleGeneration": _ISSUED_FIRST,
    "HostActivationError.Bulk.Grant.DigestMismatch": _ISSUED_FIRST,
    "HostActivationError.Bulk.UntrustedSource": _TRUST_FIRST,
    "HostActivationError.Bulk.SourceProvenanceMismatch": _TRUST_FIRST,
}

UNREACHABLE: Final[dict[tuple[str, str], str]] = {
    **{("activate_user", code): why for code, why in _HOST_UNREACHABLE.items()},
    ("activate_user", "HostActivationError.Bulk.DuplicateRequest"): (
        "a user activation is a batch of exactly one grant"
    ),
    **{("activate_model", code): why for code, why in _HOST_UNREACHABLE.items()},
}
"""(operation, outcome) -> why no state satisfying the invariant can produce it."""


def expected(op: str, outcome: str) -> str:
    """``reachable`` or ``unreachable``, from the table (never from a run)."""
    return "unreachable" if (op, outcome) in UNREACHABLE else "reachable"
