"""Certified witnesses: the exact (unbounded) query with the candidate pinned and the obligation's
interesting case forced must be ``sat``; a candidate showing only a trivial case does not count."""

from __future__ import annotations

from typing import Any

import pytest
import z3  # type: ignore[import-untyped]
from session_toolset_model.concrete import Grant
from session_toolset_model.enumerate import ALG, Action, nodes
from session_toolset_model.profiles import DEFAULT
from session_toolset_model.state import initial
from session_toolset_model.values import Provenance
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


def _node_where(op: str, args: dict[str, Any], ok: Any) -> Any:
    """The first explored state from which ``op(args)`` runs concretely and ``ok(result)``."""
    from session_toolset_model.enumerate import Action

    act = Action.of(op, **args)
    return next(n for n in nodes() if _runs(op, n.state, args) and ok(act.run(DEFAULT, n.state)))


def _runs(op: str, st: Any, args: dict[str, Any]) -> bool:
    from session_toolset_model.enumerate import ALG
    from session_toolset_model.ops import OPS

    return bool(OPS[op].pre(ALG, st, args))


def _certify_at(name: str, node: Any, args: dict[str, Any]) -> Any:
    return _certify(name, args, lambda st: st is node.state)


def _carried_and_dropped(into: str) -> Any:
    def ok(r: Any) -> bool:
        dropped = any(x != "none" for x in r.extras["dropped"].as_dict().values())
        return bool(dropped and r.state.sets[into].acts.as_dict())

    return ok


@pytest.mark.parametrize(
    "name",
    [
        "drift_denial.rebuild_carries_only_matching",
        "drift_denial.rebuild_exact_drop_reasons",
        "functional.rebuild",
        "invariant.step.rebuild",
    ],
)
def test_a_rebuild_into_its_own_name_certifies_no_rebuild_witness(name: str) -> None:
    """A carry-forward rebuild that carries and drops, into its own name, satisfies every
    premise; the forced case asks for another name (the old set then stays untouched)."""
    args = {"name": "A", "progressive": True, "carry_forward": True}
    node = _node_where("rebuild", {**args, "into": "A"}, _carried_and_dropped("A"))
    assert _certify_at(name, node, {**args, "into": "A"}) == z3.unsat
    assert _certify_at(name, node, {**args, "into": "C"}) == z3.sat


@pytest.mark.parametrize(
    "name",
    ["postcondition.route", "functional.route", "drift_denial.stale_iff_generations_differ.route"],
)
def test_a_route_onto_its_own_set_certifies_no_route_witness(name: str) -> None:
    args = {"has_retained": True, "retained": "A", "fallback_session": "s-1"}
    node = _node_where("route", {**args, "into": "A"}, lambda r: bool(r.extras["stale"]))
    assert _certify_at(name, node, {**args, "into": "A"}) == z3.unsat
    assert _certify_at(name, node, {**args, "into": "B"}) == z3.sat


@pytest.mark.parametrize(
    "name", ["no_partial_mutation.activate_many", "functional.activate_many.rejected"]
)
def test_a_batch_rejected_at_its_first_grant_certifies_no_rejection_witness(name: str) -> None:
    """A batch whose first grant already fails is rejected before any grant is accepted; the
    forced case asks for the first grant to pass and a later one to decide."""
    st = next(n.state for n in nodes() if _t0_activated_t1_free(n.state))
    good, repeated = _grant(st, T1), _grant(st, T0)  # T0 is already activated in A
    assert _certify(name, {"name": "A", "grants": (repeated, good)}, _t0_activated_t1_free) == (
        z3.unsat
    )
    assert _certify(name, {"name": "A", "grants": (good, repeated)}, _t0_activated_t1_free) == (
        z3.sat
    )


def test_witnesses_show_their_case_beyond_the_trivial_one(all_profiles_report: Report) -> None:
    """In the full run: every rebuild and route witness goes to another name, every rejected
    batch witness has its first element pass."""
    rows = [r for r in all_profiles_report.rows if r.check == "witness"]
    finals = {r.name: s for r in rows for s in r.concrete if s.get("final")}
    rebuilds = [f for f in finals.values() if f["op"] == "rebuild" and f["args"]["carry_forward"]]
    routes = [f for f in finals.values() if f["op"] == "route" and f["args"]["has_retained"]]
    assert len(rebuilds) >= 6 and len(routes) >= 4
    assert all(f["args"]["into"] != f["args"]["name"] for f in rebuilds)
    assert all(f["args"]["into"] != f["args"]["retained"] for f in routes)
    for name in (
        "no_partial_mutation.activate_many",
        "no_partial_mutation.activate_model",
        "functional.activate_many.rejected",
        "functional.activate_model.bulk_rejected",
        "functional.activate_model.issuance_rejected",
    ):
        batch = finals[name]["args"].get("grants", finals[name]["args"].get("tools"))
        assert len(batch) >= 2 and finals[name]["outcome"] != "ok", name


BATCH_OPS = ("activate_many", "activate_model")
READS_CATALOG = (
    *BATCH_OPS,
    "activate",
    "authorize",
    "issue_grant",
    "activate_user",
    "set_new",
    "set_default_core",
    "set_progressive_core",
)
BUILDS_CORE = ("set_new", "set_default_core", "set_progressive_core", "route", "rebuild")


def _value(x: Any) -> Any:
    """A witness trace's JSON argument back as the model's concrete value."""
    if isinstance(x, list):
        return tuple(_value(e) for e in x)
    if isinstance(x, dict) and "generation" in x:
        return Grant(x["session"], x["tool"], x["generation"], x["digest"])
    if isinstance(x, dict) and "kind" in x:
        owner = [v for k, v in x.items() if k != "kind"]
        return Provenance(x["kind"], owner[0] if owner else "")
    return x


def _action(step: dict[str, Any]) -> Action:
    return Action.of(step["op"], **{k: _value(v) for k, v in step["args"].items()})


def trivial_case(name: str, concrete: list[dict[str, Any]]) -> str | None:
    """Why a witness shows only a trivial case, or None: its final step is an empty batch, reads
    an empty catalog, builds a set with an empty core (a new core, not a carried or retained
    set), or (no-partial-mutation of a one-tool operation) is rejected by the catalog lookup
    itself.  The trace is replayed by the concrete oracle from the initial state."""
    steps = [s for s in concrete if s.get("op", "reset") != "reset"]
    if not steps:
        return None
    st = initial(ALG)
    for step in steps[:-1]:
        st = _action(step).run(DEFAULT, st).state
    final = steps[-1]
    op, args = final["op"], final["args"]
    res = _action(final).run(DEFAULT, st)
    assert res.code == final["outcome"], name  # the replay is the trace the row reports
    if op in BATCH_OPS and not args.get("grants", args.get("tools")):
        return "an empty batch"
    if op in READS_CATALOG and not st.catalog.as_dict():
        return "an empty catalog"
    fresh = not (args.get("has_retained") or args.get("carry_forward"))
    built = res.state.sets[args.get("into", args.get("name"))] if op in BUILDS_CORE else None
    if fresh and res.code == "ok" and built is not None and not built.core.as_dict():
        return "an empty core"
    one_tool = name.startswith("no_partial_mutation.") and op not in BATCH_OPS
    if one_tool and str(res.code).endswith((".UnknownTool", ".NotCataloged")):
        return "a rejection by the catalog lookup"
    return None


def test_the_triviality_check_flags_each_trivial_form() -> None:
    """`trivial_case` on hand-made traces: each trivial form flagged, its interesting twin not."""
    insert = {
        "op": "catalog_insert",
        "args": {
            "tool": T0,
            "digest": "d0",
            "prov": {"kind": "mcp_config", "server_id": "srv-a"},
            "trust": "trusted",
        },
        "outcome": "ok",
    }
    new_a = {"op": "set_new", "args": {"name": "A", "session": "s-1", "core_ids": []}}

    def final(op: str, outcome: str, **args: Any) -> dict[str, Any]:
        return {"op": op, "args": args, "outcome": outcome, "final": True}

    grant = {"session": "s-1", "tool": T0, "generation": 1, "digest": "d0"}
    many = "zero_inheritance.frame.activate_many"
    assert (
        trivial_case(
            many,
            [insert, {**new_a, "outcome": "ok"}, final("activate_many", "ok", name="A", grants=[])],
        )
        == "an empty batch"
    )
    user = "no_partial_mutation.activate_user"
    assert (
        trivial_case(
            user,
            [
                {**new_a, "outcome": "ok"},
                final(
                    "activate_user", "HostActivationError.Issuance.UnknownTool", name="A", tool=T0
                ),
            ],
        )
        == "an empty catalog"
    )
    assert (
        trivial_case(
            user,
            [
                insert,
                {**new_a, "outcome": "ok"},
                final(
                    "activate_user", "HostActivationError.Issuance.UnknownTool", name="A", tool=T1
                ),
            ],
        )
        == "a rejection by the catalog lookup"
    )
    assert (
        trivial_case(
            "zero_inheritance.self_composition.set_new",
            [insert, final("set_new", "ok", name="A", session="s-1", core_ids=[])],
        )
        == "an empty core"
    )
    assert (
        trivial_case(
            "zero_inheritance.self_composition.set_new",
            [insert, final("set_new", "ok", name="A", session="s-1", core_ids=[T0])],
        )
        is None
    )
    assert (
        trivial_case(
            many,
            [
                insert,
                {**new_a, "outcome": "ok"},
                final("activate_many", "ok", name="A", grants=[grant]),
            ],
        )
        is None
    )


def test_no_witness_shows_only_a_trivial_case(all_profiles_report: Report) -> None:
    """Every witness of the full run: no empty batch, no empty catalog for an operation that
    reads it, no new set with an empty core, no one-tool rejection by the catalog lookup."""
    rows = [r for r in all_profiles_report.rows if r.check == "witness"]
    flagged = {r.name: trivial_case(r.name, r.concrete) for r in rows}
    assert {n: why for n, why in flagged.items() if why} == {}


def _empty_catalog_with_set_a(st: Any) -> bool:
    return _has_set_a(st) and not st.catalog.as_dict()


def _two_sets(st: Any) -> bool:
    return _has_set_a(st) and st.sets["B"] is not None


@pytest.mark.parametrize(
    ("name", "args", "pick"),
    [
        (
            "no_partial_mutation.issue_grant",
            {"session": "s-1", "tool": T0},
            _empty_catalog_with_set_a,
        ),
        ("no_partial_mutation.authorize", {"name": "A", "tool": T0}, _empty_catalog_with_set_a),
        ("no_partial_mutation.activate_user", {"name": "A", "tool": T0}, _empty_catalog_with_set_a),
        ("zero_inheritance.frame.activate_many", {"name": "A", "grants": ()}, _two_sets),
        ("zero_inheritance.self_composition.activate_many", {"name": "A", "grants": ()}, _two_sets),
        (
            "zero_inheritance.self_composition.activate_model",
            {"confirmed": True, "name": "A", "tools": ()},
            _two_sets,
        ),
        (
            "zero_inheritance.frame.set_new",
            {"name": "C", "session": "s-1", "core_ids": ()},
            _two_sets,
        ),
    ],
)
def test_a_trivial_candidate_certifies_no_witness(name: str, args: Any, pick: Any) -> None:
    """The forced case rejects the trivial form each of these witnesses once showed (an empty
    batch or core, a rejection against an empty catalog) although it satisfies the premises."""
    assert _certify(name, args, pick) == z3.unsat
