"""The hazards: properties a careful reader might expect that SPEC.md does not guarantee.

Each `Hazard` names the candidate property, the SPEC.md sentence that decides it (verbatim,
tested against docs/spec/SPEC.md), how it was derived from a section 6 obligation (the method:
weaken a premise, strengthen a goal, or ask what the gate still authorizes after a kind of
catalog change), the verdict for the spec's authors, and how it is checked:

- ``probe``/``violates``: the concrete final operations and the violation predicate that the
  breadth-first search (`search.shortest`) uses to find a minimal trace from ``reset``;
- ``query``: the same property as a Z3 query over arbitrary invariant states (`queries`); a
  refutation is confirmed by pinning the query's steps to the trace's last steps, a proof is
  ``unsat`` with a witness and a mutant that refutes it, as for an obligation;
- ``expect``: ``refuted`` (the hazard is real) or ``proved`` (the reader's expectation holds).

Two hazards lie outside the model: the wire-name one (aliases are not modelled, `wire`) and the
source swap within one provenance (sources are abstracted to their trust, `source`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from session_toolset_model.concrete import Grant
from session_toolset_model.state import State

from ..explore import Action
from . import queries
from .search import (
    BASH,
    ONE,
    PROGRESSIVE,
    SESSION,
    TWO_SETS,
    TWO_TOOLS,
    Domain,
    Probe,
    Ran,
    Violates,
    alphabet,
    good_grant,
)


@dataclass(frozen=True)
class Hazard:
    name: str
    expectation: str
    """The property a careful reader might expect."""
    section: str
    """The SPEC.md section key of the responsible sentence (e.g. ``3``, ``1.5``)."""
    spec: str
    """The responsible SPEC.md sentence, verbatim (whitespace-normalised)."""
    derived: str
    """Which obligation or catalog change it comes from, and how (the method)."""
    verdict: str
    """``intended`` or ``open question``."""
    why: str
    expect: str
    domain: Domain
    probe: Probe
    violates: Violates
    query: queries.Builder | None = None
    mutant: str | None = None
    """For a ``proved`` hazard: the mutant that must refute it."""
    witness: Violates | None = None
    """For a ``proved`` hazard: the interesting case the witness must show (its trace is the
    hazard's vector)."""


def _ok(r: Ran) -> bool:
    return bool(r.result.code == "ok")


def _existing(st: State, d: Domain) -> list[str]:
    return [n for n in d.sets if st.sets[n] is not None]


def _authorize(name: str, tool: str) -> Action:
    return Action.of("authorize", name=name, tool=tool)


# -- probes ----------------------------------------------------------------------------------
def _activate_authorize(st: State, d: Domain) -> Iterator[list[Action]]:
    for n in _existing(st, d):
        for t in d.tools:
            g = good_grant(st, n, t)
            if g is not None:
                yield [Action.of("activate", name=n, grant=g), _authorize(n, t)]


def _core_authorize(opname: str) -> Probe:
    def probe(st: State, d: Domain) -> Iterator[list[Action]]:
        for n in d.sets:
            for t in d.tools:
                yield [Action.of(opname, name=n, session=SESSION), _authorize(n, t)]

    return probe


def _core_denied(steps: list[Ran]) -> bool:
    built, call = steps
    name, tool = call.action.kwargs["name"], call.action.kwargs["tool"]
    core = built.result.state.sets[name].core
    return core[tool] is not None and not _ok(call)


def _foreign_core_authorized(steps: list[Ran]) -> bool:
    built, call = steps
    name, tool = call.action.kwargs["name"], call.action.kwargs["tool"]
    pin = built.result.state.sets[name].core[tool]
    return pin is not None and pin.prov.kind != "builtin_runtime" and _ok(call)


def _reinsert_authorize(st: State, d: Domain) -> Iterator[list[Action]]:
    for n in _existing(st, d):
        for t in d.tools:
            rec = st.catalog[t]
            if rec is None or st.sets[n].acts[t] is None:
                continue
            again = Action.of(
                "catalog_insert", tool=t, digest=rec.digest, prov=rec.prov, trust=rec.trust
            )
            yield [Action.of("catalog_remove", tool=t), again, _authorize(n, t)]


def _route(st: State, d: Domain) -> Iterator[list[Action]]:
    for n in _existing(st, d):
        for m in d.sets:
            yield [
                Action.of("route", has_retained=True, retained=n, into=m, fallback_session=SESSION)
            ]


def _issue_change_activate(st: State, d: Domain) -> Iterator[list[Action]]:
    """Issue a grant, make one catalog change, then activate with the grant issued before."""
    for n in _existing(st, d):
        for t in d.tools:
            rec = st.catalog[t]
            if rec is None or rec.trust != "trusted":
                continue
            g = Grant(st.sets[n].session, t, st.gen, rec.digest)
            issue = Action.of("issue_grant", session=g.session, tool=t)
            for change in alphabet(st, d):
                if change.op.startswith("catalog_"):
                    yield [issue, change, Action.of("activate", name=n, grant=g)]


def _stale_authorize(st: State, d: Domain) -> Iterator[list[Action]]:
    for n in _existing(st, d):
        if st.sets[n].catgen != st.gen:
            for t in d.tools:
                yield [_authorize(n, t)]


def _activate_twice(st: State, d: Domain) -> Iterator[list[Action]]:
    for n in _existing(st, d):
        for m in _existing(st, d):
            for t in d.tools:
                g = good_grant(st, n, t)
                if m != n and g is not None:
                    yield [
                        Action.of("activate", name=n, grant=g),
                        Action.of("activate", name=m, grant=g),
                    ]


def _drift_rebuild_authorize(st: State, d: Domain) -> Iterator[list[Action]]:
    for n in _existing(st, d):
        for t in d.tools:
            if st.sets[n].acts[t] is None:
                continue
            for change in alphabet(st, d):
                if change.op == "catalog_upsert" and change.kwargs["tool"] == t:
                    for prog in (False, True):
                        rebuild = Action.of(
                            "rebuild", name=n, into=n, progressive=prog, carry_forward=True
                        )
                        yield [change, rebuild, _authorize(n, t)]


def _drifted_reauthorized(steps: list[Ran]) -> bool:
    change, _rebuilt, call = steps
    t, n = call.action.kwargs["tool"], call.action.kwargs["name"]
    act, rec = change.pre.sets[n].acts[t], change.result.state.catalog[t]
    drifted = rec is not None and (rec.digest != act.digest or rec.prov != act.prov)
    return drifted and all(_ok(r) for r in steps)


def _rebuild(carry: bool) -> Probe:
    def probe(st: State, d: Domain) -> Iterator[list[Action]]:
        for n in _existing(st, d):
            for prog in (False, True):
                yield [Action.of("rebuild", name=n, into=n, progressive=prog, carry_forward=carry)]

    return probe


def _core_changed_same_schemagen(steps: list[Ran]) -> bool:
    (r,) = steps
    n = r.action.kwargs["name"]
    old, new = r.pre.sets[n], r.result.state.sets[n]
    return _ok(r) and old.core != new.core and old.schemagen == new.schemagen


def _schemagen_lowered(steps: list[Ran]) -> bool:
    (r,) = steps
    n = r.action.kwargs["name"]
    return bool(r.result.state.sets[n].schemagen < r.pre.sets[n].schemagen)


HAZARDS: tuple[Hazard, ...] = (
    Hazard(
        "activation.admitted_then_denied",
        "a set never holds an activation the gate denies (an activation that succeeds is "
        "authorized right after)",
        "3",
        "This low-level path does not check source trust.",
        "gate.exactness, premise weakened: 'an activation whose record still matches' became "
        "'an activation that just succeeded'",
        "open question",
        "the set then advertises a tool the gate denies on every call until the catalog "
        "changes (fail-closed, but should `activate` refuse an untrusted record up front?)",
        "refuted",
        ONE,
        _activate_authorize,
        lambda s: _ok(s[0]) and not _ok(s[1]),
        queries.activate_then_authorize,
    ),
    Hazard(
        "core.default_admits_denied",
        "every tool of a default core is authorized by the gate",
        "3",
        "core = every record whose provenance is not `Unverified`",
        "gate.exactness, premise weakened: 'a core tool whose record still matches' became "
        "'a tool default_core_for_catalog just pinned'",
        "open question",
        "the default core filters on provenance only, so a provenance-mismatched or "
        "Unknown-sourced record is core and denied on every call",
        "refuted",
        ONE,
        _core_authorize("set_default_core"),
        _core_denied,
        queries.default_core_then_authorize,
    ),
    Hazard(
        "core.progressive_admits_denied",
        "every tool of a progressive core is authorized by the gate",
        "3",
        "core = those of `builtin:bash read write edit grep find ls search_tools "
        "activate_tools search_skills load_skill` present in the catalog.",
        "gate.exactness, premise weakened as for the default core",
        "open question",
        "the progressive list is by id only: an Unverified `builtin:bash` record is core and "
        "denied on every call",
        "refuted",
        PROGRESSIVE,
        _core_authorize("set_progressive_core"),
        _core_denied,
        queries.progressive_core_then_authorize,
    ),
    Hazard(
        "core.progressive_admits_foreign_source",
        "a progressive core holds only builtin-runtime tools",
        "3",
        "core = those of `builtin:bash read write edit grep find ls search_tools "
        "activate_tools search_skills load_skill` present in the catalog.",
        "gate.soundness's goal strengthened with 'and a progressive core tool is a builtin'",
        "open question",
        "an MCP record cataloged under the id `builtin:bash` (trusted for its own server) is "
        "core and authorized: SPEC.md ties no record id to its source (concrete check only: "
        "the model's Z3 provenances are uninterpreted)",
        "refuted",
        PROGRESSIVE,
        _core_authorize("set_progressive_core"),
        _foreign_core_authorized,
    ),
    Hazard(
        "activation.survives_reinsertion",
        "removing a tool's record ends its activations: an identical record re-inserted "
        "later is not authorized through the old activation",
        "4",
        "a call is denied only when the called tool's own record changed (removed, digest, "
        "provenance) or is untrusted.",
        "catalog change 'remove, then insert an identical record' under gate.soundness",
        "open question",
        "removal is a state at call time, not a revocation: the activation, granted at an "
        "older generation, authorizes again once an identical record is back",
        "refuted",
        ONE,
        _reinsert_authorize,
        lambda s: all(_ok(r) for r in s),
        queries.reinsertion_then_authorize,
    ),
    Hazard(
        "route.hands_out_stale",
        "route hands out a set that is_stale reports fresh",
        "5",
        "return a copy of its current state as is (activations and pinned generation "
        "included, stale or not)",
        "drift_denial.stale_iff_generations_differ.route, goal strengthened to 'not stale'",
        "intended",
        "staleness is represented, never absorbed: the caller sees `stale` and rebuilds",
        "refuted",
        ONE,
        _route,
        lambda s: bool(s[0].result.extras["stale"]),
        queries.route_fresh,
    ),
    Hazard(
        "grant.refused_after_catalog_change",
        "a grant issued before a successful catalog change is refused by activate after it",
        "3",
        "grant generation ≠ catalog generation → `StaleGeneration{grant, catalog}`",
        "drift_denial.activation_generation_strict, restated over the issuance history",
        "intended",
        "activation is generation-strict; this holds (proved), only the gate is generation-blind",
        "proved",
        ONE,
        _issue_change_activate,
        lambda s: _ok(s[1]) and _ok(s[2]),
        queries.stale_grant_refused,
        "activate_skips_generation",
        lambda s: _ok(s[1]) and s[2].result.code == "ActivationError.StaleGeneration",
    ),
    Hazard(
        "gate.stale_set_authorized",
        "a stale set (is_stale true) authorizes nothing until it is rebuilt",
        "4",
        "Generation drift alone never denies at execution time",
        "drift denial's 'is_stale reflects drift' read as a gate rule; gate.exactness's "
        "premise specialised to a stale set",
        "intended",
        "exactness: an unrelated catalog change must not break a matching tool (the "
        "generation-strict profile is the alternative, refuted by gate.exactness)",
        "refuted",
        ONE,
        _stale_authorize,
        lambda s: _ok(s[0]),
        queries.stale_set_denied,
    ),
    Hazard(
        "rebuild.default_core_absorbs_drift",
        "after an activated tool's record drifts (new digest, coherent imposter), a rebuild "
        "never authorizes it again without a fresh activation",
        "3",
        "The core is derived as a fresh progressive/default build would.",
        "drift_denial.rebuild_carries_only_matching, goal strengthened from 'carried "
        "activations' to 'anything the rebuilt set authorizes'; found by the catalog-change "
        "sweep",
        "open question",
        "a default rebuild pins every non-Unverified record as core, so a drifted activation or "
        "a coherent imposter becomes core and authorized, reported as neither carried nor "
        "dropped ('now core')",
        "refuted",
        ONE,
        _drift_rebuild_authorize,
        _drifted_reauthorized,
        queries.drifted_then_rebuilt_denied,
    ),
    Hazard(
        "grant.reusable_across_sets",
        "a grant activates a tool in one set only",
        "1.5",
        "`(session_id, tool_id, catalog_generation, schema_digest)`",
        "zero inheritance's 'every activation was granted for that set's session', "
        "strengthened from session to set",
        "intended",
        "a grant names a session, not a set: every set of the session is that session's "
        "view, and a grant is not consumed",
        "refuted",
        TWO_SETS,
        _activate_twice,
        lambda s: all(_ok(r) for r in s),
        queries.grant_single_use,
    ),
    Hazard(
        "counters.core_change_keeps_schema_generation",
        "schema_generation advances whenever a rebuild changes the set's callable tools",
        "3",
        "New `schema_generation` = old + 1 if anything was dropped, else old.",
        "counters.schema_generation_never_decreases.rebuild, goal strengthened to 'advances "
        "when the core changes'",
        "open question",
        "a rebuild that adds a core tool or re-pins a drifted core digest keeps "
        "schema_generation: a client that refreshes the tool list on it misses the change",
        "refuted",
        ONE,
        _rebuild(True),
        _core_changed_same_schemagen,
        queries.rebuild_core_change_advances,
    ),
    Hazard(
        "counters.zero_inheritance_rebuild_lowers_schema_generation",
        "schema_generation never decreases (section 6), also across a zero-inheritance rebuild "
        "into the same set",
        "3",
        "exactly a fresh default/progressive set (no activations, `schema_generation` 0)",
        "counters.schema_generation_never_decreases.rebuild, premise carry_forward dropped",
        "open question",
        "section 6 says schema_generation never decreases; with carry-forward off the rebuilt "
        "set restarts at 0 (is it a new set or the same set's next state?)",
        "refuted",
        ONE,
        _rebuild(False),
        _schemagen_lowered,
        queries.zero_inherit_rebuild_monotone,
    ),
)

__all__ = ["BASH", "HAZARDS", "TWO_TOOLS", "Hazard"]
