"""The functional specification: SPEC.md §2-§5, every transition's exact outcome, payload and
post-world, written declaratively (one module per SPEC.md area: `catalog`, `sets`, `gate`,
`host`, on the vocabulary of `common`), and the `functional.<op>` obligations (`obligation`)
that show the model's transition equal to it.

The declarative modules import nothing from the model but the Z3 interpretation's sorts and
constants (`tests/proofs/test_functional.py` checks their imports).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import catalog, gate, host, sets
from .common import Expected, World

Spec = Callable[[World, dict[str, Any]], Expected]

SPECS: dict[str, Spec] = {
    "catalog_insert": catalog.insert,
    "catalog_upsert": catalog.upsert,
    "catalog_remove": catalog.remove,
    "catalog_rebase_past": catalog.rebase_past,
    "set_new": sets.new,
    "set_default_core": sets.default_core_set,
    "set_progressive_core": sets.progressive_core_set,
    "is_stale": sets.is_stale,
    "activate": sets.activate,
    "activate_many": sets.activate_many,
    "revoke": sets.revoke,
    "rebuild": sets.rebuild,
    "authorize": gate.authorize,
    "issue_grant": host.issue_grant,
    "activate_user": host.activate_user,
    "activate_model": host.activate_model,
    "route": host.route,
}
"""One declarative clause per transition of the model's operation table."""

SPLITS: dict[str, tuple[str, ...]] = {
    "activate_many": ("rejected", "applied"),
    "activate_model": ("refused", "issuance_rejected", "bulk_rejected", "applied"),
}
"""Transitions proved equal case by case (`Expected.cases`): one obligation per case."""

DECLARATIVE = ("common", "catalog", "sets", "gate", "host")
"""The modules that state SPEC.md (the import rule applies to them)."""
