"""Witnesses and counterexamples found concretely and confirmed in Z3; reachability agrees with
the conformance harness's list of unreachable codes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from session_toolset_model import enumerate as enumerate_
from session_toolset_model.ops import OPS
from session_toolset_model.profiles import DEFAULT, Variant
from session_toolset_model.reachability import UNREACHABLE as MODEL_UNREACHABLE
from session_toolset_model.reachability import expected
from session_toolset_proofs import reach
from session_toolset_proofs.mutants import variant as mutant_variant
from session_toolset_proofs.obligations import OBLIGATIONS
from session_toolset_proofs.reach import reachability, unreachable_codes
from session_toolset_proofs.report import run
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
    v = mutant_variant("schema_gen_per_grant")
    found = find(ob, lambda: ob.build(v), v, "counterexample", DEFAULT)
    assert found.status == "sat"
    assert len(found.concrete[-1]["args"]["grants"]) >= 2


def test_reachability_agrees_with_the_reviewed_table() -> None:
    entries = reachability()
    assert {(e.op, e.outcome): e.result for e in entries} == {
        (e.op, e.outcome): expected(e.op, e.outcome) for e in entries
    }
    assert unreachable_codes(entries) == set(UNREACHABLE)
    for e in entries:
        if e.result == "reachable":
            assert e.concrete[-1]["op"] == e.op and e.concrete[-1]["outcome"] == e.outcome


def test_the_table_is_the_harness_list() -> None:
    """The model's table of unreachable pairs, read as codes no operation can produce, is the
    conformance harness's list of unreachable codes (both written by hand, kept equal here)."""
    pairs = set(MODEL_UNREACHABLE)
    listing = {(n, o) for n, op in OPS.items() for o in op.outcomes}
    assert pairs <= listing
    never = {o for _, o in pairs} - {o for n, o in listing if (n, o) not in pairs}
    assert never == set(UNREACHABLE)


def test_a_row_fails_when_the_run_disagrees_with_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reach rows are judged against the table: a pair the table calls reachable that the run
    proves unreachable is a failed row, not a new expectation."""
    from session_toolset_model import reachability as table

    monkeypatch.setitem(table.UNREACHABLE, ("revoke", "ExactRevocationError.CoreTool"), "pretend")
    report = run(["per-tool-pinned"], re.compile(r"^reach\.revoke\."))
    (row,) = [r for r in report.rows if r.name == "reach.revoke.ExactRevocationError.CoreTool"]
    assert row.result == "reachable" and not row.passed


def test_a_reachable_trace_sent_on_the_wire_must_answer_alike(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reach row sends its trace as PROTOCOL.md requests to the expected world; a translation
    that writes an upsert's provenance wrongly (not an object) is answered ``Protocol`` where the
    model says ok, so the row reads ``wire differs`` (it read ``reachable`` however the
    requests were written)."""
    results = {e.outcome: e.result for e in reach.reach_op("catalog_upsert")}
    assert results["ok"] == "reachable"
    real = enumerate_.trace_requests

    def bad_provenance(actions: Any, observe: bool = False) -> list[dict[str, Any]]:
        return [
            r | {"provenance": 0} if r["op"] == "catalog_upsert" else r
            for r in real(actions, observe)
        ]

    monkeypatch.setattr(reach, "trace_requests", bad_provenance)
    results = {e.outcome: e.result for e in reach.reach_op("catalog_upsert")}
    assert results["ok"] == "wire differs"
