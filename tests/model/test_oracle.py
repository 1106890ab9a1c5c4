"""Oracle unit tests; expectations derived from SPEC.md text (and the recorded walkthrough)."""

from __future__ import annotations

import pytest
from session_toolset_model.concrete import Grant
from session_toolset_model.oracle import Oracle
from session_toolset_model.values import Provenance, Source

pytestmark = pytest.mark.spec("2", "3", "4", "5")

BR = Provenance("builtin_runtime")
MCP_A = Provenance("mcp_config", "srv-a")


def builtin(name: str) -> Source:
    return Source("builtin", "", name)


def world() -> Oracle:
    o = Oracle()
    assert o.catalog_insert("builtin:bash", "d-bash", builtin("bash"), BR) == (
        "ok",
        {"id": "builtin:bash", "generation": 1},
    )
    o.catalog_insert("mcp.srv-a:t0", "d0", Source("mcp", "srv-a", "t0"), MCP_A)
    o.catalog_insert(
        "mcp.srv-a:forged",
        "d1",
        Source("mcp", "srv-a", "forged"),
        Provenance("mcp_config", "srv-z"),
    )
    o.catalog_insert("unknown:x", "d2", Source("unknown", "", "x"), Provenance("unverified"))
    return o


def test_catalog_duplicate_and_generation_exhausted_change_nothing() -> None:
    o = world()
    before = o.observe()
    assert o.catalog_insert("builtin:bash", "d9", builtin("bash"), BR) == (
        "CatalogError.DuplicateToolId",
        {"tool": "builtin:bash"},
    )
    assert o.observe() == before
    o.catalog_set_generation(2**64 - 1)
    before = o.observe()
    assert o.catalog_insert("builtin:y", "d", builtin("y"), BR)[0] == (
        "CatalogError.GenerationExhausted"
    )
    assert o.catalog_remove("builtin:bash")[0] == "CatalogError.GenerationExhausted"
    assert o.catalog_rebase_past(5)[0] == "CatalogGenerationOverflow"
    assert o.catalog_remove("builtin:absent") == ("ok", {"removed": False, "generation": 2**64 - 1})
    assert o.observe() == before


def test_rebase_past_and_upsert() -> None:
    o = world()
    assert o.catalog_rebase_past(10) == ("ok", {"generation": 11})
    assert o.catalog_rebase_past(3) == ("ok", {"generation": 12})
    assert o.catalog_upsert(None, "builtin:bash", "d", builtin("bash"), BR)[0] == (
        "CatalogError.DuplicateToolId"
    )
    assert o.catalog_upsert("builtin:bash", "builtin:sh", "d", builtin("sh"), BR) == (
        "ok",
        {"id": "builtin:sh", "generation": 13},
    )
    assert "builtin:bash" not in o.observe()["records"]


def test_activation_check_order() -> None:
    o = world()
    o.set_new("A", "s-1", ["builtin:bash"])
    assert o.activate("A", Grant("s-2", "nope:x", 0, "zz")) == (
        "ActivationError.SessionMismatch",
        {},
    )
    assert o.activate("A", Grant("s-1", "nope:x", 0, "zz")) == (
        "ActivationError.UnknownTool",
        {"tool": "nope:x"},
    )
    assert o.activate("A", Grant("s-1", "mcp.srv-a:t0", 3, "zz")) == (
        "ActivationError.StaleGeneration",
        {"grant": 3, "catalog": 4},
    )
    assert o.activate("A", Grant("s-1", "mcp.srv-a:t0", 4, "zz"))[0] == (
        "ActivationError.DigestMismatch"
    )
    assert o.activate("A", Grant("s-1", "builtin:bash", 4, "d-bash"))[0] == (
        "ActivationError.AlreadyCore"
    )
    assert o.activate("A", Grant("s-1", "mcp.srv-a:t0", 4, "d0")) == ("ok", {})
    assert o.activate("A", Grant("s-1", "mcp.srv-a:t0", 4, "d0"))[0] == (
        "ActivationError.AlreadyActivated"
    )
    o.catalog_insert("builtin:read", "d", builtin("read"), BR)
    assert o.activate("A", Grant("s-1", "builtin:read", 5, "d")) == (
        "ActivationError.StaleSnapshot",
        {"set": 4, "catalog": 5},
    )
    assert o.observe()["sets"]["A"]["schema_generation"] == 1


def test_batch_is_atomic_with_one_advance() -> None:
    o = world()
    o.set_new("B", "s-2", [])
    good = Grant("s-2", "mcp.srv-a:t0", 4, "d0")
    before = o.observe()
    assert o.activate_many("B", [good, Grant("s-2", "unknown:x", 4, "d2")]) == (
        "BulkActivationError.UntrustedSource",
        {"tool": "unknown:x"},
    )
    assert o.activate_many("B", [good, good])[0] == "BulkActivationError.DuplicateRequest"
    assert o.observe() == before
    assert o.activate_many("B", []) == ("ok", {"applied": 0})
    o.catalog_insert("builtin:read", "d", builtin("read"), BR)
    o.rebuild("B", "B", progressive=False, carry_forward=False)
    g1 = Grant("s-2", "mcp.srv-a:t0", 5, "d0")
    assert o.activate_many("B", [g1])[0] == "BulkActivationError.Grant.AlreadyCore"


def test_gate_order_factory_and_imposter() -> None:
    o = world()
    o.set_new("A", "s-1", ["builtin:bash"])
    assert o.authorize("A", "mcp.srv-a:t0")[0] == "ToolAuthorizationError.NotActivated"
    assert o.activate_user("A", "mcp.srv-a:t0") == ("ok", {})
    o.catalog_insert("builtin:grep", "d", builtin("grep"), BR)  # unrelated drift
    assert o.authorize("A", "mcp.srv-a:t0") == (
        "ok",
        {"tool": "mcp.srv-a:t0", "basis": {"kind": "exact", "catalog_generation": 4}},
    )
    # coherent imposter: same id and schema, a different but self-consistent provenance
    o.catalog_remove("mcp.srv-a:t0")
    o.catalog_insert(
        "mcp.srv-a:t0", "d0", Source("mcp", "srv-b", "t0"), Provenance("mcp_config", "srv-b")
    )
    assert o.authorize("A", "mcp.srv-a:t0")[0] == "ToolAuthorizationError.SourceProvenanceMismatch"
    assert o.observe()["factory_calls"] == {"mcp.srv-a:t0": 1}
    assert o.rebuild("A", "A2", progressive=True) == (
        "ok",
        {"dropped": [{"tool": "mcp.srv-a:t0", "reason": "drifted"}]},
    )


def test_host_entry_points() -> None:
    o = world()
    o.set_new("C", "s-3", [])
    before = o.observe()
    assert o.activate_model("C", "unauthorized", ["mcp.srv-a:t0"]) == (
        "HostActivationError.ConfirmationRequired",
        {},
    )
    assert o.activate_model("C", "model_confirmed", ["mcp.srv-a:t0", "mcp.srv-a:forged"]) == (
        "HostActivationError.Issuance.SourceProvenanceMismatch",
        {"tool": "mcp.srv-a:forged"},
    )
    assert o.observe() == before
    assert o.issue_grant("s", "unknown:x")[0] == "GrantIssuanceError.UntrustedSource"
    assert o.activate_model("C", "model_confirmed", ["mcp.srv-a:t0"]) == ("ok", {"applied": 1})
    assert o.route("C", "R", "s-f") == ("ok", {"stale": False})
    assert o.route(None, "R2", "s-f") == ("ok", {"stale": False})
    assert o.observe()["sets"]["R2"]["activated"] == {}
    assert set(o.observe()["sets"]["R2"]["core"]) == {
        "builtin:bash",
        "mcp.srv-a:t0",
        "mcp.srv-a:forged",
    }


def test_is_stale_reports_drift_of_the_catalog_generation() -> None:
    # SPEC.md §4: is_stale(catalog) <=> set generation != catalog generation, reported as
    # PROTOCOL.md's `stale` field; an unknown set is the `Protocol` error (PROTOCOL.md).
    o = world()
    o.set_new("A", "s-1", ["builtin:bash"])
    assert o.is_stale("A") == ("ok", {"stale": False})
    o.catalog_insert("builtin:z", "dz", builtin("z"), BR)
    assert o.is_stale("A") == ("ok", {"stale": True})
    assert o.is_stale("absent")[0] == "Protocol"
