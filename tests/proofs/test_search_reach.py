"""Witnesses and counterexamples found concretely and confirmed in Z3; reachability agrees with
the conformance harness's list of unreachable codes."""

from __future__ import annotations

import pytest
from session_toolset_model.profiles import DEFAULT, Variant
from session_toolset_proofs.obligations import OBLIGATIONS
from session_toolset_proofs.reach import reachability, unreachable_codes
from session_toolset_proofs.search import find

from session_toolset_harness.conform.codes import UNREACHABLE

pytestmark = pytest.mark.spec("2", "3", "4", "5")

BY_NAME = {ob.name: ob for ob in OBLIGATIONS}


@pytest.mark.parametrize(
    "name",
    [
        "atomic_batch.activate_many",
        "atomic_batch.activate_model",
        "no_partial_mutation.activate_many",
        "zero_inheritance.self_composition.set_new",
        "drift_denial.activation_generation_strict.activate_many",
    ],
)
def test_formerly_unknown_witnesses_are_confirmed(name: str) -> None:
    ob = BY_NAME[name]
    found = find(ob, lambda: ob.build(DEFAULT), DEFAULT, "witness", None)
    assert found.status == "sat"
    assert found.concrete and found.concrete[-1 if ob.kind != "hyperproperty" else -2]["final"]


def test_imposter_counterexample_trace_is_concrete() -> None:
    ob = BY_NAME["gate.soundness"]
    v = Variant("per-tool-digest")
    found = find(ob, lambda: ob.build(v), v, "counterexample", DEFAULT)
    assert found.status == "sat"
    last = found.concrete[-1]
    assert last["op"] == "authorize" and last["outcome"] == "ok"
    assert any(step["op"] == "catalog_upsert" for step in found.concrete)


def test_schema_gen_per_grant_refuted_with_a_batch_of_two() -> None:
    ob = BY_NAME["atomic_batch.activate_many"]
    v = Variant(mutant="schema_gen_per_grant")
    found = find(ob, lambda: ob.build(v), v, "counterexample", DEFAULT)
    assert found.status == "sat"
    assert len(found.concrete[-1]["args"]["grants"]) >= 2


def test_reachability_agrees_with_conform_codes() -> None:
    entries = reachability()
    assert all(e.result in ("reachable", "unreachable") for e in entries)
    assert unreachable_codes(entries) == set(UNREACHABLE)
    for e in entries:
        if e.result == "reachable":
            assert e.concrete[-1]["op"] == e.op and e.concrete[-1]["outcome"] == e.outcome
