"""SPEC.md section 3: SessionToolSet construction, staleness, activation, revocation, rebuild.

Sets are named (any number of them).  A transition on set ``s`` writes only ``s`` (or ``into``);
that is the frame the proofs check.  Batches (`activate_many`) are sequences of unbounded length:
the first failing index is `Algebra.first_index`, the in-batch duplicate check compares a grant's
index with the first occurrence of its tool, and a successful batch is applied as one map update
with exactly one schema_generation advance.
"""

from __future__ import annotations

from collections.abc import Callable

from .algebra import Algebra, Term, chain, first_failure, seq_contains, when
from .outcomes import ACTIVATION, wrap
from .profiles import Variant
from .state import Result, State, choose, is_ok


def make_set(
    alg: Algebra, session: Term, catgen: Term, schemagen: Term, core: Term, acts: Term
) -> Term:
    return alg.some(
        "set", session=session, catgen=catgen, schemagen=schemagen, core=core, acts=acts
    )


def with_fields(alg: Algebra, s: Term, **changes: Term) -> Term:
    """A copy of set ``s`` with some fields replaced."""
    names = ("session", "catgen", "schemagen", "core", "acts")
    return alg.some("set", **{n: changes.get(n, alg.get(s, n)) for n in names})


def pin_of(alg: Algebra, rec: Term) -> Term:
    return alg.some("pin", digest=alg.get(rec, "digest"), prov=alg.get(rec, "prov"))


def default_core(alg: Algebra, v: Variant, st: State) -> Term:
    """Core of `default_core_for_catalog`: every record whose provenance is not Unverified."""
    keep = _verified(alg, v)
    return alg.update_map(
        alg.empty_map("pin"),
        alg.keys(st.catalog),
        lambda t, old: _pin_if(alg, st, t, old, keep),
    )


def progressive_core(alg: Algebra, st: State) -> Term:
    """Core of `progressive_core_for_catalog`: the fixed progressive list, where cataloged."""
    return alg.update_map(
        alg.empty_map("pin"),
        alg.keys(st.catalog),
        lambda t, old: _pin_if(alg, st, t, old, lambda _r: alg.progressive(t)),
    )


def _pin_if(alg: Algebra, st: State, t: Term, old: Term, cond: Callable[[Term], Term]) -> Term:
    rec = alg.select(st.catalog, t)
    keep = alg.and_(alg.is_some(rec), cond(alg.get(rec, "prov")))
    return alg.ite(keep, pin_of(alg, rec), old)


def _verified(alg: Algebra, v: Variant) -> Callable[[Term], Term]:
    """The default-core filter: not Unverified (the `default_core_includes_unverified` mutant)."""
    if v.has("default_core_includes_unverified"):
        return lambda _r: alg.bool_(True)
    return lambda r: alg.not_(alg.unverified(r))


def fresh_set(alg: Algebra, v: Variant, st: State, name: Term, session: Term, core: Term) -> Term:
    """A new set: zero activations, schema_generation 0, pinned to the current generation."""
    acts = alg.empty_map("act")
    if v.has("fresh_set_inherits"):
        old = alg.select(st.sets, name)
        acts = alg.ite(alg.is_some(old), alg.get(old, "acts"), acts)
    return make_set(alg, session, st.gen, alg.int_(0), core, acts)


def put_fresh(alg: Algebra, v: Variant, st: State, name: Term, value: Term, when: Term) -> State:
    """Store a freshly built set under ``name`` (the `one_set_per_session` mutant drops others)."""
    post = _put(alg, st, name, value, when)
    if v.has("one_set_per_session"):
        session = alg.get(value, "session")
        sets = alg.update_map(
            post.sets,
            alg.keys(post.sets),
            lambda n, o: alg.ite(
                alg.and_(
                    when,
                    alg.not_(alg.eq(n, name)),
                    alg.is_some(o),
                    alg.eq(alg.get(o, "session"), session),
                ),
                alg.none("set"),
                o,
            ),
        )
        post = State(post.catalog, post.gen, post.calls, sets)
    return post


def _put(alg: Algebra, st: State, name: Term, value: Term, when: Term) -> State:
    return State(
        st.catalog, st.gen, st.calls, alg.ite(when, alg.store(st.sets, name, value), st.sets)
    )


def new(alg: Algebra, v: Variant, st: State, name: Term, session: Term, core_ids: Term) -> Result:
    """`new(session, core_ids, catalog)`: the first unknown core id fails UnknownCoreTool."""
    n = alg.seq_len(core_ids)
    k = alg.first_index(
        n, lambda i: alg.not_(alg.is_some(alg.select(st.catalog, alg.seq_at(core_ids, i))))
    )
    code = first_failure(alg, [(alg.lt(k, n), "SessionToolSetError.UnknownCoreTool")])
    payload = {"tool": alg.seq_at(core_ids, k)}
    if v.has("set_new_core_skips_last"):
        core_ids = alg.seq_prefix(core_ids, alg.sub(n, alg.int_(1)))
    core = alg.update_map(
        alg.empty_map("pin"),
        alg.seq_keys(core_ids, "self"),
        lambda t, old: alg.ite(
            alg.and_(
                seq_contains(alg, core_ids, "self", t), alg.is_some(alg.select(st.catalog, t))
            ),
            pin_of(alg, alg.select(st.catalog, t)),
            old,
        ),
    )
    when = alg.bool_(True) if v.has("set_new_partial") else is_ok(alg, code)
    post = put_fresh(alg, v, st, name, fresh_set(alg, v, st, name, session, core), when)
    return Result(code, post, payload)


def new_default_core(alg: Algebra, v: Variant, st: State, name: Term, session: Term) -> Result:
    """`default_core_for_catalog(session, catalog)` stored under ``name``."""
    value = fresh_set(alg, v, st, name, session, default_core(alg, v, st))
    return Result(alg.code("ok"), put_fresh(alg, v, st, name, value, alg.bool_(True)))


def new_progressive_core(alg: Algebra, v: Variant, st: State, name: Term, session: Term) -> Result:
    """`progressive_core_for_catalog(session, catalog)` stored under ``name``."""
    if v.has("progressive_core_is_default"):
        core = default_core(alg, v, st)
    else:
        core = progressive_core(alg, st)
    value = fresh_set(alg, v, st, name, session, core)
    return Result(alg.code("ok"), put_fresh(alg, v, st, name, value, alg.bool_(True)))


def stale(alg: Algebra, v: Variant, st: State, s: Term) -> Term:
    """`is_stale(catalog)` <=> set generation != catalog generation."""
    catgen = alg.get(s, "catgen")
    if v.has("stale_off_by_one"):
        return alg.lt(alg.add(catgen, alg.int_(1)), st.gen)
    return alg.not_(alg.eq(catgen, st.gen))


def is_stale(alg: Algebra, v: Variant, st: State, name: Term) -> Result:
    """Read-only staleness query (the `is_stale_absorbs` mutant writes)."""
    s = alg.select(st.sets, name)
    post = st
    if v.has("is_stale_absorbs"):
        post = _put(alg, st, name, with_fields(alg, s, catgen=st.gen), alg.bool_(True))
    return Result(alg.code("ok"), post, {"stale": stale(alg, v, st, s)})


def activation_check(
    alg: Algebra, v: Variant, st: State, s: Term, grant: Term, batch: Term | None = None
) -> Term:
    """The `activate` validation, in SPEC.md order; an `ActivationError.*` code or ok.
    ``batch`` is the length of the batch the grant is checked in (`activate_many`), read only
    by the `bulk_already_activated_session_wide` mutant."""
    tool = alg.get(grant, "tool")
    rec = alg.select(st.catalog, tool)
    checks: list[tuple[Term, str]] = []
    if not v.has("no_session_check"):
        checks.append(
            (alg.not_(alg.eq(alg.get(grant, "session"), alg.get(s, "session"))), "SessionMismatch")
        )
    checks.append((alg.not_(alg.is_some(rec)), "UnknownTool"))
    if not v.has("activate_skips_generation"):
        checks.append((alg.not_(alg.eq(alg.get(grant, "gen"), st.gen)), "StaleGeneration"))
    checks.append(
        (alg.not_(alg.eq(alg.get(grant, "digest"), alg.get(rec, "digest"))), "DigestMismatch")
    )
    if not v.has("activate_skips_generation"):
        checks.append((alg.not_(alg.eq(alg.get(s, "catgen"), st.gen)), "StaleSnapshot"))
    already = alg.is_some(alg.select(alg.get(s, "acts"), tool))
    if v.has("already_activated_session_wide"):
        already = alg.or_(already, session_wide(alg, st, s, "acts", tool))
    if v.has("bulk_already_activated_session_wide") and batch is not None:
        wide = alg.and_(alg.lt(alg.int_(1), batch), session_wide(alg, st, s, "acts", tool))
        already = alg.or_(already, wide)
    checks.append((already, "AlreadyActivated"))
    if not v.has("core_activation_overlap"):
        checks.append((alg.is_some(alg.select(alg.get(s, "core"), tool)), "AlreadyCore"))
    return first_failure(alg, [(c, f"ActivationError.{n}") for c, n in checks])


def session_wide(alg: Algebra, st: State, s: Term, part: str, tool: Term) -> Term:
    """Whether some set of ``s``'s session has ``tool`` in its ``part`` (core or acts): the
    lookup the session-wide mutants wrongly add (a set depends only on itself, SPEC.md §6)."""

    def holds(n: Term) -> Term:
        o = alg.select(st.sets, n)
        return alg.and_(
            alg.is_some(o),
            alg.eq(alg.get(o, "session"), alg.get(s, "session")),
            alg.is_some(alg.select(alg.get(o, part), tool)),
        )

    return alg.exists(alg.keys(st.sets), "setname", holds)


def activation_of(alg: Algebra, st: State, grant: Term) -> Term:
    """The recorded activation: the grant plus the record's current provenance."""
    rec = alg.select(st.catalog, alg.get(grant, "tool"))
    return alg.some(
        "act",
        session=alg.get(grant, "session"),
        gen=alg.get(grant, "gen"),
        digest=alg.get(grant, "digest"),
        prov=alg.get(rec, "prov"),
    )


def _write(
    alg: Algebra, v: Variant, st: State, name: Term, when: Term, change: Callable[[Term], Term]
) -> State:
    """Replace set ``name`` by ``change(set)`` when ``when`` (frame: no other set is written)."""
    target = alg.select(st.sets, name)
    if v.has("activation_by_session"):
        sets = alg.update_map(
            st.sets,
            alg.keys(st.sets),
            lambda n, o: alg.ite(
                alg.and_(
                    when,
                    alg.is_some(o),
                    alg.or_(
                        alg.eq(n, name),
                        alg.eq(alg.get(o, "session"), alg.get(target, "session")),
                    ),
                ),
                change(o),
                o,
            ),
        )
        return State(st.catalog, st.gen, st.calls, sets)
    return _put(alg, st, name, change(target), when)


def activate(alg: Algebra, v: Variant, st: State, name: Term, grant: Term) -> Result:
    """`activate(grant, catalog)`: validate, record, advance schema_generation by one."""
    s = alg.select(st.sets, name)
    code = activation_check(alg, v, st, s, grant)
    ok = is_ok(alg, code)
    tool = alg.get(grant, "tool")
    act = activation_of(alg, st, grant)

    def change(o: Term) -> Term:
        return with_fields(
            alg,
            o,
            acts=alg.store(alg.get(o, "acts"), tool, act),
            schemagen=advance_schemagen(
                alg,
                v,
                alg.get(o, "schemagen"),
                alg.int_(0 if v.has("activate_keeps_schemagen") else 1),
            ),
        )

    post = _write(alg, v, st, name, ok, change)
    if v.has("activate_bumps_before_validate"):
        bumped = with_fields(alg, s, schemagen=alg.add(alg.get(s, "schemagen"), alg.int_(1)))
        post = choose_sets(alg, ok, post, _put(alg, st, name, bumped, alg.bool_(True)))
    return Result(code, post, _grant_payload(alg, st, s, grant))


def advance_schemagen(alg: Algebra, v: Variant, old: Term, step: Term) -> Term:
    """schema_generation after an activation (the `activate_resets_schemagen` mutant)."""
    if v.has("activate_resets_schemagen"):
        return alg.ite(alg.eq(step, alg.int_(0)), old, alg.int_(1))
    return alg.add(old, step)


def choose_sets(alg: Algebra, cond: Term, a: State, b: State) -> State:
    return State(a.catalog, a.gen, a.calls, alg.ite(cond, a.sets, b.sets))


def _grant_payload(alg: Algebra, st: State, s: Term, grant: Term) -> dict[str, Term]:
    return {
        "tool": alg.get(grant, "tool"),
        "grant": alg.get(grant, "gen"),
        "catalog": st.gen,
        "set": alg.get(s, "catgen"),
    }


def batch_error(alg: Algebra, v: Variant, st: State, s: Term, grants: Term, i: Term) -> Term:
    """The `BulkActivationError.*` code of grant ``i`` (ok when it passes)."""
    g = alg.seq_at(grants, i)
    tool = alg.get(g, "tool")
    dup = alg.lt(alg.seq_first_index(grants, "tool", tool), i)
    inner = activation_check(alg, v, st, s, g, alg.seq_len(grants))
    trust = alg.get(alg.select(st.catalog, tool), "trust")
    return chain(
        alg,
        [
            (dup, alg.code("BulkActivationError.DuplicateRequest")),
            (
                alg.not_(is_ok(alg, inner)),
                wrap(alg, inner, "BulkActivationError.Grant", ACTIVATION),
            ),
            (
                alg.eq(trust, alg.trust("untrusted")),
                alg.code("BulkActivationError.UntrustedSource"),
            ),
            (
                alg.eq(trust, alg.trust("mismatch")),
                alg.code("BulkActivationError.SourceProvenanceMismatch"),
            ),
        ],
        alg.code("ok"),
    )


def activate_many(alg: Algebra, v: Variant, st: State, name: Term, grants: Term) -> Result:
    """`activate_many(grants, catalog)`: all or nothing, one schema_generation advance."""
    s = alg.select(st.sets, name)
    n = alg.seq_len(grants)
    k = alg.first_index(n, lambda i: alg.not_(is_ok(alg, batch_error(alg, v, st, s, grants, i))))
    failed = alg.lt(k, n)
    code = alg.ite(failed, batch_error(alg, v, st, s, grants, k), alg.code("ok"))
    nonempty = alg.lt(alg.int_(0), n)

    def applied(upto: Term) -> Callable[[Term], Term]:
        def change(o: Term) -> Term:
            acts = alg.update_map(
                alg.get(o, "acts"),
                alg.seq_keys(grants, "tool"),
                lambda t, old: alg.ite(
                    alg.and_(
                        seq_contains(alg, grants, "tool", t),
                        alg.lt(alg.seq_first_index(grants, "tool", t), upto),
                    ),
                    activation_of(
                        alg, st, alg.seq_at(grants, alg.seq_first_index(grants, "tool", t))
                    ),
                    old,
                ),
            )
            if v.has("batch_replaces_activations"):
                acts = alg.update_map(
                    acts,
                    alg.keys(alg.get(o, "acts")),
                    lambda t, a: alg.ite(seq_contains(alg, grants, "tool", t), a, alg.none("act")),
                )
            one = alg.ite(nonempty, alg.int_(1), alg.int_(0))
            step = n if v.has("schema_gen_per_grant") else one
            schemagen = advance_schemagen(alg, v, alg.get(o, "schemagen"), step)
            return with_fields(alg, o, acts=acts, schemagen=schemagen)

        return change

    post = _write(alg, v, st, name, alg.and_(alg.not_(failed), nonempty), applied(n))
    if v.has("batch_partial"):
        partial = _write(alg, v, st, name, alg.lt(alg.int_(0), k), applied(k))
        post = choose_sets(alg, failed, partial, post)
    if v.has("batch_bumps_before_validate"):
        bumped = with_fields(alg, s, schemagen=alg.add(alg.get(s, "schemagen"), alg.int_(1)))
        post = choose_sets(alg, failed, _put(alg, st, name, bumped, nonempty), post)
    payload = _grant_payload(alg, st, s, alg.seq_at(grants, k))
    payload["applied"] = n
    return Result(code, post, payload)


def revoke_exact(alg: Algebra, v: Variant, st: State, name: Term, tool: Term) -> Result:
    """`revoke_exact(id)`: CoreTool, then NotActivated; else remove and advance by one."""
    s = alg.select(st.sets, name)
    in_core = alg.is_some(alg.select(alg.get(s, "core"), tool))
    if v.has("revoke_core_session_wide"):
        in_core = alg.or_(in_core, session_wide(alg, st, s, "core", tool))
    checks = [
        (in_core, "ExactRevocationError.CoreTool"),
        (
            alg.not_(alg.is_some(alg.select(alg.get(s, "acts"), tool))),
            "ExactRevocationError.NotActivated",
        ),
    ]
    if v.has("revoke_checks_activation_first"):
        checks.reverse()
    code = first_failure(alg, checks)
    ok = is_ok(alg, code)
    delta = alg.int_(-1 if v.has("revoke_decrements") else 1)
    if v.has("revoke_keeps_schemagen"):
        delta = alg.int_(0)

    def change(o: Term) -> Term:
        return with_fields(
            alg,
            o,
            acts=alg.store(alg.get(o, "acts"), tool, alg.none("act")),
            schemagen=alg.add(alg.get(o, "schemagen"), delta),
        )

    post = _write(alg, v, st, name, ok, change)
    if v.has("revoke_bumps_on_reject"):
        bumped = with_fields(alg, s, schemagen=alg.add(alg.get(s, "schemagen"), alg.int_(1)))
        post = choose_sets(alg, ok, post, _put(alg, st, name, bumped, alg.bool_(True)))
    return Result(code, post, {"tool": tool})


def still_matches(alg: Algebra, v: Variant, rec: Term, act: Term) -> Term:
    """A rebuild carries an activation only if its record is present, unchanged and trusted
    (the record's fields are compared only when it is present: `algebra.when`)."""

    def unchanged_and_trusted() -> Term:
        same_prov = alg.eq(alg.get(rec, "prov"), alg.get(act, "prov"))
        return alg.and_(
            alg.eq(alg.get(rec, "digest"), alg.get(act, "digest")),
            alg.bool_(True) if v.has("rebuild_ignores_provenance") else same_prov,
            alg.eq(alg.get(rec, "trust"), alg.trust("trusted")),
        )

    return when(alg, alg.is_some(rec), unchanged_and_trusted, alg.bool_(False))


def rebuilt_for_catalog(
    alg: Algebra,
    v: Variant,
    st: State,
    name: Term,
    into: Term,
    progressive: Term,
    carry_forward: Term,
) -> Result:
    """`rebuilt_for_catalog(catalog, progressive)` stored under ``into`` (the old set untouched).

    With carry-forward off the result is exactly a fresh default/progressive build (zero
    inheritance, schema_generation 0, nothing reported dropped).
    """
    old = alg.select(st.sets, name)
    core = alg.ite(progressive, progressive_core(alg, st), default_core(alg, v, st))
    if v.has("rebuild_core_always_default"):
        core = default_core(alg, v, st)
    old_acts = alg.get(old, "acts")
    cands = alg.keys(old_acts)

    def drop_reason(t: Term) -> Term:
        act = alg.select(old_acts, t)
        rec = alg.select(st.catalog, t)
        removed = alg.reason("drifted" if v.has("rebuild_wrong_reason") else "removed")
        return alg.ite(
            alg.and_(alg.is_some(act), alg.not_(alg.is_some(alg.select(core, t)))),
            alg.ite(
                alg.not_(alg.is_some(rec)),
                removed,
                alg.ite(still_matches(alg, v, rec, act), alg.reason("none"), alg.reason("drifted")),
            ),
            alg.reason("none"),
        )

    def carried(t: Term, _old: Term) -> Term:
        act = alg.select(old_acts, t)
        keep = alg.and_(
            alg.is_some(act),
            alg.not_(alg.is_some(alg.select(core, t))),
            still_matches(alg, v, alg.select(st.catalog, t), act),
        )
        regranted = alg.some(
            "act",
            session=alg.get(act, "session"),
            gen=st.gen,
            digest=alg.get(act, "digest"),
            prov=alg.get(act, "prov"),
        )
        return alg.ite(keep, regranted, alg.none("act"))

    dropped = alg.update_map(alg.empty_map("reason"), cands, lambda t, _o: drop_reason(t))
    any_drop = alg.exists_key(
        cands, "tool", lambda t: alg.not_(alg.eq(drop_reason(t), alg.reason("none")))
    )
    # A mutant's branch is taken in Python, not inside an algebra condition: the condition
    # coverage gate records every operand the model evaluates, and a mutant-only operand would
    # be an outcome no SPEC-conforming run can reach.
    advances = alg.bool_(True) if v.has("rebuild_schemagen_always_advances") else any_drop
    counted_from = alg.get(old, "schemagen")
    if v.has("rebuild_resets_schemagen"):
        counted_from = alg.int_(0)
    if v.has("rebuild_schemagen_from_target"):
        target = alg.select(st.sets, into)
        counted_from = when(
            alg, alg.is_some(target), lambda: alg.get(target, "schemagen"), counted_from
        )
    kept = make_set(
        alg,
        alg.get(old, "session"),
        st.gen,
        alg.add(
            counted_from,
            alg.ite(advances, alg.int_(1), alg.int_(0)),
        ),
        core,
        alg.update_map(alg.empty_map("act"), cands, carried),
    )
    fresh = fresh_set(alg, v, st, into, alg.get(old, "session"), core)
    sets = st.sets
    if v.has("rebuild_touches_source"):
        bumped = with_fields(alg, old, schemagen=alg.add(alg.get(old, "schemagen"), alg.int_(1)))
        sets = alg.store(sets, name, bumped)
    base = State(st.catalog, st.gen, st.calls, sets)
    post = choose(
        alg,
        carry_forward,
        _put(alg, base, into, kept, alg.bool_(True)),
        put_fresh(alg, v, base, into, fresh, alg.bool_(True)),
    )
    return Result(
        alg.code("ok"),
        post,
        {"dropped": alg.ite(carry_forward, dropped, alg.empty_map("reason"))},
    )
