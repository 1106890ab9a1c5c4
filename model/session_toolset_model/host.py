"""SPEC.md section 5: host entry points (issuance, user and model-initiated activation, routing).

Issuance is pure.  `activate_exact_for_user` and `activate_model_initiated` compose issuance and
`activate_many`, wrapping their errors (`HostActivationError.Issuance.*` / `.Bulk.*`).  The
authority value is a transition argument supplied by the host, never derived from tool input.
"""

from __future__ import annotations

from .algebra import Algebra, Term, first_failure
from .outcomes import BULK, ISSUANCE, wrap
from .profiles import Variant, seam
from .sets import activate_many, default_core, fresh_set, put_fresh, stale
from .state import Result, State, choose, is_ok


def issuance_trust_checks(alg: Algebra, v: Variant, trust: Term) -> list[tuple[Term, str]]:
    """Issuance refuses a record whose source is not trusted."""
    return [
        (alg.eq(trust, alg.trust("untrusted")), "UntrustedSource"),
        (alg.eq(trust, alg.trust("mismatch")), "SourceProvenanceMismatch"),
    ]


def issuance_check(alg: Algebra, v: Variant, st: State, tool: Term) -> Term:
    """`issue_exact_grant` checks: UnknownTool, then source trust."""
    rec = alg.select(st.catalog, tool)
    checks = [
        (alg.not_(alg.is_some(rec)), "UnknownTool"),
        *issuance_trust_checks(alg, v, alg.get(rec, "trust")),
    ]
    return first_failure(alg, [(c, f"GrantIssuanceError.{n}") for c, n in checks])


def grant_for(alg: Algebra, st: State, session: Term, tool: Term) -> Term:
    """The grant issuance produces: current generation and current digest."""
    rec = alg.select(st.catalog, tool)
    return alg.some("grant", session=session, tool=tool, gen=st.gen, digest=alg.get(rec, "digest"))


def issue_exact_grant(alg: Algebra, v: Variant, st: State, session: Term, tool: Term) -> Result:
    """`issue_exact_grant(catalog, session, id)`: pure (no factory call, no set mutation)."""
    code = issuance_check(alg, v, st, tool)
    grant = grant_for(alg, st, session, tool)
    return Result(code, st, {"tool": tool, "grant": grant, "generation": st.gen})


def user_issuance_error(alg: Algebra, v: Variant, code: Term) -> Term:
    """An issuance error of `activate_exact_for_user`, as `HostActivationError.Issuance.*`."""
    return wrap(alg, code, "HostActivationError.Issuance", ISSUANCE)


def activate_exact_for_user(alg: Algebra, v: Variant, st: State, name: Term, tool: Term) -> Result:
    """Issue a grant for the set's session, then `activate_many([grant])`."""
    session = alg.get(alg.select(st.sets, name), "session")
    issued = issue_exact_grant(alg, v, st, session, tool)
    bulk = activate_many(alg, v, st, name, alg.seq_const((issued.extras["grant"],)))
    iss_ok = is_ok(alg, issued.code)
    iss_code = user_issuance_error(alg, v, issued.code)
    code = alg.ite(
        iss_ok,
        wrap(alg, bulk.code, "HostActivationError.Bulk", BULK),
        iss_code,
    )
    post = choose(alg, iss_ok, bulk.state, issued.state)
    payload = dict(bulk.extras)
    payload["tool"] = tool
    return Result(code, post, payload)


def confirmation_refused(alg: Algebra, v: Variant, confirmed: Term) -> Term:
    """Model-initiated activation is refused unless the host's authority value confirms it."""
    return alg.not_(confirmed)


def issuance_failed_state(
    alg: Algebra, v: Variant, st: State, name: Term, grants: Term, k: Term
) -> State:
    """The world after grant ``k`` of a model-initiated request failed issuance: unchanged."""
    return st


def activate_model_initiated(
    alg: Algebra, v: Variant, st: State, confirmed: Term, name: Term, tools: Term
) -> Result:
    """`activate_model_initiated(authority, set, catalog, ids)`: authority first, then issue all
    grants in request order (first failure: Issuance, nothing applied), then `activate_many`."""
    session = alg.get(alg.select(st.sets, name), "session")
    n = alg.seq_len(tools)
    k = alg.first_index(
        n, lambda i: alg.not_(is_ok(alg, issuance_check(alg, v, st, alg.seq_at(tools, i))))
    )
    iss_failed = alg.lt(k, n)
    grants = alg.seq_map(tools, lambda t: grant_for(alg, st, session, t))
    bulk = activate_many(alg, v, st, name, grants)
    refused = confirmation_refused(alg, v, confirmed)
    iss_code = wrap(
        alg,
        issuance_check(alg, v, st, alg.seq_at(tools, k)),
        "HostActivationError.Issuance",
        ISSUANCE,
    )
    code = alg.ite(
        refused,
        alg.code("HostActivationError.ConfirmationRequired"),
        alg.ite(iss_failed, iss_code, wrap(alg, bulk.code, "HostActivationError.Bulk", BULK)),
    )
    on_failed_issuance = issuance_failed_state(alg, v, st, name, grants, k)
    post = choose(alg, refused, st, choose(alg, iss_failed, on_failed_issuance, bulk.state))
    payload = dict(bulk.extras)
    payload["tool"] = alg.ite(iss_failed, alg.seq_at(tools, k), bulk.extras["tool"])
    return Result(code, post, payload)


def route_fallback_core(alg: Algebra, v: Variant, st: State) -> Term:
    """The core of the set routing builds when no set is retained: the default core."""
    return default_core(alg, v, st)


def routed_copy(alg: Algebra, v: Variant, st: State, retained: Term, into: Term) -> Term:
    """The set routing stores under ``into`` when one is retained: that set, as is."""
    return alg.select(st.sets, retained)


def route_session_set(
    alg: Algebra,
    v: Variant,
    st: State,
    has_retained: Term,
    retained: Term,
    into: Term,
    fallback_session: Term,
) -> Result:
    """`route_session_set`: a copy of the retained set as is, else a fresh default-core set."""
    fallback = fresh_set(alg, v, st, into, fallback_session, route_fallback_core(alg, v, st))
    kept = routed_copy(alg, v, st, retained, into)
    routed = alg.ite(has_retained, kept, fallback)
    post = choose(
        alg,
        has_retained,
        State(st.catalog, st.gen, st.calls, alg.store(st.sets, into, routed)),
        put_fresh(alg, v, st, into, fallback, alg.bool_(True)),
    )
    return Result(alg.code("ok"), post, {"stale": stale(alg, v, st, routed)})


# The helpers a variant may replace (`profiles.seam`).
issuance_trust_checks = seam(issuance_trust_checks)
issue_exact_grant = seam(issue_exact_grant)
user_issuance_error = seam(user_issuance_error)
confirmation_refused = seam(confirmation_refused)
issuance_failed_state = seam(issuance_failed_state)
route_fallback_core = seam(route_fallback_core)
routed_copy = seam(routed_copy)
route_session_set = seam(route_session_set)
