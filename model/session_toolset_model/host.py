"""SPEC.md section 5: host entry points (issuance, user and model-initiated activation, routing).

Issuance is pure.  `activate_exact_for_user` and `activate_model_initiated` compose issuance and
`activate_many`, wrapping their errors (`HostActivationError.Issuance.*` / `.Bulk.*`).  The
authority value is a transition argument supplied by the host, never derived from tool input.
"""

from __future__ import annotations

from .algebra import Algebra, Term, first_failure, when
from .outcomes import BULK, ISSUANCE, wrap
from .profiles import Variant
from .sets import activate_many, default_core, fresh_set, progressive_core, put_fresh, stale
from .state import Result, State, choose, is_ok


def issuance_check(alg: Algebra, v: Variant, st: State, tool: Term) -> Term:
    """`issue_exact_grant` checks: UnknownTool, then source trust."""
    rec = alg.select(st.catalog, tool)
    trust = alg.get(rec, "trust")
    untrusted = "SourceProvenanceMismatch" if v.has("issuance_untrusted_as_mismatch") else None
    return first_failure(
        alg,
        [
            (alg.not_(alg.is_some(rec)), "GrantIssuanceError.UnknownTool"),
            (
                alg.eq(trust, alg.trust("untrusted")),
                f"GrantIssuanceError.{untrusted or 'UntrustedSource'}",
            ),
            (alg.eq(trust, alg.trust("mismatch")), "GrantIssuanceError.SourceProvenanceMismatch"),
        ],
    )


def grant_for(alg: Algebra, st: State, session: Term, tool: Term) -> Term:
    """The grant issuance produces: current generation and current digest."""
    rec = alg.select(st.catalog, tool)
    return alg.some("grant", session=session, tool=tool, gen=st.gen, digest=alg.get(rec, "digest"))


def issue_exact_grant(alg: Algebra, v: Variant, st: State, session: Term, tool: Term) -> Result:
    """`issue_exact_grant(catalog, session, id)`: pure (no factory call, no set mutation)."""
    code = issuance_check(alg, v, st, tool)
    post = st
    if v.has("issue_grant_calls_factory"):
        present = alg.is_some(alg.select(st.catalog, tool))
        bumped = alg.store(st.calls, tool, alg.add(alg.select(st.calls, tool), alg.int_(1)))
        post = State(st.catalog, st.gen, alg.ite(present, bumped, st.calls), st.sets)
    grant = grant_for(alg, st, session, tool)
    if v.has("issue_grant_next_generation"):
        grant = alg.some(
            "grant",
            session=session,
            tool=tool,
            gen=alg.add(st.gen, alg.int_(1)),
            digest=alg.get(alg.select(st.catalog, tool), "digest"),
        )
    return Result(code, post, {"tool": tool, "grant": grant, "generation": st.gen})


def activate_exact_for_user(alg: Algebra, v: Variant, st: State, name: Term, tool: Term) -> Result:
    """Issue a grant for the set's session, then `activate_many([grant])`."""
    session = alg.get(alg.select(st.sets, name), "session")
    issued = issue_exact_grant(alg, v, st, session, tool)
    bulk = activate_many(alg, v, st, name, alg.seq_const((issued.extras["grant"],)))
    iss_ok = is_ok(alg, issued.code)
    iss_code = wrap(alg, issued.code, "HostActivationError.Issuance", ISSUANCE)
    if v.has("user_issuance_as_bulk"):  # the trust errors, which Bulk also has
        as_bulk = wrap(alg, issued.code, "HostActivationError.Bulk", ISSUANCE[1:])
        iss_code = wrap(alg, as_bulk, "HostActivationError.Issuance", ISSUANCE[:1])
    code = alg.ite(
        iss_ok,
        wrap(alg, bulk.code, "HostActivationError.Bulk", BULK),
        iss_code,
    )
    post = choose(alg, iss_ok, bulk.state, issued.state)
    payload = dict(bulk.extras)
    payload["tool"] = tool
    return Result(code, post, payload)


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
    refused = alg.bool_(False) if v.has("unauthorized_model_activates") else alg.not_(confirmed)
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
    on_failed_issuance = st
    if v.has("model_issuance_partial"):
        on_failed_issuance = activate_many(alg, v, st, name, alg.seq_prefix(grants, k)).state
    post = choose(alg, refused, st, choose(alg, iss_failed, on_failed_issuance, bulk.state))
    payload = dict(bulk.extras)
    payload["tool"] = alg.ite(iss_failed, alg.seq_at(tools, k), bulk.extras["tool"])
    return Result(code, post, payload)


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
    if v.has("route_fallback_progressive"):
        core = progressive_core(alg, st)
    else:
        core = default_core(alg, v, st)
    fallback = fresh_set(alg, v, st, into, fallback_session, core)
    if v.has("route_fresh_when_retained"):
        has_retained = alg.bool_(False)
    kept = alg.select(st.sets, retained)
    if v.has("route_keeps_target_set"):
        target = alg.select(st.sets, into)

        def same_session() -> Term:
            return alg.eq(alg.get(target, "session"), alg.get(kept, "session"))

        reuse = when(alg, alg.is_some(target), same_session, alg.bool_(False))
        kept = alg.ite(reuse, target, kept)
    routed = alg.ite(has_retained, kept, fallback)
    post = choose(
        alg,
        has_retained,
        State(st.catalog, st.gen, st.calls, alg.store(st.sets, into, routed)),
        put_fresh(alg, v, st, into, fallback, alg.bool_(True)),
    )
    return Result(alg.code("ok"), post, {"stale": stale(alg, v, st, routed)})
