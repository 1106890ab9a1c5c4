"""Certified witnesses: the exact (unbounded) query with the candidate pinned and the obligation's
interesting case forced must be ``sat``; a candidate showing only a trivial case does not count."""

from __future__ import annotations

from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model.concrete import Grant
from session_toolset_model.enumerate import nodes
from session_toolset_model.profiles import DEFAULT
from session_toolset_proofs.obligations import OBLIGATIONS
from session_toolset_proofs.pin import Encoder, pin_step
from session_toolset_proofs.report import Report
from session_toolset_proofs.solve import _solver

BY_NAME = {ob.name: ob for ob in OBLIGATIONS}


def _certify(name: str, args: dict[str, Any], pick: Any) -> Any:
    """The certificate query of ``name`` pinned to the first explored state ``pick`` accepts."""
    ob = BY_NAME[name]
    q = ob.build(DEFAULT)
    node = next(n for n in nodes() if pick(n.state))
    enc = Encoder()
    s = _solver()
    s.add(*q.premises, *q.alg.defs, *q.witness)
    s.add(*pin_step(enc, ob.op or "", q.steps[0].pre, q.steps[0].args, node.state, args))
    s.add(*enc.facts())
    return s.check()


def _has_set_a(st: Any) -> bool:
    return st.sets["A"] is not None and st.sets["A"].catgen == st.gen


def test_an_empty_batch_does_not_certify_the_batch_obligation() -> None:
    """The empty batch satisfies the premises (success, nothing changes), but the case "a batch
    of at least two" is forced, so it is no witness."""
    assert _certify("atomic_batch.activate_many", {"name": "A", "grants": ()}, _has_set_a) == (
        z3.unsat
    )


def test_removing_an_absent_tool_does_not_certify_the_remove_step() -> None:
    args = {"tool": "mcp.srv-a:t2"}
    assert (
        _certify(
            "counters.generation_advances_by_one.catalog_remove",
            args,
            lambda st: st.catalog["mcp.srv-a:t2"] is None,
        )
        == z3.unsat
    )
    assert (
        _certify(
            "counters.generation_advances_by_one.catalog_remove",
            {"tool": "mcp.srv-a:t0"},
            lambda st: st.catalog["mcp.srv-a:t0"] is not None,
        )
        == z3.sat
    )


def test_every_obligation_states_its_case() -> None:
    assert all(ob.case for ob in OBLIGATIONS)


def test_witnesses_show_their_case(all_profiles_report: Report) -> None:
    """Spot checks on the concrete final step of certified witnesses."""
    rows = {r.name: r for r in all_profiles_report.rows if r.check == "witness"}
    assert all(r.result == "sat" for r in rows.values())

    def final(name: str) -> dict[str, Any]:
        return next(s for s in rows[name].concrete if s.get("final"))

    assert len(final("atomic_batch.activate_many")["args"]["grants"]) >= 2
    assert len(final("atomic_batch.activate_model")["args"]["tools"]) >= 2
    assert len(final("invariant.step.set_new")["args"]["core_ids"]) >= 2
    assert final("drift_denial.rebuild_exact_drop_reasons")["args"]["carry_forward"]
    upsert = final("invariant.step.catalog_upsert")["args"]
    assert upsert["has_replaced"] and upsert["replaced"] != upsert["tool"]
    assert final("no_partial_mutation.activate_many")["outcome"] != "ok"
    many = final("postcondition.activate_many")
    assert many["outcome"] == "BulkActivationError.Grant.AlreadyActivated"
    assert [g["tool"] for g in many["args"]["grants"]] == [T1, T0]
    model = final("postcondition.activate_model")
    assert model["outcome"] == "HostActivationError.Bulk.Grant.AlreadyActivated"
    assert model["args"]["tools"] == [T1, T0]


T0, T1 = "mcp.srv-a:t0", "mcp.srv-a:t1"


def _t0_activated_t1_free(st: Any) -> bool:
    """Set A current, T0 activated in it, T1 cataloged and neither activated nor core in A."""
    a = st.sets["A"]
    return (
        _has_set_a(st)
        and a.acts[T0] is not None
        and st.catalog[T1] is not None
        and a.acts[T1] is None
        and a.core[T1] is None
    )


def _grant(st: Any, tool: str, gen: int | None = None) -> Grant:
    rec = st.catalog[tool]
    return Grant(st.sets["A"].session, tool, st.gen if gen is None else gen, rec.digest)


def _batch_certificates(name: str) -> dict[str, Any]:
    """The certificate of a batch-outcome obligation on three batches of two whose first grant
    passes, from the one state `_t0_activated_t1_free` picks: a duplicate, a stale second grant,
    and a second grant already activated in the set."""
    st = next(n.state for n in nodes() if _t0_activated_t1_free(n.state))
    if name == "postcondition.activate_many":
        g1 = _grant(st, T1)
        batches = {
            "duplicate": (g1, g1),
            "stale": (g1, _grant(st, T0, st.gen - 1)),
            "already_activated": (g1, _grant(st, T0)),
        }
        return {
            k: _certify(name, {"name": "A", "grants": b}, _t0_activated_t1_free)
            for k, b in batches.items()
        }
    tools = {"duplicate": (T1, T1), "already_activated": (T1, T0)}
    return {
        k: _certify(name, {"confirmed": True, "name": "A", "tools": b}, _t0_activated_t1_free)
        for k, b in tools.items()
    }


def test_batch_outcome_witness_is_decided_by_a_later_activation_check() -> None:
    """The forced case of `postcondition.activate_many` / `.activate_model`: a batch of two whose
    first grant passes and whose second fails `activate`'s AlreadyActivated check.  A batch
    decided by a DuplicateRequest (or, for `activate_many`, a stale second grant) satisfies the
    obligation's premises too, so this fails if the case is removed or weakened to "a later grant
    fails"."""
    many = _batch_certificates("postcondition.activate_many")
    assert many == {"duplicate": z3.unsat, "stale": z3.unsat, "already_activated": z3.sat}
    model = _batch_certificates("postcondition.activate_model")
    assert model == {"duplicate": z3.unsat, "already_activated": z3.sat}
