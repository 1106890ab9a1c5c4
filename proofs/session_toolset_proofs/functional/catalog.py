"""SPEC.md §2, the ToolCatalog: insert, upsert, remove, rebase_past, stated declaratively.

§2: "Every successful mutation advances the generation by exactly one (checked); a failed
mutation changes nothing."  §1.3: "`checked_next()` is value+1, or `CatalogGenerationOverflow` at
2^64-1: it never wraps and never sticks."  No catalog operation touches a set or a factory.
"""

from __future__ import annotations

from typing import Any

import z3  # type: ignore[import-untyped]

from .common import CODE, U64_MAX, Expected, R, World, first_of, unchanged


def _record(a: dict[str, Any]) -> Any:
    return R.Rec(a["digest"], a["prov"], a["trust"])


def _advanced(w: World, code: Any, catalog: Any, payload: list[tuple[Any, str, Any]]) -> Expected:
    """On ``ok``: ``catalog`` stored and the generation one higher; otherwise nothing changed.
    Every result reports the tool it names (if any) and the generation after it."""
    ok = code == CODE["ok"]
    gen = z3.If(ok, w.gen + 1, w.gen)
    post = unchanged(w, catalog=z3.If(ok, catalog, w.catalog), gen=gen)
    return Expected(code, post, [*payload, (z3.BoolVal(True), "generation", gen)])


def insert(w: World, a: dict[str, Any]) -> Expected:
    """§2: "`insert(record)`: id present → `CatalogError.DuplicateToolId(id)`; no next generation
    → `CatalogError.GenerationExhausted`." """
    t = a["tool"]
    code = first_of(
        [
            (R.is_Rec(z3.Select(w.catalog, t)), "CatalogError.DuplicateToolId"),
            (w.gen == U64_MAX, "CatalogError.GenerationExhausted"),
        ]
    )
    stored = z3.Store(w.catalog, t, _record(a))
    return _advanced(w, code, stored, [(z3.BoolVal(True), "tool", t)])


def upsert(w: World, a: dict[str, Any]) -> Expected:
    """§2: "`upsert(replaced, record)`: one mutation that replaces a record. If `replaced` is not
    the record's own id and the record's id is already present → `DuplicateToolId`. Otherwise,
    with a next generation available, drop `replaced` (when it differs from the new id), store
    the record, advance."  A null ``replaced`` is "not the record's own id" and drops nothing."""
    t = a["tool"]
    differs = z3.And(a["has_replaced"], a["replaced"] != t)
    not_own = z3.Or(z3.Not(a["has_replaced"]), a["replaced"] != t)
    code = first_of(
        [
            (z3.And(not_own, R.is_Rec(z3.Select(w.catalog, t))), "CatalogError.DuplicateToolId"),
            (w.gen == U64_MAX, "CatalogError.GenerationExhausted"),
        ]
    )
    dropped = z3.If(differs, z3.Store(w.catalog, a["replaced"], R.NoRec), w.catalog)
    return _advanced(w, code, z3.Store(dropped, t, _record(a)), [(z3.BoolVal(True), "tool", t)])


def remove(w: World, a: dict[str, Any]) -> Expected:
    """§2: "`remove(id)`: absent → no change (not an error); present → drop it and advance (no
    next generation → `CatalogError.GenerationExhausted`, nothing removed)."  The result says
    whether a record was removed."""
    t = a["tool"]
    present = R.is_Rec(z3.Select(w.catalog, t))
    code = first_of([(z3.And(present, w.gen == U64_MAX), "CatalogError.GenerationExhausted")])
    ok = code == CODE["ok"]
    mutate = z3.And(ok, present)
    gen = z3.If(mutate, w.gen + 1, w.gen)
    catalog = z3.If(mutate, z3.Store(w.catalog, t, R.NoRec), w.catalog)
    payload = [
        (z3.BoolVal(True), "tool", t),
        (z3.BoolVal(True), "removed", present),
        (z3.BoolVal(True), "generation", gen),
    ]
    return Expected(code, unchanged(w, catalog=catalog, gen=gen), payload)


def rebase_past(w: World, a: dict[str, Any]) -> Expected:
    """§2: "`rebase_past(prior)`: generation becomes max(current, prior)+1, or
    `CatalogGenerationOverflow` (unchanged)"; the records stay as they are."""
    top = z3.If(w.gen >= a["prior"], w.gen, a["prior"])
    code = first_of([(top == U64_MAX, "CatalogGenerationOverflow")])
    gen = z3.If(code == CODE["ok"], top + 1, w.gen)
    return Expected(code, unchanged(w, gen=gen), [(z3.BoolVal(True), "generation", gen)])
