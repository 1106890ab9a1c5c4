"""SPEC.md section 4: `ExecutionGate.authorize(catalog, set, resolved)` with its check order.

The factory counter of the called tool advances by exactly one on success and never otherwise:
that counter is how the model observes "the factory is called only after every check passed".
The drift rule is a profile parameter (see `profiles`).  Wire names and `resolve` are out of
scope: the model's gate receives the live tool's id directly.
"""

from __future__ import annotations

from .algebra import Algebra, Term, first_failure, guarded
from .profiles import Variant, seam
from .state import Result, State, is_ok


def grant_covers(alg: Algebra, v: Variant, st: State, s: Term, act: Term, rec_digest: Term) -> Term:
    """An activation's grant covers the call: the set's session and the record's digest."""
    covers = alg.and_(
        alg.eq(alg.get(act, "session"), alg.get(s, "session")),
        alg.eq(alg.get(act, "digest"), rec_digest),
    )
    return covers


def digest_checks(
    alg: Algebra, v: Variant, is_core: Term, pin: Term, is_act: Term, act: Term, rec_digest: Term
) -> list[tuple[Term, str]]:
    """Step 2: the pinned (core) or activated digest equals the record's."""
    return [
        (
            alg.and_(is_core, alg.not_(alg.eq(alg.get(pin, "digest"), rec_digest))),
            "SchemaDigestMismatch",
        ),
        (
            alg.and_(is_act, alg.not_(alg.eq(alg.get(act, "digest"), rec_digest))),
            "SchemaDigestMismatch",
        ),
    ]


def trust_checks(alg: Algebra, v: Variant, trust: Term) -> list[tuple[Term, str]]:
    """Step 4: the record's source is trusted."""
    return [
        (alg.eq(trust, alg.trust("untrusted")), "UntrustedSource"),
        (alg.eq(trust, alg.trust("mismatch")), "SourceProvenanceMismatch"),
    ]


def authorize(alg: Algebra, v: Variant, st: State, name: Term, tool: Term) -> Result:
    """Authorize a call of ``tool`` through set ``name``; basis core or exact(grant generation)."""
    s = alg.select(st.sets, name)
    rec = alg.select(st.catalog, tool)
    pin = alg.select(alg.get(s, "core"), tool)
    act = alg.select(alg.get(s, "acts"), tool)
    is_core = alg.is_some(pin)
    is_act = alg.and_(alg.not_(is_core), alg.is_some(act))
    rec_digest = alg.get(rec, "digest")
    # read only where is_act holds
    covers = guarded(alg, alg.is_some(act), lambda: grant_covers(alg, v, st, s, act, rec_digest))
    pinned_prov = alg.ite(is_core, alg.get(pin, "prov"), alg.get(act, "prov"))

    checks: list[tuple[Term, str]] = [(alg.not_(alg.is_some(rec)), "NotCataloged")]
    if v.profile == "generation-strict":
        checks.append((alg.not_(alg.eq(alg.get(s, "catgen"), st.gen)), "StaleSet"))
    checks.extend(digest_checks(alg, v, is_core, pin, is_act, act, rec_digest))
    checks.append((alg.and_(is_act, alg.not_(covers)), "NotActivated"))
    checks.append((alg.and_(alg.not_(is_core), alg.not_(is_act)), "NotActivated"))
    if v.profile != "per-tool-digest":
        checks.append(
            (alg.not_(alg.eq(pinned_prov, alg.get(rec, "prov"))), "SourceProvenanceMismatch")
        )
    checks.extend(trust_checks(alg, v, alg.get(rec, "trust")))
    code = first_failure(alg, [(c, f"ToolAuthorizationError.{n}") for c, n in checks])
    ok = is_ok(alg, code)

    bumped = alg.store(st.calls, tool, alg.add(alg.select(st.calls, tool), alg.int_(1)))
    post = State(st.catalog, st.gen, alg.ite(ok, bumped, st.calls), st.sets)
    return Result(
        code,
        post,
        {"tool": tool, "basis_core": is_core, "basis_gen": alg.get(act, "gen")},
    )


# The helpers a variant may replace (`profiles.seam`).
grant_covers = seam(grant_covers)
digest_checks = seam(digest_checks)
trust_checks = seam(trust_checks)
authorize = seam(authorize)
