"""Whole-history generation uniqueness and the priors of failed `rebase_past` calls.

`counters.generation_never_reused.*` records every prior passed to rebase_past - a failed call's
too - and proves that the only value a catalog can hand out after it was passed is 2^64-1, after
a failed rebase.  The reading without that exception ("no value ever passed to rebase_past is
handed out later") is false of SPEC.md §2 as written: shown here in Z3 and on the concrete
model with the two-step trace docs/proofs.md gives."""

from __future__ import annotations

import pytest
from session_toolset_model.algebra import MAX_GENERATION
from session_toolset_model.enumerate import ALG, Action
from session_toolset_model.profiles import DEFAULT
from session_toolset_model.state import initial
from session_toolset_proofs import postconditions as pc
from session_toolset_proofs.solve import check


@pytest.mark.parametrize("op", ["catalog_insert", "catalog_rebase_past"])
def test_the_reading_without_the_top_exception_is_refuted(op: str) -> None:
    strong = pc.generation_never_reused(op, refused_exempt=False)
    # A counterexample is searched for the way the obligations search for theirs: bounded first
    # (a model of the bounded query is one of the unbounded query).  Asked unbounded, the solver
    # sometimes ran out of its rlimit (`unknown`) after other tests had filled the Z3 context.
    outcome = check(lambda: strong(DEFAULT), True, search=True)
    assert outcome.status == "sat"
    assert outcome.trace["gen_after"] == str(MAX_GENERATION)  # the one value reused
    assert check(lambda: pc.generation_never_reused(op)(DEFAULT), True).status == "unsat"


def test_a_failed_prior_is_handed_out_later_concretely() -> None:
    st = initial(ALG)
    refused = Action.of("catalog_rebase_past", prior=MAX_GENERATION).run(DEFAULT, st)
    assert refused.code == "CatalogGenerationOverflow"
    assert refused.state == st  # "unchanged" (SPEC.md §2)
    later = Action.of("catalog_rebase_past", prior=MAX_GENERATION - 1).run(DEFAULT, refused.state)
    assert later.code == "ok"
    assert later.state.gen == MAX_GENERATION  # the prior the failed call was given
