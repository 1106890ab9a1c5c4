"""SPEC.md section 4: `ExecutionGate.authorize(catalog, set, resolved)` with its check order.

The factory counter of the called tool advances by exactly one on success and never otherwise:
that counter is how the model observes "the factory is called only after every check passed".
The drift rule is a profile parameter (see `profiles`).  Wire names and `resolve` are out of
scope: the model's gate receives the live tool's id directly.
"""

from __future__ import annotations

from .algebra import Algebra, Term, first_failure, guarded
from .profiles import Variant
from .state import Result, State, is_ok


def authorize(alg: Algebra, v: Variant, st: State, name: Term, tool: Term) -> Result:
    """Authorize a call of ``tool`` through set ``name``; basis core or exact(grant generation)."""
    s = alg.select(st.sets, name)
    rec = alg.select(st.catalog, tool)
    pin = alg.select(alg.get(s, "core"), tool)
    act = alg.select(alg.get(s, "acts"), tool)
    is_core = alg.is_some(pin)
    is_act = alg.and_(alg.not_(is_core), alg.is_some(act))
    rec_digest = alg.get(rec, "digest")

    def grant_covers() -> Term:
        covers = alg.and_(
            alg.eq(alg.get(act, "session"), alg.get(s, "session")),
            alg.eq(alg.get(act, "digest"), rec_digest),
        )
        if v.has("gate_checks_grant_generation"):
            covers = alg.and_(covers, alg.eq(alg.get(act, "gen"), st.gen))
        return covers

    covers = guarded(alg, alg.is_some(act), grant_covers)  # read only where is_act holds
    pinned_prov = alg.ite(is_core, alg.get(pin, "prov"), alg.get(act, "prov"))
    trust = alg.get(rec, "trust")

    checks: list[tuple[Term, str]] = [(alg.not_(alg.is_some(rec)), "NotCataloged")]
    if v.profile == "generation-strict":
        checks.append((alg.not_(alg.eq(alg.get(s, "catgen"), st.gen)), "StaleSet"))
    if not v.has("gate_ignores_digest"):
        checks.append(
            (
                alg.and_(is_core, alg.not_(alg.eq(alg.get(pin, "digest"), rec_digest))),
                "SchemaDigestMismatch",
            )
        )
        checks.append(
            (
                alg.and_(is_act, alg.not_(alg.eq(alg.get(act, "digest"), rec_digest))),
                "SchemaDigestMismatch",
            )
        )
    checks.append((alg.and_(is_act, alg.not_(covers)), "NotActivated"))
    checks.append((alg.and_(alg.not_(is_core), alg.not_(is_act)), "NotActivated"))
    if v.profile != "per-tool-digest":
        checks.append(
            (alg.not_(alg.eq(pinned_prov, alg.get(rec, "prov"))), "SourceProvenanceMismatch")
        )
    if not v.has("gate_ignores_trust"):
        untrusted = "SourceProvenanceMismatch" if v.has("gate_untrusted_as_mismatch") else None
        checks.append((alg.eq(trust, alg.trust("untrusted")), untrusted or "UntrustedSource"))
        checks.append((alg.eq(trust, alg.trust("mismatch")), "SourceProvenanceMismatch"))
    code = first_failure(alg, [(c, f"ToolAuthorizationError.{n}") for c, n in checks])
    ok = is_ok(alg, code)

    calls_on = alg.or_(ok, alg.is_some(rec)) if v.has("gate_factory_on_denial") else ok
    bumped = alg.store(st.calls, tool, alg.add(alg.select(st.calls, tool), alg.int_(1)))
    sets = st.sets
    if v.has("gate_absorbs_staleness"):
        refreshed = alg.some(
            "set",
            session=alg.get(s, "session"),
            catgen=st.gen,
            schemagen=alg.get(s, "schemagen"),
            core=alg.get(s, "core"),
            acts=alg.get(s, "acts"),
        )
        sets = alg.ite(ok, alg.store(st.sets, name, refreshed), st.sets)
    post = State(st.catalog, st.gen, alg.ite(calls_on, bumped, st.calls), sets)
    basis_core = alg.or_(is_core, ok) if v.has("gate_basis_always_core") else is_core
    return Result(
        code,
        post,
        {"tool": tool, "basis_core": basis_core, "basis_gen": alg.get(act, "gen")},
    )
