"""The mutants: deliberate single-rule breakages of the model, each refuted by named obligations.

A mutant replaces one helper of the definition (a `profiles.seam` of the model) by a function
written here with the same signature, through a `Variant`'s overrides; the model itself states
only SPEC.md's rules and knows no mutant.  A replacement that keeps the rest of the rule calls the
definition's own one (`profiles.spec_rule`) and changes one thing.  Every obligation names the
mutants that must refute it (`obligations`), so each mutant shows that some obligation can fail
(non-vacuity); `variant` builds the variant that switches one on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import catalog, gate, host, sets, state, z3_interp
from session_toolset_model.algebra import MAX_GENERATION, Algebra, Term, seq_contains, when
from session_toolset_model.outcomes import ISSUANCE, wrap
from session_toolset_model.profiles import DEFAULT, DEFAULT_PROFILE, Variant, spec_rule
from session_toolset_model.state import Result, State, is_ok

Checks = list[tuple[Term, str]]


# --- section 2: the catalog ---------------------------------------------------------------


def unchecked_generation(alg: Algebra, v: Variant, g: Term) -> tuple[Term, Term]:
    return alg.bool_(False), alg.add(g, alg.int_(1))


def generation_wraps(alg: Algebra, v: Variant, g: Term) -> tuple[Term, Term]:
    top = alg.eq(g, alg.int_(MAX_GENERATION))
    return alg.bool_(False), alg.ite(top, alg.int_(0), alg.add(g, alg.int_(1)))


def checked_next_early(alg: Algebra, v: Variant, g: Term) -> tuple[Term, Term]:
    return alg.le(alg.int_(MAX_GENERATION - 1), g), alg.add(g, alg.int_(1))


def catalog_absorbs_staleness(
    alg: Algebra, v: Variant, st: State, ok: Term, records: Term, nxt: Term
) -> State:
    post = spec_rule(catalog.after_mutation)(alg, v, st, ok, records, nxt)
    refreshed = alg.update_map(
        st.sets,
        alg.keys(st.sets),
        lambda _n, s: alg.ite(
            alg.and_(ok, alg.is_some(s)), sets.with_fields(alg, s, catgen=nxt), s
        ),
    )
    return State(post.catalog, post.gen, post.calls, refreshed)


def insert_forgets_record(
    alg: Algebra, v: Variant, st: State, tool: Term, digest: Term, prov: Term, trust: Term
) -> Result:
    r = spec_rule(catalog.insert)(alg, v, st, tool, digest, prov, trust)
    kept = alg.ite(is_ok(alg, r.code), st.catalog, st.catalog)
    return Result(r.code, replace(r.state, catalog=kept), r.extras)


def insert_dup_overwrites(
    alg: Algebra, v: Variant, st: State, tool: Term, digest: Term, prov: Term, trust: Term
) -> Result:
    r = spec_rule(catalog.insert)(alg, v, st, tool, digest, prov, trust)
    present = alg.is_some(alg.select(st.catalog, tool))
    stored = alg.store(st.catalog, tool, catalog.record(alg, digest, prov, trust))
    return Result(
        r.code, replace(r.state, catalog=alg.ite(present, stored, r.state.catalog)), r.extras
    )


def _upsert_elsewhere(alg: Algebra, has_replaced: Term, replaced: Term, tool: Term) -> Term:
    return when(alg, has_replaced, lambda: alg.not_(alg.eq(replaced, tool)), alg.bool_(True))


def upsert_keeps_replaced(
    alg: Algebra,
    v: Variant,
    st: State,
    has_replaced: Term,
    replaced: Term,
    tool: Term,
    digest: Term,
    prov: Term,
    trust: Term,
) -> Result:
    r = spec_rule(catalog.upsert)(alg, v, st, has_replaced, replaced, tool, digest, prov, trust)
    stored = alg.store(st.catalog, tool, catalog.record(alg, digest, prov, trust))
    kept = alg.ite(is_ok(alg, r.code), stored, st.catalog)
    return Result(r.code, replace(r.state, catalog=kept), r.extras)


def upsert_identical_no_advance(
    alg: Algebra,
    v: Variant,
    st: State,
    has_replaced: Term,
    replaced: Term,
    tool: Term,
    digest: Term,
    prov: Term,
    trust: Term,
) -> Result:
    r = spec_rule(catalog.upsert)(alg, v, st, has_replaced, replaced, tool, digest, prov, trust)
    other = alg.and_(has_replaced, _upsert_elsewhere(alg, has_replaced, replaced, tool))
    identical = alg.and_(
        alg.not_(other),
        alg.eq(alg.select(st.catalog, tool), catalog.record(alg, digest, prov, trust)),
    )
    post = replace(r.state, gen=alg.ite(identical, st.gen, r.state.gen))
    return Result(r.code, post, {**r.extras, "generation": post.gen})


def upsert_drops_before_check(
    alg: Algebra,
    v: Variant,
    st: State,
    has_replaced: Term,
    replaced: Term,
    tool: Term,
    digest: Term,
    prov: Term,
    trust: Term,
) -> Result:
    r = spec_rule(catalog.upsert)(alg, v, st, has_replaced, replaced, tool, digest, prov, trust)
    elsewhere = _upsert_elsewhere(alg, has_replaced, replaced, tool)
    other = alg.and_(has_replaced, elsewhere)
    dup = alg.and_(elsewhere, alg.is_some(alg.select(st.catalog, tool)))
    dropped = alg.ite(other, alg.store(st.catalog, replaced, alg.none("rec")), st.catalog)
    return Result(
        r.code, replace(r.state, catalog=alg.ite(dup, dropped, r.state.catalog)), r.extras
    )


def remove_absent_advances(alg: Algebra, v: Variant, st: State, tool: Term) -> Result:
    r = spec_rule(catalog.remove)(alg, v, st, tool)
    exhausted, nxt = catalog.checked_next(alg, v, st.gen)
    mutate = alg.and_(is_ok(alg, r.code), alg.not_(exhausted))
    removed = alg.store(st.catalog, tool, alg.none("rec"))
    post = catalog.after_mutation(alg, v, st, mutate, removed, nxt)
    return Result(r.code, post, {**r.extras, "generation": post.gen})


def remove_keeps_record(alg: Algebra, v: Variant, st: State, tool: Term) -> Result:
    r = spec_rule(catalog.remove)(alg, v, st, tool)
    mutate = alg.and_(is_ok(alg, r.code), alg.is_some(alg.select(st.catalog, tool)))
    return Result(
        r.code, replace(r.state, catalog=alg.ite(mutate, st.catalog, st.catalog)), r.extras
    )


def remove_before_generation_check(alg: Algebra, v: Variant, st: State, tool: Term) -> Result:
    r = spec_rule(catalog.remove)(alg, v, st, tool)
    present = alg.is_some(alg.select(st.catalog, tool))
    removed = alg.store(st.catalog, tool, alg.none("rec"))
    return Result(
        r.code, replace(r.state, catalog=alg.ite(present, removed, r.state.catalog)), r.extras
    )


def rebase_uses_prior(alg: Algebra, v: Variant, gen: Term, prior: Term) -> Term:
    return prior


def rebase_clears_catalog(alg: Algebra, v: Variant, st: State, prior: Term) -> Result:
    r = spec_rule(catalog.rebase_past)(alg, v, st, prior)
    cleared = alg.ite(is_ok(alg, r.code), alg.empty_map("rec"), st.catalog)
    return Result(r.code, replace(r.state, catalog=cleared), r.extras)


def rebase_to_prior(alg: Algebra, v: Variant, st: State, prior: Term) -> Result:
    r = spec_rule(catalog.rebase_past)(alg, v, st, prior)
    to_prior = alg.and_(is_ok(alg, r.code), alg.lt(st.gen, prior))
    post = replace(r.state, gen=alg.ite(to_prior, prior, r.state.gen))
    return Result(r.code, post, {**r.extras, "generation": post.gen})


def rebase_overflow_sticks(alg: Algebra, v: Variant, st: State, prior: Term) -> Result:
    r = spec_rule(catalog.rebase_past)(alg, v, st, prior)
    overflow, _ = catalog.checked_next(alg, v, catalog.rebase_floor(alg, v, st.gen, prior))
    post = replace(r.state, gen=alg.ite(overflow, alg.int_(MAX_GENERATION), r.state.gen))
    return Result(r.code, post, {**r.extras, "generation": post.gen})


def reset_rewinds_generation(alg: Algebra, v: Variant = DEFAULT) -> State:
    post = spec_rule(state.initial)(alg, v)
    return replace(post, gen=alg.sub(post.gen, alg.int_(1)))


# --- section 3: sets ------------------------------------------------------------------------


def default_core_includes_unverified(alg: Algebra, v: Variant) -> Callable[[Term], Term]:
    return lambda _r: alg.bool_(True)


def fresh_set_inherits(
    alg: Algebra, v: Variant, st: State, name: Term, session: Term, core: Term
) -> Term:
    old = alg.select(st.sets, name)
    acts = alg.ite(alg.is_some(old), alg.get(old, "acts"), alg.empty_map("act"))
    return sets.make_set(alg, session, st.gen, alg.int_(0), core, acts)


def one_set_per_session(
    alg: Algebra, v: Variant, st: State, name: Term, value: Term, cond: Term
) -> State:
    post = spec_rule(sets.put_fresh)(alg, v, st, name, value, cond)
    session = alg.get(value, "session")
    others = alg.update_map(
        post.sets,
        alg.keys(post.sets),
        lambda n, o: alg.ite(
            alg.and_(
                cond,
                alg.not_(alg.eq(n, name)),
                alg.is_some(o),
                alg.eq(alg.get(o, "session"), session),
            ),
            alg.none("set"),
            o,
        ),
    )
    return State(post.catalog, post.gen, post.calls, others)


def set_new_core_skips_last(alg: Algebra, v: Variant, st: State, core_ids: Term) -> Term:
    but_last = alg.seq_prefix(core_ids, alg.sub(alg.seq_len(core_ids), alg.int_(1)))
    return spec_rule(sets.core_pins)(alg, v, st, but_last)


def set_new_partial(
    alg: Algebra, v: Variant, st: State, name: Term, session: Term, core_ids: Term
) -> Result:
    r = spec_rule(sets.new)(alg, v, st, name, session, core_ids)
    value = sets.fresh_set(alg, v, st, name, session, sets.core_pins(alg, v, st, core_ids))
    return Result(r.code, sets.put_fresh(alg, v, st, name, value, alg.bool_(True)), r.extras)


def progressive_core_is_default(
    alg: Algebra, v: Variant, st: State, name: Term, session: Term
) -> Result:
    return sets.new_default_core(alg, v, st, name, session)


def stale_off_by_one(alg: Algebra, v: Variant, st: State, s: Term) -> Term:
    return alg.lt(alg.add(alg.get(s, "catgen"), alg.int_(1)), st.gen)


def is_stale_absorbs(alg: Algebra, v: Variant, st: State, name: Term) -> Result:
    r = spec_rule(sets.is_stale)(alg, v, st, name)
    s = alg.select(st.sets, name)
    post = sets.put(alg, st, name, sets.with_fields(alg, s, catgen=st.gen), alg.bool_(True))
    return Result(r.code, post, r.extras)


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


def _activation_checks(
    alg: Algebra, v: Variant, st: State, s: Term, grant: Term, batch: Term | None
) -> Checks:
    return spec_rule(sets.activation_checks)(alg, v, st, s, grant, batch)


def _without(checks: Checks, *names: str) -> Checks:
    return [(c, n) for c, n in checks if n not in names]


def no_session_check(
    alg: Algebra, v: Variant, st: State, s: Term, grant: Term, batch: Term | None
) -> Checks:
    return _without(_activation_checks(alg, v, st, s, grant, batch), "SessionMismatch")


def activate_skips_generation(
    alg: Algebra, v: Variant, st: State, s: Term, grant: Term, batch: Term | None
) -> Checks:
    checks = _activation_checks(alg, v, st, s, grant, batch)
    return _without(checks, "StaleGeneration", "StaleSnapshot")


def core_activation_overlap(
    alg: Algebra, v: Variant, st: State, s: Term, grant: Term, batch: Term | None
) -> Checks:
    return _without(_activation_checks(alg, v, st, s, grant, batch), "AlreadyCore")


def _also_already(checks: Checks, extra: Callable[[Term], Term]) -> Checks:
    return [(extra(c) if n == "AlreadyActivated" else c, n) for c, n in checks]


def already_activated_session_wide(
    alg: Algebra, v: Variant, st: State, s: Term, grant: Term, batch: Term | None
) -> Checks:
    wide = session_wide(alg, st, s, "acts", alg.get(grant, "tool"))
    return _also_already(
        _activation_checks(alg, v, st, s, grant, batch), lambda c: alg.or_(c, wide)
    )


def bulk_already_activated_session_wide(
    alg: Algebra, v: Variant, st: State, s: Term, grant: Term, batch: Term | None
) -> Checks:
    checks = _activation_checks(alg, v, st, s, grant, batch)
    if batch is None:
        return checks
    wide = session_wide(alg, st, s, "acts", alg.get(grant, "tool"))
    in_bulk = alg.and_(alg.lt(alg.int_(1), batch), wide)
    return _also_already(checks, lambda c: alg.or_(c, in_bulk))


def activation_by_session(
    alg: Algebra, v: Variant, st: State, name: Term, cond: Term, change: Callable[[Term], Term]
) -> State:
    target = alg.select(st.sets, name)
    written = alg.update_map(
        st.sets,
        alg.keys(st.sets),
        lambda n, o: alg.ite(
            alg.and_(
                cond,
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
    return State(st.catalog, st.gen, st.calls, written)


def activate_keeps_schemagen(alg: Algebra, v: Variant, o: Term, tool: Term, act: Term) -> Term:
    return sets.with_fields(
        alg,
        o,
        acts=alg.store(alg.get(o, "acts"), tool, act),
        schemagen=sets.advance_schemagen(alg, v, alg.get(o, "schemagen"), alg.int_(0)),
    )


def activate_resets_schemagen(alg: Algebra, v: Variant, old: Term, step: Term) -> Term:
    return alg.ite(alg.eq(step, alg.int_(0)), old, alg.int_(1))


def _bumped(alg: Algebra, st: State, name: Term) -> Term:
    """Set ``name`` with its schema_generation advanced by one, nothing else changed."""
    s = alg.select(st.sets, name)
    return sets.with_fields(alg, s, schemagen=alg.add(alg.get(s, "schemagen"), alg.int_(1)))


def activate_bumps_before_validate(
    alg: Algebra, v: Variant, st: State, name: Term, grant: Term
) -> Result:
    r = spec_rule(sets.activate)(alg, v, st, name, grant)
    bumped = sets.put(alg, st, name, _bumped(alg, st, name), alg.bool_(True))
    return Result(r.code, sets.choose_sets(alg, is_ok(alg, r.code), r.state, bumped), r.extras)


def batch_replaces_activations(
    alg: Algebra, v: Variant, st: State, o: Term, grants: Term, upto: Term
) -> Term:
    acts = spec_rule(sets.batch_activations)(alg, v, st, o, grants, upto)
    return alg.update_map(
        acts,
        alg.keys(alg.get(o, "acts")),
        lambda t, a: alg.ite(seq_contains(alg, grants, "tool", t), a, alg.none("act")),
    )


def schema_gen_per_grant(alg: Algebra, v: Variant, n: Term) -> Term:
    return n


def batch_partial(alg: Algebra, v: Variant, st: State, name: Term, grants: Term, k: Term) -> State:
    post = spec_rule(sets.batch_post)(alg, v, st, name, grants, k)
    applied = sets.batch_applied(alg, v, st, grants, k)
    partial = sets.write(alg, v, st, name, alg.lt(alg.int_(0), k), applied)
    return sets.choose_sets(alg, alg.lt(k, alg.seq_len(grants)), partial, post)


def batch_bumps_before_validate(
    alg: Algebra, v: Variant, st: State, name: Term, grants: Term, k: Term
) -> State:
    post = spec_rule(sets.batch_post)(alg, v, st, name, grants, k)
    n = alg.seq_len(grants)
    bumped = sets.put(alg, st, name, _bumped(alg, st, name), alg.lt(alg.int_(0), n))
    return sets.choose_sets(alg, alg.lt(k, n), bumped, post)


def revoke_core_session_wide(alg: Algebra, v: Variant, st: State, s: Term, tool: Term) -> Checks:
    (in_core, core_tool), *rest = spec_rule(sets.revocation_checks)(alg, v, st, s, tool)
    return [(alg.or_(in_core, session_wide(alg, st, s, "core", tool)), core_tool), *rest]


def revoke_checks_activation_first(
    alg: Algebra, v: Variant, st: State, s: Term, tool: Term
) -> Checks:
    return spec_rule(sets.revocation_checks)(alg, v, st, s, tool)[::-1]


def _revoked_by(alg: Algebra, o: Term, tool: Term, delta: int) -> Term:
    return sets.with_fields(
        alg,
        o,
        acts=alg.store(alg.get(o, "acts"), tool, alg.none("act")),
        schemagen=alg.add(alg.get(o, "schemagen"), alg.int_(delta)),
    )


def revoke_decrements(alg: Algebra, v: Variant, o: Term, tool: Term) -> Term:
    return _revoked_by(alg, o, tool, -1)


def revoke_keeps_schemagen(alg: Algebra, v: Variant, o: Term, tool: Term) -> Term:
    return _revoked_by(alg, o, tool, 0)


def revoke_bumps_on_reject(alg: Algebra, v: Variant, st: State, name: Term, tool: Term) -> Result:
    r = spec_rule(sets.revoke_exact)(alg, v, st, name, tool)
    bumped = sets.put(alg, st, name, _bumped(alg, st, name), alg.bool_(True))
    return Result(r.code, sets.choose_sets(alg, is_ok(alg, r.code), r.state, bumped), r.extras)


def rebuild_ignores_provenance(alg: Algebra, v: Variant, rec: Term, act: Term) -> Term:
    def unchanged_and_trusted() -> Term:
        return alg.and_(
            alg.eq(alg.get(rec, "digest"), alg.get(act, "digest")),
            alg.bool_(True),
            alg.eq(alg.get(rec, "trust"), alg.trust("trusted")),
        )

    return when(alg, alg.is_some(rec), unchanged_and_trusted, alg.bool_(False))


def rebuild_core_always_default(alg: Algebra, v: Variant, st: State, progressive: Term) -> Term:
    return sets.default_core(alg, v, st)


def rebuild_wrong_reason(
    alg: Algebra, v: Variant, st: State, old_acts: Term, core: Term, t: Term
) -> Term:
    reason = spec_rule(sets.drop_reason)(alg, v, st, old_acts, core, t)
    return alg.ite(alg.eq(reason, alg.reason("removed")), alg.reason("drifted"), reason)


def _one_if(alg: Algebra, cond: Term) -> Term:
    return alg.ite(cond, alg.int_(1), alg.int_(0))


def rebuild_schemagen_always_advances(
    alg: Algebra, v: Variant, st: State, old: Term, into: Term, any_drop: Term
) -> Term:
    return spec_rule(sets.rebuilt_schemagen)(alg, v, st, old, into, alg.bool_(True))


def rebuild_resets_schemagen(
    alg: Algebra, v: Variant, st: State, old: Term, into: Term, any_drop: Term
) -> Term:
    return alg.add(alg.int_(0), _one_if(alg, any_drop))


def rebuild_schemagen_from_target(
    alg: Algebra, v: Variant, st: State, old: Term, into: Term, any_drop: Term
) -> Term:
    target = alg.select(st.sets, into)
    counted_from = when(
        alg, alg.is_some(target), lambda: alg.get(target, "schemagen"), alg.get(old, "schemagen")
    )
    return alg.add(counted_from, _one_if(alg, any_drop))


def rebuild_touches_source(alg: Algebra, v: Variant, st: State, name: Term) -> State:
    old = alg.select(st.sets, name)
    bumped = sets.with_fields(alg, old, schemagen=alg.add(alg.get(old, "schemagen"), alg.int_(1)))
    return State(st.catalog, st.gen, st.calls, alg.store(st.sets, name, bumped))


# --- section 4: the gate --------------------------------------------------------------------


def gate_checks_grant_generation(
    alg: Algebra, v: Variant, st: State, s: Term, act: Term, rec_digest: Term
) -> Term:
    covers = spec_rule(gate.grant_covers)(alg, v, st, s, act, rec_digest)
    return alg.and_(covers, alg.eq(alg.get(act, "gen"), st.gen))


def gate_ignores_digest(
    alg: Algebra, v: Variant, is_core: Term, pin: Term, is_act: Term, act: Term, rec_digest: Term
) -> Checks:
    return []


def gate_ignores_trust(alg: Algebra, v: Variant, trust: Term) -> Checks:
    return []


def _untrusted_as_mismatch(checks: Checks) -> Checks:
    return [(c, "SourceProvenanceMismatch" if n == "UntrustedSource" else n) for c, n in checks]


def gate_untrusted_as_mismatch(alg: Algebra, v: Variant, trust: Term) -> Checks:
    return _untrusted_as_mismatch(spec_rule(gate.trust_checks)(alg, v, trust))


def gate_factory_on_denial(alg: Algebra, v: Variant, st: State, name: Term, tool: Term) -> Result:
    r = spec_rule(gate.authorize)(alg, v, st, name, tool)
    calls_on = alg.or_(is_ok(alg, r.code), alg.is_some(alg.select(st.catalog, tool)))
    bumped = alg.store(st.calls, tool, alg.add(alg.select(st.calls, tool), alg.int_(1)))
    post = State(st.catalog, st.gen, alg.ite(calls_on, bumped, st.calls), r.state.sets)
    return Result(r.code, post, r.extras)


def gate_absorbs_staleness(alg: Algebra, v: Variant, st: State, name: Term, tool: Term) -> Result:
    r = spec_rule(gate.authorize)(alg, v, st, name, tool)
    refreshed = sets.with_fields(alg, alg.select(st.sets, name), catgen=st.gen)
    written = alg.ite(is_ok(alg, r.code), alg.store(st.sets, name, refreshed), st.sets)
    return Result(r.code, State(r.state.catalog, r.state.gen, r.state.calls, written), r.extras)


def gate_basis_always_core(alg: Algebra, v: Variant, st: State, name: Term, tool: Term) -> Result:
    r = spec_rule(gate.authorize)(alg, v, st, name, tool)
    basis_core = alg.or_(r.extras["basis_core"], is_ok(alg, r.code))
    return Result(r.code, r.state, {**r.extras, "basis_core": basis_core})


# --- section 5: the host --------------------------------------------------------------------


def issuance_untrusted_as_mismatch(alg: Algebra, v: Variant, trust: Term) -> Checks:
    return _untrusted_as_mismatch(spec_rule(host.issuance_trust_checks)(alg, v, trust))


def issue_grant_calls_factory(
    alg: Algebra, v: Variant, st: State, session: Term, tool: Term
) -> Result:
    r = spec_rule(host.issue_exact_grant)(alg, v, st, session, tool)
    present = alg.is_some(alg.select(st.catalog, tool))
    bumped = alg.store(st.calls, tool, alg.add(alg.select(st.calls, tool), alg.int_(1)))
    post = State(st.catalog, st.gen, alg.ite(present, bumped, st.calls), st.sets)
    return Result(r.code, post, r.extras)


def issue_grant_next_generation(
    alg: Algebra, v: Variant, st: State, session: Term, tool: Term
) -> Result:
    r = spec_rule(host.issue_exact_grant)(alg, v, st, session, tool)
    grant = alg.some(
        "grant",
        session=session,
        tool=tool,
        gen=alg.add(st.gen, alg.int_(1)),
        digest=alg.get(alg.select(st.catalog, tool), "digest"),
    )
    return Result(r.code, r.state, {**r.extras, "grant": grant})


def user_issuance_as_bulk(alg: Algebra, v: Variant, code: Term) -> Term:
    """The trust errors, which Bulk also has, wrapped as Bulk errors."""
    as_bulk = wrap(alg, code, "HostActivationError.Bulk", ISSUANCE[1:])
    return wrap(alg, as_bulk, "HostActivationError.Issuance", ISSUANCE[:1])


def unauthorized_model_activates(alg: Algebra, v: Variant, confirmed: Term) -> Term:
    return alg.bool_(False)


def model_issuance_partial(
    alg: Algebra, v: Variant, st: State, name: Term, grants: Term, k: Term
) -> State:
    return sets.activate_many(alg, v, st, name, alg.seq_prefix(grants, k)).state


def route_fallback_progressive(alg: Algebra, v: Variant, st: State) -> Term:
    return sets.progressive_core(alg, st)


def route_fresh_when_retained(
    alg: Algebra,
    v: Variant,
    st: State,
    has_retained: Term,
    retained: Term,
    into: Term,
    fallback_session: Term,
) -> Result:
    route = spec_rule(host.route_session_set)
    return route(alg, v, st, alg.bool_(False), retained, into, fallback_session)


def route_keeps_target_set(alg: Algebra, v: Variant, st: State, retained: Term, into: Term) -> Term:
    kept = spec_rule(host.routed_copy)(alg, v, st, retained, into)
    target = alg.select(st.sets, into)

    def same_session() -> Term:
        return alg.eq(alg.get(target, "session"), alg.get(kept, "session"))

    reuse = when(alg, alg.is_some(target), same_session, alg.bool_(False))
    return alg.ite(reuse, target, kept)


# --- the Z3 interpretation's side definitions ---------------------------------------------


_FIRST_INDEX_DEFINITION = spec_rule(z3_interp.first_index_definition)
"""Bound once: the definition's own rule even while a test has swapped the module's helper."""


def z3_first_index_strict(v: Variant, k: Any, n: Any, pred: Callable[[Any], Any]) -> list[Any]:
    lower, _upper, *rest = _FIRST_INDEX_DEFINITION(v, k, n, pred)
    return [lower, k < n, *rest]


def z3_first_occ_any(v: Variant, picked: Any, i: Any) -> Any:
    return z3.BoolVal(True)


# --- the table ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutant:
    """One mutant: what it breaks, the model helper it replaces, and the replacement."""

    description: str
    helper: str
    replacement: Callable[..., Any]


def _m(description: str, helper: str, replacement: Callable[..., Any]) -> Mutant:
    return Mutant(description, helper, replacement)


MUTANTS: dict[str, Mutant] = {
    "insert_dup_overwrites": _m(
        "catalog insert overwrites the record, then reports DuplicateToolId",
        "insert",
        insert_dup_overwrites,
    ),
    "upsert_drops_before_check": _m(
        "upsert drops `replaced` even when it then fails DuplicateToolId",
        "upsert",
        upsert_drops_before_check,
    ),
    "remove_before_generation_check": _m(
        "remove drops the record even when the generation is spent",
        "remove",
        remove_before_generation_check,
    ),
    "rebase_overflow_sticks": _m(
        "rebase_past sets the generation to MAX when it overflows",
        "rebase_past",
        rebase_overflow_sticks,
    ),
    "rebase_uses_prior": _m(
        "rebase_past uses prior+1, ignoring the current generation",
        "rebase_floor",
        rebase_uses_prior,
    ),
    "unchecked_generation": _m(
        "checked_next never fails: the generation passes 2^64-1",
        "checked_next",
        unchecked_generation,
    ),
    "generation_wraps": _m("checked_next wraps to 0 at 2^64-1", "checked_next", generation_wraps),
    "catalog_absorbs_staleness": _m(
        "catalog mutations refresh every set's catalog_generation",
        "after_mutation",
        catalog_absorbs_staleness,
    ),
    "set_new_partial": _m(
        "new() stores the set before reporting UnknownCoreTool", "new", set_new_partial
    ),
    "fresh_set_inherits": _m(
        "a fresh set keeps the activations of the set it replaces",
        "fresh_set",
        fresh_set_inherits,
    ),
    "one_set_per_session": _m(
        "storing a fresh set drops every other set of the same session",
        "put_fresh",
        one_set_per_session,
    ),
    "activate_resets_schemagen": _m(
        "activation sets schema_generation to 1 instead of advancing it",
        "advance_schemagen",
        activate_resets_schemagen,
    ),
    "rebuild_resets_schemagen": _m(
        "a carry-forward rebuild restarts schema_generation at 0",
        "rebuilt_schemagen",
        rebuild_resets_schemagen,
    ),
    "stale_off_by_one": _m(
        "is_stale ignores a drift of exactly one generation", "stale", stale_off_by_one
    ),
    "is_stale_absorbs": _m(
        "is_stale refreshes the set's catalog_generation", "is_stale", is_stale_absorbs
    ),
    "no_session_check": _m(
        "activate skips the SessionMismatch check", "activation_checks", no_session_check
    ),
    "activate_skips_generation": _m(
        "activate skips StaleGeneration and StaleSnapshot",
        "activation_checks",
        activate_skips_generation,
    ),
    "core_activation_overlap": _m(
        "activate skips the AlreadyCore check", "activation_checks", core_activation_overlap
    ),
    "activate_bumps_before_validate": _m(
        "activate advances schema_generation before validating",
        "activate",
        activate_bumps_before_validate,
    ),
    "activation_by_session": _m(
        "activation writes to every set of the same session", "write", activation_by_session
    ),
    "batch_partial": _m(
        "a rejected batch keeps the grants before the failing one", "batch_post", batch_partial
    ),
    "batch_bumps_before_validate": _m(
        "activate_many advances schema_generation even when rejected",
        "batch_post",
        batch_bumps_before_validate,
    ),
    "schema_gen_per_grant": _m(
        "activate_many advances schema_generation once per grant",
        "batch_step",
        schema_gen_per_grant,
    ),
    "revoke_bumps_on_reject": _m(
        "revoke advances schema_generation even when rejected",
        "revoke_exact",
        revoke_bumps_on_reject,
    ),
    "revoke_decrements": _m("revoke decrements schema_generation", "revoked", revoke_decrements),
    "rebuild_ignores_provenance": _m(
        "rebuild carries activations whose provenance drifted",
        "still_matches",
        rebuild_ignores_provenance,
    ),
    "rebuild_wrong_reason": _m(
        "rebuild reports a removed record as drifted", "drop_reason", rebuild_wrong_reason
    ),
    "rebuild_touches_source": _m(
        "rebuild into another name also bumps the old set",
        "rebuild_frame",
        rebuild_touches_source,
    ),
    "gate_ignores_digest": _m(
        "the gate skips the schema digest comparison", "digest_checks", gate_ignores_digest
    ),
    "gate_ignores_trust": _m(
        "the gate skips the source trust check (step 4)", "trust_checks", gate_ignores_trust
    ),
    "gate_checks_grant_generation": _m(
        "the gate's grant cover also compares the generation",
        "grant_covers",
        gate_checks_grant_generation,
    ),
    "gate_factory_on_denial": _m(
        "the gate calls the factory before its checks", "authorize", gate_factory_on_denial
    ),
    "gate_absorbs_staleness": _m(
        "a successful call refreshes the set's catalog_generation",
        "authorize",
        gate_absorbs_staleness,
    ),
    "issue_grant_calls_factory": _m(
        "grant issuance calls the record's factory",
        "issue_exact_grant",
        issue_grant_calls_factory,
    ),
    "unauthorized_model_activates": _m(
        "model-initiated activation ignores the authority value",
        "confirmation_refused",
        unauthorized_model_activates,
    ),
    "model_issuance_partial": _m(
        "model-initiated activation applies grants issued before a failure",
        "issuance_failed_state",
        model_issuance_partial,
    ),
    "reset_rewinds_generation": _m(
        "reset rewinds the catalog generation below 0 (an unchecked 0 - 1)",
        "initial",
        reset_rewinds_generation,
    ),
    # single-rule bugs each refuted by a named obligation (tests/proofs/test_named_bugs.py)
    "upsert_identical_no_advance": _m(
        "an upsert storing an identical record returns ok, no advance",
        "upsert",
        upsert_identical_no_advance,
    ),
    "rebase_to_prior": _m(
        "rebase_past(prior) with prior above the current value sets it to prior",
        "rebase_past",
        rebase_to_prior,
    ),
    "revoke_keeps_schemagen": _m(
        "revoke_exact does not advance schema_generation", "revoked", revoke_keeps_schemagen
    ),
    "activate_keeps_schemagen": _m(
        "activate does not advance schema_generation", "activated", activate_keeps_schemagen
    ),
    "already_activated_session_wide": _m(
        "AlreadyActivated also looks at other sets of the session",
        "activation_checks",
        already_activated_session_wide,
    ),
    "checked_next_early": _m(
        "checked_next fails at 2^64-2, one value early", "checked_next", checked_next_early
    ),
    "z3_first_index_strict": _m(
        "Z3 side definition of first_index says k < n instead of k <= n",
        "first_index_definition",
        z3_first_index_strict,
    ),
    "z3_first_occ_any": _m(
        "Z3 side definition of seq_first_index picks any occurrence, not the first",
        "first_occ_least",
        z3_first_occ_any,
    ),
    # further realistic single-rule bugs of the same kind
    "remove_absent_advances": _m(
        "remove of an absent tool advances the generation", "remove", remove_absent_advances
    ),
    "batch_replaces_activations": _m(
        "a successful batch replaces the set's activations by the batch",
        "batch_activations",
        batch_replaces_activations,
    ),
    "revoke_core_session_wide": _m(
        "revoke_exact reports CoreTool when any set of the session has the tool in its core",
        "revocation_checks",
        revoke_core_session_wide,
    ),
    "revoke_checks_activation_first": _m(
        "revoke_exact checks NotActivated before CoreTool",
        "revocation_checks",
        revoke_checks_activation_first,
    ),
    "route_fresh_when_retained": _m(
        "route builds a fresh default set even when a set is retained",
        "route_session_set",
        route_fresh_when_retained,
    ),
    "default_core_includes_unverified": _m(
        "default_core_for_catalog also pins Unverified records",
        "default_core_filter",
        default_core_includes_unverified,
    ),
    # refuted only by the batch outcome obligations (`postcondition.activate_many` and `_model`)
    "bulk_already_activated_session_wide": _m(
        "in batches of at least two, AlreadyActivated also looks at other sets of the session",
        "activation_checks",
        bulk_already_activated_session_wide,
    ),
    # bugs only a functional specification refutes (each by its `functional.*` obligation)
    "insert_forgets_record": _m(
        "insert advances the generation but stores nothing", "insert", insert_forgets_record
    ),
    "upsert_keeps_replaced": _m(
        "upsert stores the record but does not drop `replaced`", "upsert", upsert_keeps_replaced
    ),
    "remove_keeps_record": _m(
        "remove advances the generation but keeps the record", "remove", remove_keeps_record
    ),
    "rebase_clears_catalog": _m(
        "rebase_past empties the catalog", "rebase_past", rebase_clears_catalog
    ),
    "set_new_core_skips_last": _m(
        "new() pins every core id but the last", "core_pins", set_new_core_skips_last
    ),
    "progressive_core_is_default": _m(
        "progressive_core_for_catalog builds the default core",
        "new_progressive_core",
        progressive_core_is_default,
    ),
    "route_fallback_progressive": _m(
        "route's fallback builds a progressive core",
        "route_fallback_core",
        route_fallback_progressive,
    ),
    "rebuild_core_always_default": _m(
        "rebuild derives the default core even when asked for the progressive one",
        "rebuild_core",
        rebuild_core_always_default,
    ),
    "rebuild_schemagen_always_advances": _m(
        "a carry-forward rebuild advances schema_generation even when nothing was dropped",
        "rebuilt_schemagen",
        rebuild_schemagen_always_advances,
    ),
    "gate_basis_always_core": _m(
        "the gate reports basis Core for an authorized activated tool",
        "authorize",
        gate_basis_always_core,
    ),
    "gate_untrusted_as_mismatch": _m(
        "the gate denies an untrusted record as SourceProvenanceMismatch",
        "trust_checks",
        gate_untrusted_as_mismatch,
    ),
    "issuance_untrusted_as_mismatch": _m(
        "issuance refuses an untrusted record as SourceProvenanceMismatch",
        "issuance_trust_checks",
        issuance_untrusted_as_mismatch,
    ),
    "issue_grant_next_generation": _m(
        "issue_exact_grant grants at the next generation",
        "issue_exact_grant",
        issue_grant_next_generation,
    ),
    "rebuild_schemagen_from_target": _m(
        "a carry-forward rebuild into a name holding a set counts schema_generation on from "
        "that set's",
        "rebuilt_schemagen",
        rebuild_schemagen_from_target,
    ),
    "route_keeps_target_set": _m(
        "routing a retained set into a name holding a set of the same session keeps that set",
        "routed_copy",
        route_keeps_target_set,
    ),
    "user_issuance_as_bulk": _m(
        "activate_exact_for_user reports issuance trust errors as Bulk errors",
        "user_issuance_error",
        user_issuance_as_bulk,
    ),
}


def variant(name: str, profile: str = DEFAULT_PROFILE) -> Variant:
    """The variant with mutant ``name`` switched on (under ``profile``)."""
    m = MUTANTS.get(name)
    if m is None:
        raise ValueError(f"unknown mutant {name}")
    return Variant(profile, name, {m.helper: m.replacement})
