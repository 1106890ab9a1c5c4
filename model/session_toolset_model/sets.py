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
from .profiles import Variant, seam
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
    keep = default_core_filter(alg, v)
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


def default_core_filter(alg: Algebra, v: Variant) -> Callable[[Term], Term]:
    """The default core's filter on a record's provenance: not Unverified."""
    return lambda r: alg.not_(alg.unverified(r))


def fresh_set(alg: Algebra, v: Variant, st: State, name: Term, session: Term, core: Term) -> Term:
    """A new set: zero activations, schema_generation 0, pinned to the current generation."""
    return make_set(alg, session, st.gen, alg.int_(0), core, alg.empty_map("act"))


def put_fresh(alg: Algebra, v: Variant, st: State, name: Term, value: Term, cond: Term) -> State:
    """Store a freshly built set under ``name`` (every other set untouched)."""
    return put(alg, st, name, value, cond)


def put(alg: Algebra, st: State, name: Term, value: Term, cond: Term) -> State:
    return State(
        st.catalog, st.gen, st.calls, alg.ite(cond, alg.store(st.sets, name, value), st.sets)
    )


def core_pins(alg: Algebra, v: Variant, st: State, core_ids: Term) -> Term:
    """The core `new` pins: every cataloged id of ``core_ids``, at its record's digest."""
    return alg.update_map(
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


def new(alg: Algebra, v: Variant, st: State, name: Term, session: Term, core_ids: Term) -> Result:
    """`new(session, core_ids, catalog)`: the first unknown core id fails UnknownCoreTool."""
    n = alg.seq_len(core_ids)
    k = alg.first_index(
        n, lambda i: alg.not_(alg.is_some(alg.select(st.catalog, alg.seq_at(core_ids, i))))
    )
    code = first_failure(alg, [(alg.lt(k, n), "SessionToolSetError.UnknownCoreTool")])
    payload = {"tool": alg.seq_at(core_ids, k)}
    core = core_pins(alg, v, st, core_ids)
    post = put_fresh(alg, v, st, name, fresh_set(alg, v, st, name, session, core), is_ok(alg, code))
    return Result(code, post, payload)


def new_default_core(alg: Algebra, v: Variant, st: State, name: Term, session: Term) -> Result:
    """`default_core_for_catalog(session, catalog)` stored under ``name``."""
    value = fresh_set(alg, v, st, name, session, default_core(alg, v, st))
    return Result(alg.code("ok"), put_fresh(alg, v, st, name, value, alg.bool_(True)))


def new_progressive_core(alg: Algebra, v: Variant, st: State, name: Term, session: Term) -> Result:
    """`progressive_core_for_catalog(session, catalog)` stored under ``name``."""
    value = fresh_set(alg, v, st, name, session, progressive_core(alg, st))
    return Result(alg.code("ok"), put_fresh(alg, v, st, name, value, alg.bool_(True)))


def stale(alg: Algebra, v: Variant, st: State, s: Term) -> Term:
    """`is_stale(catalog)` <=> set generation != catalog generation."""
    return alg.not_(alg.eq(alg.get(s, "catgen"), st.gen))


def is_stale(alg: Algebra, v: Variant, st: State, name: Term) -> Result:
    """Read-only staleness query."""
    s = alg.select(st.sets, name)
    return Result(alg.code("ok"), st, {"stale": stale(alg, v, st, s)})


def activation_checks(
    alg: Algebra, v: Variant, st: State, s: Term, grant: Term, batch: Term | None
) -> list[tuple[Term, str]]:
    """The `activate` validation, in SPEC.md order: (failure condition, `ActivationError` name).
    ``batch`` is the length of the batch the grant is checked in (`activate_many`), else None:
    the validation does not depend on it."""
    tool = alg.get(grant, "tool")
    rec = alg.select(st.catalog, tool)
    return [
        (alg.not_(alg.eq(alg.get(grant, "session"), alg.get(s, "session"))), "SessionMismatch"),
        (alg.not_(alg.is_some(rec)), "UnknownTool"),
        (alg.not_(alg.eq(alg.get(grant, "gen"), st.gen)), "StaleGeneration"),
        (alg.not_(alg.eq(alg.get(grant, "digest"), alg.get(rec, "digest"))), "DigestMismatch"),
        (alg.not_(alg.eq(alg.get(s, "catgen"), st.gen)), "StaleSnapshot"),
        (alg.is_some(alg.select(alg.get(s, "acts"), tool)), "AlreadyActivated"),
        (alg.is_some(alg.select(alg.get(s, "core"), tool)), "AlreadyCore"),
    ]


def activation_check(
    alg: Algebra, v: Variant, st: State, s: Term, grant: Term, batch: Term | None = None
) -> Term:
    """The `activate` validation's first failure: an `ActivationError.*` code, or ok."""
    checks = activation_checks(alg, v, st, s, grant, batch)
    return first_failure(alg, [(c, f"ActivationError.{n}") for c, n in checks])


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


def write(
    alg: Algebra, v: Variant, st: State, name: Term, cond: Term, change: Callable[[Term], Term]
) -> State:
    """Replace set ``name`` by ``change(set)`` when ``cond`` (frame: no other set is written)."""
    return put(alg, st, name, change(alg.select(st.sets, name)), cond)


def activated(alg: Algebra, v: Variant, o: Term, tool: Term, act: Term) -> Term:
    """Set ``o`` after `activate` recorded ``act`` for ``tool``: schema_generation advances."""
    return with_fields(
        alg,
        o,
        acts=alg.store(alg.get(o, "acts"), tool, act),
        schemagen=advance_schemagen(alg, v, alg.get(o, "schemagen"), alg.int_(1)),
    )


def activate(alg: Algebra, v: Variant, st: State, name: Term, grant: Term) -> Result:
    """`activate(grant, catalog)`: validate, record, advance schema_generation by one."""
    s = alg.select(st.sets, name)
    code = activation_check(alg, v, st, s, grant)
    tool = alg.get(grant, "tool")
    act = activation_of(alg, st, grant)
    post = write(alg, v, st, name, is_ok(alg, code), lambda o: activated(alg, v, o, tool, act))
    return Result(code, post, grant_payload(alg, st, s, grant))


def advance_schemagen(alg: Algebra, v: Variant, old: Term, step: Term) -> Term:
    """schema_generation after an activation: advanced by ``step``."""
    return alg.add(old, step)


def choose_sets(alg: Algebra, cond: Term, a: State, b: State) -> State:
    return State(a.catalog, a.gen, a.calls, alg.ite(cond, a.sets, b.sets))


def grant_payload(alg: Algebra, st: State, s: Term, grant: Term) -> dict[str, Term]:
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


def batch_activations(
    alg: Algebra, v: Variant, st: State, o: Term, grants: Term, upto: Term
) -> Term:
    """Set ``o``'s activations with those of ``grants`` before index ``upto`` recorded (each
    tool's first grant)."""
    return alg.update_map(
        alg.get(o, "acts"),
        alg.seq_keys(grants, "tool"),
        lambda t, old: alg.ite(
            alg.and_(
                seq_contains(alg, grants, "tool", t),
                alg.lt(alg.seq_first_index(grants, "tool", t), upto),
            ),
            activation_of(alg, st, alg.seq_at(grants, alg.seq_first_index(grants, "tool", t))),
            old,
        ),
    )


def batch_step(alg: Algebra, v: Variant, n: Term) -> Term:
    """How far a batch of ``n`` grants advances schema_generation: once, if it is nonempty."""
    return alg.ite(alg.lt(alg.int_(0), n), alg.int_(1), alg.int_(0))


def batch_applied(
    alg: Algebra, v: Variant, st: State, grants: Term, upto: Term
) -> Callable[[Term], Term]:
    """The change recording the grants before index ``upto`` into a set."""

    def change(o: Term) -> Term:
        acts = batch_activations(alg, v, st, o, grants, upto)
        step = batch_step(alg, v, alg.seq_len(grants))
        schemagen = advance_schemagen(alg, v, alg.get(o, "schemagen"), step)
        return with_fields(alg, o, acts=acts, schemagen=schemagen)

    return change


def batch_post(alg: Algebra, v: Variant, st: State, name: Term, grants: Term, k: Term) -> State:
    """The world after a batch whose first failing grant is ``k`` (the length when none fails):
    all or nothing - every grant applied when none fails and the batch is nonempty."""
    n = alg.seq_len(grants)
    applies = alg.and_(alg.not_(alg.lt(k, n)), alg.lt(alg.int_(0), n))
    return write(alg, v, st, name, applies, batch_applied(alg, v, st, grants, n))


def activate_many(alg: Algebra, v: Variant, st: State, name: Term, grants: Term) -> Result:
    """`activate_many(grants, catalog)`: all or nothing, one schema_generation advance."""
    s = alg.select(st.sets, name)
    n = alg.seq_len(grants)
    k = alg.first_index(n, lambda i: alg.not_(is_ok(alg, batch_error(alg, v, st, s, grants, i))))
    code = alg.ite(alg.lt(k, n), batch_error(alg, v, st, s, grants, k), alg.code("ok"))
    post = batch_post(alg, v, st, name, grants, k)
    payload = grant_payload(alg, st, s, alg.seq_at(grants, k))
    payload["applied"] = n
    return Result(code, post, payload)


def revoke_exact(alg: Algebra, v: Variant, st: State, name: Term, tool: Term) -> Result:
    """`revoke_exact(id)`: CoreTool, then NotActivated; else remove and advance by one."""
    s = alg.select(st.sets, name)
    code = first_failure(alg, revocation_checks(alg, v, st, s, tool))
    post = write(alg, v, st, name, is_ok(alg, code), lambda o: revoked(alg, v, o, tool))
    return Result(code, post, {"tool": tool})


def revocation_checks(
    alg: Algebra, v: Variant, st: State, s: Term, tool: Term
) -> list[tuple[Term, str]]:
    """`revoke_exact`'s validation, in SPEC.md order: CoreTool, then NotActivated."""
    return [
        (alg.is_some(alg.select(alg.get(s, "core"), tool)), "ExactRevocationError.CoreTool"),
        (
            alg.not_(alg.is_some(alg.select(alg.get(s, "acts"), tool))),
            "ExactRevocationError.NotActivated",
        ),
    ]


def revoked(alg: Algebra, v: Variant, o: Term, tool: Term) -> Term:
    """Set ``o`` after revoking ``tool``: activation removed, schema_generation advances."""
    return with_fields(
        alg,
        o,
        acts=alg.store(alg.get(o, "acts"), tool, alg.none("act")),
        schemagen=alg.add(alg.get(o, "schemagen"), alg.int_(1)),
    )


def still_matches(alg: Algebra, v: Variant, rec: Term, act: Term) -> Term:
    """A rebuild carries an activation only if its record is present, unchanged and trusted
    (the record's fields are compared only when it is present: `algebra.when`)."""

    def unchanged_and_trusted() -> Term:
        return alg.and_(
            alg.eq(alg.get(rec, "digest"), alg.get(act, "digest")),
            alg.eq(alg.get(rec, "prov"), alg.get(act, "prov")),
            alg.eq(alg.get(rec, "trust"), alg.trust("trusted")),
        )

    return when(alg, alg.is_some(rec), unchanged_and_trusted, alg.bool_(False))


def rebuild_core(alg: Algebra, v: Variant, st: State, progressive: Term) -> Term:
    """The core of a rebuilt set: the progressive or the default core of the catalog."""
    return alg.ite(progressive, progressive_core(alg, st), default_core(alg, v, st))


def drop_reason(alg: Algebra, v: Variant, st: State, old_acts: Term, core: Term, t: Term) -> Term:
    """Why a rebuild drops the old activation of ``t``: removed, drifted, or none (carried)."""
    act = alg.select(old_acts, t)
    rec = alg.select(st.catalog, t)
    return alg.ite(
        alg.and_(alg.is_some(act), alg.not_(alg.is_some(alg.select(core, t)))),
        alg.ite(
            alg.not_(alg.is_some(rec)),
            alg.reason("removed"),
            alg.ite(still_matches(alg, v, rec, act), alg.reason("none"), alg.reason("drifted")),
        ),
        alg.reason("none"),
    )


def rebuilt_schemagen(
    alg: Algebra, v: Variant, st: State, old: Term, into: Term, any_drop: Term
) -> Term:
    """A carry-forward rebuild's schema_generation: the old set's, advanced by one when it
    dropped an activation."""
    return alg.add(alg.get(old, "schemagen"), alg.ite(any_drop, alg.int_(1), alg.int_(0)))


def rebuild_frame(alg: Algebra, v: Variant, st: State, name: Term) -> State:
    """The world a rebuild stores its result into: the old set ``name`` untouched."""
    return st


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
    core = rebuild_core(alg, v, st, progressive)
    old_acts = alg.get(old, "acts")
    cands = alg.keys(old_acts)

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

    def reason(t: Term) -> Term:
        return drop_reason(alg, v, st, old_acts, core, t)

    dropped = alg.update_map(alg.empty_map("reason"), cands, lambda t, _o: reason(t))
    any_drop = alg.exists_key(
        cands, "tool", lambda t: alg.not_(alg.eq(reason(t), alg.reason("none")))
    )
    kept = make_set(
        alg,
        alg.get(old, "session"),
        st.gen,
        rebuilt_schemagen(alg, v, st, old, into, any_drop),
        core,
        alg.update_map(alg.empty_map("act"), cands, carried),
    )
    fresh = fresh_set(alg, v, st, into, alg.get(old, "session"), core)
    base = rebuild_frame(alg, v, st, name)
    post = choose(
        alg,
        carry_forward,
        put(alg, base, into, kept, alg.bool_(True)),
        put_fresh(alg, v, base, into, fresh, alg.bool_(True)),
    )
    return Result(
        alg.code("ok"),
        post,
        {"dropped": alg.ite(carry_forward, dropped, alg.empty_map("reason"))},
    )


# The helpers a variant may replace (`profiles.seam`).
default_core_filter = seam(default_core_filter)
fresh_set = seam(fresh_set)
put_fresh = seam(put_fresh)
core_pins = seam(core_pins)
new = seam(new)
new_progressive_core = seam(new_progressive_core)
stale = seam(stale)
is_stale = seam(is_stale)
activation_checks = seam(activation_checks)
write = seam(write)
activated = seam(activated)
activate = seam(activate)
advance_schemagen = seam(advance_schemagen)
batch_activations = seam(batch_activations)
batch_step = seam(batch_step)
batch_post = seam(batch_post)
revoke_exact = seam(revoke_exact)
revocation_checks = seam(revocation_checks)
revoked = seam(revoked)
still_matches = seam(still_matches)
rebuild_core = seam(rebuild_core)
drop_reason = seam(drop_reason)
rebuilt_schemagen = seam(rebuilt_schemagen)
rebuild_frame = seam(rebuild_frame)
