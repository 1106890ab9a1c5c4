"""SPEC.md section 2: the ToolCatalog (insert, upsert, remove, rebase_past) and checked_next.

Every successful mutation advances the generation by exactly one (rebase_past: to max+1); a
failed one changes nothing.  The catalog never touches tool sets: staleness is represented by the
sets' own pinned generation, never absorbed.
"""

from __future__ import annotations

from .algebra import MAX_GENERATION, Algebra, Term, first_failure, when
from .profiles import Variant, seam
from .state import Result, State, is_ok


def checked_next(alg: Algebra, v: Variant, g: Term) -> tuple[Term, Term]:
    """(exhausted, next): CatalogGeneration.checked_next, failing at exactly 2^64-1."""
    return alg.eq(g, alg.int_(MAX_GENERATION)), alg.add(g, alg.int_(1))


def record(alg: Algebra, digest: Term, prov: Term, trust: Term) -> Term:
    return alg.some("rec", digest=digest, prov=prov, trust=trust)


def after_mutation(
    alg: Algebra, v: Variant, st: State, ok: Term, records: Term, nxt: Term
) -> State:
    """The post-state of a catalog mutation: catalog and generation when ``ok``; never a set."""
    return State(alg.ite(ok, records, st.catalog), alg.ite(ok, nxt, st.gen), st.calls, st.sets)


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
    post = after_mutation(alg, v, st, ok, stored, nxt)
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
    stored = alg.store(dropped, tool, record(alg, digest, prov, trust))
    post = after_mutation(alg, v, st, ok, stored, nxt)
    return Result(code, post, {"tool": tool, "generation": post.gen})


def remove(alg: Algebra, v: Variant, st: State, tool: Term) -> Result:
    """`remove(id)`: absent is no change (ok, removed=false); present needs a next generation."""
    exhausted, nxt = checked_next(alg, v, st.gen)
    present = alg.is_some(alg.select(st.catalog, tool))
    code = first_failure(alg, [(alg.and_(present, exhausted), "CatalogError.GenerationExhausted")])
    mutate = alg.and_(is_ok(alg, code), present)
    removed = alg.store(st.catalog, tool, alg.none("rec"))
    post = after_mutation(alg, v, st, mutate, removed, nxt)
    return Result(code, post, {"tool": tool, "removed": present, "generation": post.gen})


def rebase_floor(alg: Algebra, v: Variant, gen: Term, prior: Term) -> Term:
    """max(current, prior): the generation `rebase_past` advances from."""
    return alg.ite(alg.le(prior, gen), gen, prior)


def rebase_past(alg: Algebra, v: Variant, st: State, prior: Term) -> Result:
    """`rebase_past(prior)`: generation := max(current, prior)+1, or CatalogGenerationOverflow."""
    overflow, nxt = checked_next(alg, v, rebase_floor(alg, v, st.gen, prior))
    code = first_failure(alg, [(overflow, "CatalogGenerationOverflow")])
    post = after_mutation(alg, v, st, is_ok(alg, code), st.catalog, nxt)
    return Result(code, post, {"generation": post.gen})


# The helpers a variant may replace (`profiles.seam`).
checked_next = seam(checked_next)
after_mutation = seam(after_mutation)
insert = seam(insert)
upsert = seam(upsert)
remove = seam(remove)
rebase_floor = seam(rebase_floor)
rebase_past = seam(rebase_past)
