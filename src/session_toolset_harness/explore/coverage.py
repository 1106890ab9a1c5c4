"""Which (operation, outcome) pairs a run must hit, and the table of what it hit.

REQUIRED is the model's outcome table (`session_toolset_model.ops.OPS`, default profile) minus
the pairs no request sequence can produce, each excluded for a reason that follows from SPEC.md
(see `UNREACHABLE`), plus the protocol-only ops and the boundary-parse errors of the hostile
pools.  `docs/explore.md` summarises the split.  The model's bounded enumerator
(`session_toolset_model.enumerate`, through `corpus.coverage`) cross-checks the split: the
exhaustive small-scope search reaches every required model pair and none of the excluded ones.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Final

from session_toolset_model.ops import OPS

_ISSUED = "an issued grant is for the set's own session, at the current generation and digest"
UNREACHABLE: Final[dict[tuple[str, str], str]] = {
    **{
        (op, f"HostActivationError.Bulk.Grant.{check}"): _ISSUED
        for op in ("activate_user", "activate_model")
        for check in ("SessionMismatch", "StaleGeneration", "DigestMismatch")
    },
    **{
        (op, "HostActivationError.Bulk.Grant.UnknownTool"): "issuance fails UnknownTool first"
        for op in ("activate_user", "activate_model")
    },
    **{
        (op, f"HostActivationError.Bulk.{check}"): "issuance checks source trust first"
        for op in ("activate_user", "activate_model")
        for check in ("UntrustedSource", "SourceProvenanceMismatch")
    },
    ("activate_user", "HostActivationError.Bulk.DuplicateRequest"): "a one-grant batch",
}
"""Pairs the model lists for an op that no state and arguments can produce, with why."""

PROTOCOL_ONLY: Final[dict[str, tuple[str, ...]]] = {
    "forge_grant": ("ok",),
    "catalog_set_generation": ("ok",),
    "authorize_wire": ("ToolAuthorizationError.UnknownTool", "ok"),
    "hello": ("ok",),
    "tool_id_parse": ("ok",),
    "tool_id": ("ok",),
    "session_id_parse": ("ok",),
    "digest": ("ok", "Protocol"),
    "carry_forward_enabled": ("ok",),
    "resolve": ("ok", "ToolAuthorizationError.UnknownTool"),
    "factory_calls": ("ok",),
    "send_line": ("ok", "Protocol"),
}
"""Ops and outcomes outside the model's table that a run must show (the identity ops, digests,
resolution, raw lines); their `Protocol` rejections are drawn by the faulty-field rule and shown
in the table, not required per op."""

IDENTITY_CODES: Final = (
    "ToolIdError.Empty",
    "ToolIdError.Oversized",
    "ToolIdError.MissingNamespace",
    "ToolIdError.InvalidNamespace",
    "ToolIdError.InvalidName",
    "SessionIdError.Empty",
    "SessionIdError.Oversized",
    "SessionIdError.ControlCharacters",
    "ActivationGrantError.EmptySessionId",
    "ActivationGrantError.OversizedSessionId",
    "ActivationGrantError.ControlCharacterSessionId",
)
"""Boundary-parse errors: each must be hit on some op (parsing is shared by every field)."""


def required_pairs() -> list[tuple[str, str]]:
    pairs = [
        (name, code)
        for name, op in OPS.items()
        for code in op.outcomes
        if (name, code) not in UNREACHABLE
    ]
    pairs += [(op, code) for op, codes in PROTOCOL_ONLY.items() for code in codes]
    return sorted(pairs)


def missing(hits: Counter[tuple[str, str]], minimum: int) -> list[tuple[tuple[str, str], int]]:
    """Required pairs hit fewer than ``minimum`` times, and identity codes (on any op) likewise."""
    short = [(pair, hits[pair]) for pair in required_pairs() if hits[pair] < minimum]
    by_code: Counter[str] = Counter()
    for (_op, code), n in hits.items():
        by_code[code] += n
    short += [(("*", code), by_code[code]) for code in IDENTITY_CODES if by_code[code] < minimum]
    return short


def table(hits: Counter[tuple[str, str]], extra: Iterable[tuple[str, str]] = ()) -> str:
    """Hits per (operation, outcome): every required pair (zeros shown) and everything seen."""
    rows = sorted(set(required_pairs()) | set(hits) | set(extra))
    width = max((len(op) for op, _ in rows), default=10)
    lines = [f"{'operation':<{width}}  {'hits':>7}  outcome"]
    for op, code in rows:
        lines.append(f"{op:<{width}}  {hits[(op, code)]:>7}  {code}")
    return "\n".join(lines)
