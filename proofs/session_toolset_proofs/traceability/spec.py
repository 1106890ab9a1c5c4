"""SPEC.md's structure and vocabulary: its sections and section 6 invariants, its named
operations, and the SPEC.md section of every PROTOCOL.md op."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import import_module

from session_toolset_model.ops import OPS

OTHER_OPS = {
    "tool_id_parse": "1.1",
    "tool_id": "1.1",
    "session_id_parse": "1.2",
    "catalog_set_generation": "1.3",
    "digest": "1.4",
    "forge_grant": "1.5",
    "carry_forward_enabled": "3",
    "resolve": "4",
    "authorize_wire": "4",
}
"""PROTOCOL.md ops that are not model transitions, by the SPEC.md section they expose."""

OBSERVATIONS = frozenset({"hello", "reset", "snapshot", "catalog_state", "factory_calls"})
"""Ops that only observe: a vector does not *target* a section through them."""

MODEL_ONLY = "model: inductive invariant"

SPEC_OPERATIONS: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("1.1", "ToolId.parse", (), ("tool_id_parse",)),
    ("1.1", "builtin(name)", (), ("tool_id",)),
    ("1.2", "SessionId.parse", (), ("session_id_parse",)),
    ("1.3", "checked_next()", (), ("catalog_set_generation",)),
    ("1.4", "SchemaDigest", (), ("digest",)),
    ("1.5", "covers(s, t, g, d)", (), ("forge_grant",)),
    ("2", "insert(record)", ("catalog_insert",), ("catalog_insert",)),
    ("2", "upsert(replaced, record)", ("catalog_upsert",), ("catalog_upsert",)),
    ("2", "remove(id)", ("catalog_remove",), ("catalog_remove",)),
    ("2", "rebase_past(prior)", ("catalog_rebase_past",), ("catalog_rebase_past",)),
    ("3", "new(session, core_ids, catalog)", ("set_new",), ("set_new",)),
    (
        "3",
        "default_core_for_catalog(session, catalog)",
        ("set_default_core",),
        ("set_default_core",),
    ),
    (
        "3",
        "progressive_core_for_catalog(session, catalog)",
        ("set_progressive_core",),
        ("set_progressive_core",),
    ),
    ("3", "is_stale(catalog)", ("is_stale",), ("is_stale",)),
    ("3", "activate(grant, catalog)", ("activate",), ("activate",)),
    ("3", "activate_many(grants, catalog)", ("activate_many",), ("activate_many",)),
    ("3", "revoke_exact(id)", ("revoke",), ("revoke",)),
    ("3", "rebuilt_for_catalog(catalog, progressive)", ("rebuild",), ("rebuild",)),
    ("3", "carry_forward_enabled()", (), ("carry_forward_enabled",)),
    ("4", "ExecutionGate.authorize(catalog, set, resolved)", ("authorize",), ("authorize",)),
    ("4", "resolve(registry, wire_name)", (), ("resolve",)),
    ("4", "authorize_wire_call", (), ("authorize_wire",)),
    ("5", "issue_exact_grant(catalog, session, id)", ("issue_grant",), ("issue_grant",)),
    ("5", "activate_exact_for_user(set, catalog, id)", ("activate_user",), ("activate_user",)),
    (
        "5",
        "activate_model_initiated(authority, set, catalog, ids)",
        ("activate_model",),
        ("activate_model",),
    ),
    ("5", "route_session_set(retained, catalog, fallback_session)", ("route",), ("route",)),
    ("5", "SharedSessionToolSet", (), ()),
)
"""SPEC.md's named operations (as written there, in backticks), the model transitions that
state them and the PROTOCOL.md ops that expose them.  This is vocabulary, not a claim of who
guards what: the guards are derived (`build`).  ``tests/proofs/test_traceability.py`` checks
that every name is in its section, every model op is listed once and every PROTOCOL.md op is
listed or an observation."""


@dataclass(frozen=True)
class Section:
    key: str
    title: str


def spec_sections(spec_text: str) -> list[Section]:
    """Headings ``## N.`` / ``### N.M`` and the section 6 bullets ``- **Name**:``."""
    out = []
    in_six = False
    for line in spec_text.splitlines():
        m = re.match(r"^(#{2,3}) (\d+(?:\.\d+)?)\.? (.+)$", line)
        if m:
            out.append(Section(m.group(2), m.group(3).strip()))
            in_six = m.group(2) == "6"
            continue
        b = re.match(r"^- \*\*(.+?)\*\*:", line)
        if in_six and b:
            out.append(Section(f"6.{slug(b.group(1))}", b.group(1)))
    return out


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def op_section(op: str) -> str | None:
    """The SPEC.md section of a PROTOCOL.md / model op (None for observations)."""
    if op in OPS:
        doc = import_module(OPS[op].fn.__module__).__doc__ or ""
        m = re.match(r"SPEC\.md section (\d+(?:\.\d+)?)", doc)
        return m.group(1) if m else None
    return OTHER_OPS.get(op)
