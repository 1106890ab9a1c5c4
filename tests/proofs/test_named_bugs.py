"""Named model bugs, each made once in the one definition (a mutant), are refuted by a
named proof obligation: the row of that obligation under the mutant reads ``refuted`` with a Z3
counterexample (never ``unknown``, never a witness "not found"), while the default definition
proves the same obligation."""

from __future__ import annotations

import re

import pytest
from session_toolset_model.profiles import DEFAULT
from session_toolset_proofs.mutants import MUTANTS
from session_toolset_proofs.mutants import variant as mutant_variant
from session_toolset_proofs.obligations import OBLIGATIONS
from session_toolset_proofs.report import run
from session_toolset_proofs.search import find
from session_toolset_proofs.solve import check

BY_NAME = {ob.name: ob for ob in OBLIGATIONS}

NAMED_BUGS = {
    # (a) identical upsert returns ok without advancing the catalog generation
    "upsert_identical_no_advance": "counters.generation_advances_by_one.catalog_upsert",
    # (b) rebase_past(prior) with prior above the current value sets the generation to prior
    "rebase_to_prior": "counters.generation_never_reused.catalog_rebase_past",
    # (c) revoke_exact does not advance schema_generation
    "revoke_keeps_schemagen": "counters.schema_generation_advances_by_one.revoke",
    # (d) activate does not advance schema_generation
    "activate_keeps_schemagen": "counters.schema_generation_advances_by_one.activate",
    # (e) AlreadyActivated also looks at another set of the same session
    "already_activated_session_wide": "zero_inheritance.self_composition.activate",
    # (f) checked_next overflows one value early
    "checked_next_early": "counters.checked_next_exact.catalog_insert",
    # (g) the Z3 side definition of "first index where" with `<` for `<=`
    "z3_first_index_strict": "interp.first_index_exact",
    # further single-rule bugs (the rest of the list, reconstructed)
    "z3_first_occ_any": "interp.seq_first_index_exact",
    "remove_absent_advances": "counters.generation_advances_by_one.catalog_remove",
    "batch_replaces_activations": "atomic_batch.activate_many",
    "revoke_checks_activation_first": "postcondition.revoke",
    "revoke_core_session_wide": "zero_inheritance.self_composition.revoke",
    "route_fresh_when_retained": "postcondition.route",
    "default_core_includes_unverified": "postcondition.set_default_core",
    # the session-wide AlreadyActivated lookup in batches of two or more only
    "bulk_already_activated_session_wide": "postcondition.activate_many",
}


@pytest.mark.parametrize(("mutant", "name"), sorted(NAMED_BUGS.items()))
def test_named_bug_is_refuted_by_its_obligation(mutant: str, name: str) -> None:
    assert mutant in MUTANTS
    ob = BY_NAME[name]
    assert mutant in ob.refuted_by
    assert check(lambda: ob.build(DEFAULT), True).status == "unsat"
    report = run(["per-tool-pinned"], re.compile(f"^{name.replace('.', '[.]')}$"))
    (row,) = [r for r in report.rows if r.check == f"mutant:{mutant}"]
    assert row.result == "refuted", row


def test_wrong_side_definition_also_leaves_premises_unsatisfiable() -> None:
    """Why (g) needed its own obligation: under the strict side definition a successful batch
    has no model at all, so every proof about one is vacuous - and the certified witness (the
    exact unbounded query, candidate pinned) is no longer satisfiable."""
    v = mutant_variant("z3_first_index_strict")
    ob = BY_NAME["atomic_batch.activate_many"]
    assert check(lambda: ob.build(v), True).status == "unsat"  # "proved", vacuously
    assert find(ob, lambda: ob.build(v), v, "witness", None).status != "sat"
    assert find(ob, lambda: ob.build(DEFAULT), DEFAULT, "witness", None).status == "sat"
