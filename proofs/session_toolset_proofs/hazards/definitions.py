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

from dataclasses import dataclass

from . import queries
from .probes import (
    activate_authorize,
    activate_twice,
    core_authorize,
    core_changed_same_schemagen,
    core_denied,
    drift_rebuild_authorize,
    drifted_reauthorized,
    foreign_core_authorized,
    issue_change_activate,
    ok,
    rebuild,
    reinsert_authorize,
    route,
    schemagen_lowered,
    stale_authorize,
)
from .search import (
    ONE,
    PROGRESSIVE,
    TWO_SETS,
    Domain,
    Probe,
    Violates,
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
        activate_authorize,
        lambda s: ok(s[0]) and not ok(s[1]),
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
        core_authorize("set_default_core"),
        core_denied,
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
        core_authorize("set_progressive_core"),
        core_denied,
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
        core_authorize("set_progressive_core"),
        foreign_core_authorized,
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
        reinsert_authorize,
        lambda s: all(ok(r) for r in s),
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
        route,
        lambda s: bool(s[0].result.extras["stale"]),
        queries.route_fresh,
    ),
    Hazard(
        "grant.refused_after_catalog_change",
        "a grant issued before a successful catalog change made with SPEC.md's operations is "
        "refused by activate after it",
        "3",
        "grant generation ≠ catalog generation → `StaleGeneration{grant, catalog}`",
        "drift_denial.activation_generation_strict, restated over the issuance history",
        "intended",
        "activation is generation-strict and SPEC.md's catalog operations only raise the "
        "generation, so this holds (proved, with SPEC.md's operations; only the gate is "
        "generation-blind); PROTOCOL.md's catalog_set_generation test seam, which the model "
        "leaves out, can rewind the counter and then the grant is accepted again "
        "(protocol/set-generation-seam-revives-a-stale-grant)",
        "proved",
        ONE,
        issue_change_activate,
        lambda s: ok(s[1]) and ok(s[2]),
        queries.stale_grant_refused,
        "activate_skips_generation",
        lambda s: ok(s[1]) and s[2].result.code == "ActivationError.StaleGeneration",
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
        stale_authorize,
        lambda s: ok(s[0]),
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
        drift_rebuild_authorize,
        drifted_reauthorized,
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
        activate_twice,
        lambda s: all(ok(r) for r in s),
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
        rebuild(True),
        core_changed_same_schemagen,
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
        rebuild(False),
        schemagen_lowered,
        queries.zero_inherit_rebuild_monotone,
    ),
)

__all__ = ["HAZARDS", "Hazard"]
