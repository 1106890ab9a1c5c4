"""ToolCatalog (SPEC.md 2): ordered records, a checked generation; failures change nothing."""

from __future__ import annotations

import pytest

from impl.impl_support import OTHER_SCHEMA, builtin, catalog_of, catalog_state, mcp, rejects
from session_toolset import CatalogGeneration, ToolCatalog, ToolId
from session_toolset.errors import (
    CatalogDuplicateToolId,
    CatalogGenerationExhausted,
    CatalogGenerationOverflow,
)

pytestmark = pytest.mark.spec("2", "6.no-partial-mutation", "6.counters")

MAX = 2**64 - 1


def _at(catalog: ToolCatalog, value: int) -> ToolCatalog:
    catalog.force_generation(CatalogGeneration(value))  # test seam (PROTOCOL.md)
    return catalog


def test_empty_catalog_is_generation_zero() -> None:
    catalog = ToolCatalog()
    assert catalog.generation.value == 0
    assert list(catalog) == []


def test_each_insert_advances_by_one_and_iteration_is_in_toolid_order() -> None:
    catalog = ToolCatalog()
    names = ["zeta", "alpha", "mid", "alpha2", "a"]
    for i, name in enumerate(names, start=1):
        assert catalog.insert(builtin(name)).value == i
        assert catalog.generation.value == i
    catalog.insert(mcp("srv", "x"))
    got = [r.id.text for r in catalog]
    assert got == sorted(got, key=lambda t: t.encode())
    assert got[0] == "builtin:a"
    assert got[-1] == "mcp.srv:x"


def test_insert_duplicate_fails_typed_and_changes_nothing() -> None:
    catalog = catalog_of(builtin("bash"))
    err = rejects(
        CatalogDuplicateToolId,
        lambda: catalog.insert(builtin("bash", OTHER_SCHEMA)),
        catalogs=[catalog],
    )
    assert err.code == "CatalogError.DuplicateToolId"
    assert err.tool == "builtin:bash"
    assert err.payload() == {"tool": "builtin:bash"}
    assert catalog.generation.value == 1


def test_insert_at_max_generation_is_exhausted_and_changes_nothing() -> None:
    catalog = _at(catalog_of(builtin("bash")), MAX)
    err = rejects(
        CatalogGenerationExhausted, lambda: catalog.insert(builtin("read")), catalogs=[catalog]
    )
    assert err.code == "CatalogError.GenerationExhausted"
    assert err.payload() == {}
    assert ToolId.builtin("read") not in catalog
    assert catalog.generation.value == MAX


def test_insert_duplicate_is_reported_before_exhaustion() -> None:
    catalog = _at(catalog_of(builtin("bash")), MAX)
    rejects(CatalogDuplicateToolId, lambda: catalog.insert(builtin("bash")), catalogs=[catalog])


def test_insert_just_below_max_reaches_max() -> None:
    catalog = _at(ToolCatalog(), MAX - 1)
    assert catalog.insert(builtin("bash")).value == MAX


# --- upsert ----------------------------------------------------------------------------------


def test_upsert_replacing_own_id_replaces_in_one_mutation() -> None:
    catalog = catalog_of(builtin("bash"))
    new = builtin("bash", OTHER_SCHEMA)
    assert catalog.upsert(new.id, new).value == 2
    got = catalog.get(new.id)
    assert got is not None
    assert got.schema_digest == new.schema_digest
    assert len(catalog) == 1


def test_upsert_with_none_inserts_a_new_id() -> None:
    catalog = catalog_of(builtin("bash"))
    assert catalog.upsert(None, builtin("read")).value == 2
    assert len(catalog) == 2


def test_upsert_with_none_refuses_an_existing_id() -> None:
    catalog = catalog_of(builtin("bash"))
    err = rejects(
        CatalogDuplicateToolId,
        lambda: catalog.upsert(None, builtin("bash", OTHER_SCHEMA)),
        catalogs=[catalog],
    )
    assert err.tool == "builtin:bash"


def test_upsert_renames_dropping_the_replaced_record() -> None:
    catalog = catalog_of(builtin("bash"), builtin("zz"))
    assert catalog.upsert(ToolId.builtin("bash"), builtin("shell")).value == 3
    assert [r.id.text for r in catalog] == ["builtin:shell", "builtin:zz"]


def test_upsert_onto_another_live_id_is_duplicate() -> None:
    catalog = catalog_of(builtin("bash"), builtin("read"))
    err = rejects(
        CatalogDuplicateToolId,
        lambda: catalog.upsert(ToolId.builtin("bash"), builtin("read", OTHER_SCHEMA)),
        catalogs=[catalog],
    )
    assert err.tool == "builtin:read"


def test_upsert_with_absent_replaced_just_stores() -> None:
    catalog = catalog_of(builtin("bash"))
    assert catalog.upsert(ToolId.builtin("gone"), builtin("read")).value == 2
    assert [r.id.text for r in catalog] == ["builtin:bash", "builtin:read"]


def test_upsert_at_max_is_exhausted_and_keeps_the_replaced_record() -> None:
    catalog = _at(catalog_of(builtin("bash")), MAX)
    rejects(
        CatalogGenerationExhausted,
        lambda: catalog.upsert(ToolId.builtin("bash"), builtin("shell")),
        catalogs=[catalog],
    )
    rejects(
        CatalogGenerationExhausted,
        lambda: catalog.upsert(ToolId.builtin("bash"), builtin("bash", OTHER_SCHEMA)),
        catalogs=[catalog],
    )
    assert ToolId.builtin("bash") in catalog


def test_upsert_duplicate_before_exhaustion() -> None:
    catalog = _at(catalog_of(builtin("bash"), builtin("read")), MAX)
    rejects(
        CatalogDuplicateToolId,
        lambda: catalog.upsert(None, builtin("read")),
        catalogs=[catalog],
    )


# --- remove ----------------------------------------------------------------------------------


def test_remove_absent_is_not_a_mutation() -> None:
    catalog = catalog_of(builtin("bash"))
    before = catalog_state(catalog)
    assert catalog.remove(ToolId.builtin("nope")) is False
    assert catalog_state(catalog) == before


def test_remove_absent_at_max_is_not_an_error() -> None:
    catalog = _at(catalog_of(builtin("bash")), MAX)
    assert catalog.remove(ToolId.builtin("nope")) is False
    assert catalog.generation.value == MAX


def test_remove_present_advances_by_one() -> None:
    catalog = catalog_of(builtin("bash"), builtin("read"))
    assert catalog.remove(ToolId.builtin("bash")) is True
    assert catalog.generation.value == 3
    assert [r.id.text for r in catalog] == ["builtin:read"]


def test_remove_present_at_max_is_exhausted_and_removes_nothing() -> None:
    catalog = _at(catalog_of(builtin("bash")), MAX)
    rejects(
        CatalogGenerationExhausted,
        lambda: catalog.remove(ToolId.builtin("bash")),
        catalogs=[catalog],
    )
    assert ToolId.builtin("bash") in catalog


# --- rebase_past -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("current", "prior", "expected"),
    [(0, 0, 1), (3, 10, 11), (10, 3, 11), (5, 5, 6), (0, MAX - 1, MAX), (MAX - 1, 0, MAX)],
)
def test_rebase_past(current: int, prior: int, expected: int) -> None:
    catalog = _at(catalog_of(builtin("bash")), current)
    assert catalog.rebase_past(CatalogGeneration(prior)).value == expected
    assert catalog.generation.value == expected
    assert len(catalog) == 1


@pytest.mark.parametrize(("current", "prior"), [(0, MAX), (MAX, 0), (MAX, MAX)])
def test_rebase_past_overflow_changes_nothing(current: int, prior: int) -> None:
    catalog = _at(catalog_of(builtin("bash")), current)
    err = rejects(
        CatalogGenerationOverflow,
        lambda: catalog.rebase_past(CatalogGeneration(prior)),
        catalogs=[catalog],
    )
    assert err.code == "CatalogGenerationOverflow"


def test_generation_strictly_increases_and_never_repeats() -> None:
    catalog = ToolCatalog()
    seen = [catalog.generation.value]
    catalog.insert(builtin("a"))
    seen.append(catalog.generation.value)
    catalog.upsert(ToolId.builtin("a"), builtin("a", OTHER_SCHEMA))
    seen.append(catalog.generation.value)
    catalog.remove(ToolId.builtin("missing"))  # not a mutation
    catalog.remove(ToolId.builtin("a"))
    seen.append(catalog.generation.value)
    catalog.rebase_past(CatalogGeneration(1))
    seen.append(catalog.generation.value)
    assert seen == [0, 1, 2, 3, 4]
