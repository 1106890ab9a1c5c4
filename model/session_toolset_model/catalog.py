"""SPEC.md section 2: the ToolCatalog (insert, upsert, remove, rebase_past) and checked_next.

Every successful mutation advances the generation by exactly one (rebase_past: to max+1); a
failed one changes nothing.  The catalog never touches tool sets: staleness is represented by the
sets' own pinned generation, never absorbed.
"""

from __future__ import annotations

from .algebra import MAX_GENERATION, Algebra, Term, first_failure, when
from .profiles import Variant
from .state import Result, State, is_ok


def checked_next(alg: Algebra, v: Variant, g: Term) -> tuple[Term, Term]:
    """(exhausted, next): CatalogGeneration.checked_next, failing at exactly 2^64-1."""
    top = alg.eq(g, alg.int_(MAX_GENERATION))
    nxt = alg.add(g, alg.int_(1))
    if v.has("unchecked_generation"):
        return alg.bool_(False), nxt
    if v.has("generation_wraps"):
        return alg.bool_(False), alg.ite(top, alg.int_(0), nxt)
    if v.has("checked_next_early"):
        return alg.le(alg.int_(MAX_GENERATION - 1), g), nxt
    return top, nxt


def record(alg: Algebra, digest: Term, prov: Term, trust: Term) -> Term:
    return alg.some("rec", digest=digest, prov=prov, trust=trust)


def _advanced(alg: Algebra, v: Variant, st: State, ok: Term, catalog: Term, nxt: Term) -> State:
    """The post-state of a catalog mutation (and the `catalog_absorbs_staleness` mutant)."""
    sets = st.sets
    if v.has("catalog_absorbs_staleness"):
        sets = alg.update_map(
            st.sets,
            alg.keys(st.sets),
            lambda _n, s: alg.ite(
                alg.and_(ok, alg.is_some(s)),
                alg.some(
                    "set",
                    session=alg.get(s, "session"),
                    catgen=nxt,
                    schemagen=alg.get(s, "schemagen"),
                    core=alg.get(s, "core"),
                    acts=alg.get(s, "acts"),
                ),
                s,
            ),
        )
    return State(alg.ite(ok, catalog, st.catalog), alg.ite(ok, nxt, st.gen), st.calls, sets)


def insert(
    alg: Algebra, v: Variant, st: State, tool: Term, digest: Term, prov: Term, trust: Term
) -> Result:
    """`insert(record)`: DuplicateToolId, then GenerationExhausted."""
    exhausted, nxt = checked_next(alg, v, st.gen)
    present = alg.is_some(alg.select(st.catalog, tool))
    code = first_failure(
        alg,
        [
            (present, "CatalogError.DuplicateToolId"),
            (exhausted, "CatalogError.GenerationExhausted"),
        ],
    )
    ok = is_ok(alg, code)
    stored = alg.store(st.catalog, tool, record(alg, digest, prov, trust))
    if v.has("insert_forgets_record"):
        stored = st.catalog
    post = _advanced(alg, v, st, ok, stored, nxt)
    if v.has("insert_dup_overwrites"):
        post = State(alg.ite(present, stored, post.catalog), post.gen, post.calls, post.sets)
    return Result(code, post, {"tool": tool, "generation": post.gen})


def upsert(
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
    """`upsert(replaced, record)`: one mutation replacing a record (``replaced`` may be null)."""
    exhausted, nxt = checked_next(alg, v, st.gen)
    # `replaced` is junk when null: the comparison is read only when it is given
    elsewhere = when(alg, has_replaced, lambda: alg.not_(alg.eq(replaced, tool)), alg.bool_(True))
    other = alg.and_(has_replaced, elsewhere)
    dup = alg.and_(elsewhere, alg.is_some(alg.select(st.catalog, tool)))
    code = first_failure(
        alg,
        [(dup, "CatalogError.DuplicateToolId"), (exhausted, "CatalogError.GenerationExhausted")],
    )
    ok = is_ok(alg, code)
    dropped = alg.ite(other, alg.store(st.catalog, replaced, alg.none("rec")), st.catalog)
    if v.has("upsert_keeps_replaced"):
        dropped = st.catalog
    stored = alg.store(dropped, tool, record(alg, digest, prov, trust))
    post = _advanced(alg, v, st, ok, stored, nxt)
    if v.has("upsert_identical_no_advance"):
        identical = alg.and_(
            alg.not_(other), alg.eq(alg.select(st.catalog, tool), record(alg, digest, prov, trust))
        )
        post = State(post.catalog, alg.ite(identical, st.gen, post.gen), post.calls, post.sets)
    if v.has("upsert_drops_before_check"):
        post = State(alg.ite(dup, dropped, post.catalog), post.gen, post.calls, post.sets)
    return Result(code, post, {"tool": tool, "generation": post.gen})


def remove(alg: Algebra, v: Variant, st: State, tool: Term) -> Result:
    """`remove(id)`: absent is no change (ok, removed=false); present needs a next generation."""
    exhausted, nxt = checked_next(alg, v, st.gen)
    present = alg.is_some(alg.select(st.catalog, tool))
    code = first_failure(alg, [(alg.and_(present, exhausted), "CatalogError.GenerationExhausted")])
    mutate = alg.and_(is_ok(alg, code), present)
    if v.has("remove_absent_advances"):
        mutate = alg.and_(is_ok(alg, code), alg.not_(exhausted))
    removed = alg.store(st.catalog, tool, alg.none("rec"))
    if v.has("remove_keeps_record"):
        removed = st.catalog
    post = _advanced(alg, v, st, mutate, removed, nxt)
    if v.has("remove_before_generation_check"):
        post = State(alg.ite(present, removed, post.catalog), post.gen, post.calls, post.sets)
    return Result(code, post, {"tool": tool, "removed": present, "generation": post.gen})


def rebase_past(alg: Algebra, v: Variant, st: State, prior: Term) -> Result:
    """`rebase_past(prior)`: generation := max(current, prior)+1, or CatalogGenerationOverflow."""
    base = prior if v.has("rebase_uses_prior") else alg.ite(alg.le(prior, st.gen), st.gen, prior)
    overflow, nxt = checked_next(alg, v, base)
    code = first_failure(alg, [(overflow, "CatalogGenerationOverflow")])
    ok = is_ok(alg, code)
    kept = alg.empty_map("rec") if v.has("rebase_clears_catalog") else st.catalog
    post = _advanced(alg, v, st, ok, kept, nxt)
    if v.has("rebase_to_prior"):
        to_prior = alg.and_(ok, alg.lt(st.gen, prior))
        post = State(post.catalog, alg.ite(to_prior, prior, post.gen), post.calls, post.sets)
    if v.has("rebase_overflow_sticks"):
        post = State(
            post.catalog,
            alg.ite(overflow, alg.int_(MAX_GENERATION), post.gen),
            post.calls,
            post.sets,
        )
    return Result(code, post, {"generation": post.gen})
