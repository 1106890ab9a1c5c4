"""Obligations stated as SPEC.md states them: exact counter steps and functional postconditions.

Each builder's docstring quotes the SPEC.md sentence it formalises; the goal is written from that
sentence (the dotted codes and record fields of the Z3 interpretation), never by calling the
model's own helper for the same rule, so a reader can check the formula against the sentence.
`obligations` registers them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.algebra import MAX_GENERATION
from session_toolset_model.profiles import Variant
from session_toolset_model.state import State, same
from session_toolset_model.z3_interp import Z3Algebra

from .functional.common import BOUND, occurrence
from .steps import SEARCH_BOUND, Query, Step, sel, step

S = zi.SetOpt
A = zi.ActOpt
P = zi.PinOpt
R = zi.RecOpt
G = zi.GrantS
CODE = zi.OUTCOME

Builder = Callable[[Variant], Query]


def _max(a: Any, b: Any) -> Any:
    return z3.If(a <= b, b, a)


def _present(s: Step) -> Any:
    return R.is_Rec(sel(s.pre.catalog, s.args["tool"]))


def _upsert_dup(s: Step) -> Any:
    """SPEC.md §2 upsert: "If `replaced` is not the record's own id and the record's id is already
    present → DuplicateToolId" (``replaced`` null is "not the record's own id")."""
    a = s.args
    not_own = z3.Or(z3.Not(a["has_replaced"]), a["replaced"] != a["tool"])
    return z3.And(not_own, _present(s))


def generation_advances(opname: str) -> Builder:
    """SPEC.md §2: "Every successful mutation advances the generation by exactly one (checked);
    a failed mutation changes nothing."  Identical upserts included ("upsert(replaced, record):
    one mutation that replaces a record"); "remove(id): absent → no change (not an error)";
    "rebase_past(prior): generation becomes max(current, prior)+1, or CatalogGenerationOverflow
    (unchanged)"."""

    def build(v: Variant) -> Query:
        s = step(opname, v)
        g0, g1 = s.pre.gen, s.post.gen
        extra: list[Any] = []
        case = [s.ok]
        if opname == "catalog_rebase_past":
            goal = g1 == z3.If(s.ok, _max(g0, s.args["prior"]) + 1, g0)
            case.append(s.args["prior"] > g0)
        elif opname == "catalog_remove":
            goal = z3.And(
                g1 == z3.If(z3.And(s.ok, _present(s)), g0 + 1, g0),
                z3.Implies(z3.Not(_present(s)), same(s.alg, s.pre, s.post)),
            )
            case.append(_present(s))
        else:
            goal = g1 == z3.If(s.ok, g0 + 1, g0)
            if opname == "catalog_upsert":
                a = s.args
                stored = R.Rec(a["digest"], a["prov"], a["trust"])
                case.append(sel(s.pre.catalog, a["tool"]) == stored)
        return s.query(goal, extra, witness=case)

    return build


def checked_next_exact(opname: str) -> Builder:
    """SPEC.md §1.3: "`checked_next()` is value+1, or `CatalogGenerationOverflow` at 2^64-1: it
    never wraps and never sticks" - so the exhaustion outcome happens exactly when no earlier
    check failed and the value to advance is 2^64-1 (§2: insert "id present → DuplicateToolId;
    no next generation → GenerationExhausted"; remove "present → ... no next generation →
    GenerationExhausted"; rebase_past advances max(current, prior))."""

    def build(v: Variant) -> Query:
        s = step(opname, v)
        top = s.pre.gen == MAX_GENERATION
        if opname == "catalog_insert":
            code, when = CODE["CatalogError.GenerationExhausted"], z3.And(z3.Not(_present(s)), top)
        elif opname == "catalog_upsert":
            code, when = (
                CODE["CatalogError.GenerationExhausted"],
                z3.And(z3.Not(_upsert_dup(s)), top),
            )
        elif opname == "catalog_remove":
            code, when = CODE["CatalogError.GenerationExhausted"], z3.And(_present(s), top)
        else:
            code = CODE["CatalogGenerationOverflow"]
            when = _max(s.pre.gen, s.args["prior"]) == MAX_GENERATION
        return s.query((s.res.code == code) == when, witness=[s.res.code == code])

    return build


def generation_never_reused(opname: str, refused_exempt: bool = True) -> Builder:
    """SPEC.md §6: "the catalog generation ... never repeats a value"; §2: rebase_past is "used
    when a catalog is rebuilt so observed generation values are never reused".

    Whole-history form, by induction over two ghosts.  ``used`` holds every generation value
    handed out or observed so far and every ``prior`` a successful `rebase_past` was given; its
    high-water mark is the current generation (``used[g] ⇒ g ≤ gen``, ``used[gen]``; initially
    ``{0}``).  ``refused`` holds every ``prior`` of a *failed* `rebase_past` (SPEC.md: "or
    `CatalogGenerationOverflow` (unchanged)"); such a prior is 2^64-1, or the catalog is already
    at 2^64-1 and hands out nothing more (``refused[g] ⇒ g = 2^64-1 or gen = 2^64-1``).  The step
    obligation: a new value is in neither ``used`` nor the prior just passed; it is in
    ``refused`` only if it is 2^64-1; and both ghost invariants hold again with the new values
    added.  So every value ever passed to rebase_past is accounted for, and the one value a
    catalog may hand out after it was passed is 2^64-1, after a failed rebase (the stronger
    reading without that exception is false: `refused_exempt=False`, see docs/proofs.md)."""

    def build(v: Variant) -> Query:
        s = step(opname, v)
        flags = z3.ArraySort(zi.IntS, z3.BoolSort())
        used, refused = zi.fresh("used", flags), zi.fresh("refused", flags)
        g = z3.FreshConst(zi.IntS, "g")
        top = MAX_GENERATION

        def ghost(u: Any, r: Any, gen: Any) -> list[Any]:
            return [
                z3.ForAll([g], z3.Implies(sel(u, g), g <= gen)),
                z3.ForAll([g], z3.Implies(sel(r, g), z3.Or(g == top, gen == top))),
            ]

        observed, refused_after = used, refused
        case = [s.ok, s.post.gen != s.pre.gen]
        if opname == "catalog_rebase_past":
            prior = s.args["prior"]
            observed = z3.If(s.ok, z3.Store(used, prior, True), used)
            refused_after = z3.If(s.ok, refused, z3.Store(refused, prior, True))
            case.append(prior > s.pre.gen)
        new = s.post.gen
        fresh_value = z3.Not(sel(observed, new))
        if refused_exempt:
            fresh_value = z3.And(fresh_value, z3.Implies(sel(refused, new), new == top))
        else:
            fresh_value = z3.And(fresh_value, z3.Not(sel(refused, new)))
        goal = z3.And(
            z3.Implies(new != s.pre.gen, fresh_value),
            *ghost(z3.Store(observed, new, True), refused_after, new),
        )
        premises = [*ghost(used, refused, s.pre.gen), sel(used, s.pre.gen)]
        return s.query(goal, premises, witness=case)

    return build


def schema_generation_advances(opname: str) -> Builder:
    """SPEC.md §3: activate "records the activation ... and advances `schema_generation` by
    one"; activate_many "empty → returns 0, changes nothing ... On success apply all ..., advance
    `schema_generation` by exactly one"; revoke_exact "else remove it and advance
    `schema_generation` by one"; §5 activate_exact_for_user / activate_model_initiated are
    `activate_many` of the issued grants; §6 "with exactly one `schema_generation` advance"."""

    def build(v: Variant) -> Query:
        s = step(opname, v)
        name = s.args["name"]
        before, after = sel(s.pre.sets, name), sel(s.post.sets, name)
        seq = s.args.get("grants", s.args.get("tools"))
        one = z3.IntVal(1) if seq is None else z3.If(seq.length > 0, 1, 0)
        goal = S.set_schemagen(after) == S.set_schemagen(before) + z3.If(s.ok, one, 0)
        # batches: at least two grants; single steps: from a set that already advanced
        case = [s.ok, S.set_schemagen(before) >= 1 if seq is None else seq.length >= 2]
        return s.query(goal, witness=case)

    return build


def in_place_self_composition(opname: str) -> Builder:
    """SPEC.md §6 zero inheritance: "what a set contains depends only on its own session, core
    ids, the catalog and the operations applied to that set".  Two runs of the same operation
    with the same arguments from worlds that agree on the catalog, its generation and the target
    set - every other set arbitrary - give the same outcome and the same target set."""

    def build(v: Variant) -> Query:
        alg = Z3Algebra(SEARCH_BOUND.get(), v)
        alg.read_over_write = alg.share_loops = True
        s1 = step(opname, v, "l", alg=alg)
        name = s1.args["name"]
        # The second world: the same catalog and generation, arbitrary counters and other sets,
        # the first world's target set (an arbitrary world agreeing on what the run may read).
        other = zi.fresh("r_sets", z3.ArraySort(zi.SetName, S))
        sets2 = z3.Store(other, name, sel(s1.pre.sets, name))
        pre2 = State(s1.pre.catalog, s1.pre.gen, zi.fresh("r_calls", s1.pre.calls.sort()), sets2)
        s2 = step(opname, v, "r", alg=alg, pre=pre2, args=s1.args)
        premises = list(s2.premises)
        goal = z3.And(
            s1.res.code == s2.res.code, sel(s1.post.sets, name) == sel(s2.post.sets, name)
        )
        other = zi.fresh("case_set", zi.SetName)
        case = [s1.ok, other != name, S.is_TSet(sel(s1.pre.sets, other))]
        case.append(s1.pre.sets != s2.pre.sets)
        batch = s1.args.get("grants", s1.args.get("tools"))
        if batch is not None:  # an empty batch changes nothing in either world
            case.append(batch.length >= 2)
        q = s1.query(goal, premises, witness=case)
        q.steps.append(s2)
        return q

    return build


def source_self_composition(opname: str) -> Builder:
    """SPEC.md §6 zero inheritance: "what a set contains depends only on its own session, core
    ids, the catalog and the operations applied to that set"; §3 a carry-forward rebuild reads
    the old set ("Each old activation ..."), §5 routing copies "the retained shared set ... as
    is".  Two runs with the same arguments from worlds that agree on the catalog, its generation
    and the source set (``name`` of a carry-forward rebuild, the retained set of a route) - every
    other set, the target name's included, arbitrary - give the same outcome, the same new set
    and the same report (dropped activations / staleness)."""
    source, flag, report = {
        "rebuild": ("name", "carry_forward", "dropped"),
        "route": ("retained", "has_retained", "stale"),
    }[opname]

    def build(v: Variant) -> Query:
        alg = Z3Algebra(SEARCH_BOUND.get(), v)
        alg.read_over_write = alg.share_loops = True
        s1 = step(opname, v, "l", alg=alg)
        src, into = s1.args[source], s1.args["into"]
        other = zi.fresh("r_sets", z3.ArraySort(zi.SetName, S))
        sets2 = z3.Store(other, src, sel(s1.pre.sets, src))
        pre2 = State(s1.pre.catalog, s1.pre.gen, zi.fresh("r_calls", s1.pre.calls.sort()), sets2)
        s2 = step(opname, v, "r", alg=alg, pre=pre2, args=s1.args)
        goal = z3.And(
            s1.res.code == s2.res.code,
            sel(s1.post.sets, into) == sel(s2.post.sets, into),
            s1.res.extras[report] == s2.res.extras[report],
        )
        t = zi.fresh("case_tool", zi.Tool)
        case = [
            A.is_Act(sel(S.set_acts(sel(s1.pre.sets, src)), t)),
            S.is_TSet(sel(s1.pre.sets, into)),
            into != src,
            s1.pre.sets != s2.pre.sets,
        ]
        q = s1.query(goal, [*s2.premises, s1.args[flag]], witness=case)
        q.steps.append(s2)
        return q

    return build


def _activate_checks(st: Any, g: Any, catalog: Any, gen: Any) -> list[tuple[Any, str]]:
    """SPEC.md §3 `activate`'s checks of grant ``g`` against set ``st``, in its order: (the
    failing condition, the `ActivationError` variant)."""
    t = G.g_tool(g)
    rec = sel(catalog, t)
    return [
        (G.g_session(g) != S.set_session(st), "SessionMismatch"),
        (z3.Not(R.is_Rec(rec)), "UnknownTool"),
        (G.g_gen(g) != gen, "StaleGeneration"),
        (G.g_digest(g) != R.rec_digest(rec), "DigestMismatch"),
        (S.set_catgen(st) != gen, "StaleSnapshot"),
        (A.is_Act(sel(S.set_acts(st), t)), "AlreadyActivated"),
        (P.is_Pin(sel(S.set_core(st), t)), "AlreadyCore"),
    ]


def _first_of(checks: list[tuple[Any, str]], prefix: str) -> Any:
    """The code of the first failing check (``prefix.variant``), else ``ok``."""
    code = CODE["ok"]
    for cond, name in reversed(checks):
        code = z3.If(cond, CODE[f"{prefix}.{name}"], code)
    return code


def _expected_activate(s: Step) -> tuple[Any, Any]:
    """(expected outcome, expected set on success) of SPEC.md §3 `activate`, written from its
    text."""
    st = sel(s.pre.sets, s.args["name"])
    g = s.args["grant"]
    t = G.g_tool(g)
    rec = sel(s.pre.catalog, t)
    code = _first_of(_activate_checks(st, g, s.pre.catalog, s.pre.gen), "ActivationError")
    act = A.Act(G.g_session(g), G.g_gen(g), G.g_digest(g), R.rec_prov(rec))
    new = S.TSet(
        S.set_session(st),
        S.set_catgen(st),
        S.set_schemagen(st) + 1,
        S.set_core(st),
        z3.Store(S.set_acts(st), t, act),
    )
    return code, new


def activate_postcondition(v: Variant) -> Query:
    """SPEC.md §3: "`activate(grant, catalog)` validates in this order, then records the
    activation with the record's current provenance and advances `schema_generation` by one:
    grant session ≠ set session → SessionMismatch; tool not cataloged → UnknownTool(id); grant
    generation ≠ catalog generation → StaleGeneration{grant, catalog}; grant digest ≠ record digest
    → DigestMismatch(id); set generation ≠ catalog generation → StaleSnapshot{set, catalog};
    already activated → AlreadyActivated(id); in core → AlreadyCore(id)."  The full function:
    outcome, payload, and the whole post-world (only the target set changes, on success)."""
    s = step("activate", v)
    code, new = _expected_activate(s)
    name = s.args["name"]
    st = sel(s.pre.sets, name)
    g = s.args["grant"]
    x = s.res.extras
    goal = z3.And(
        s.res.code == code,
        s.post.catalog == s.pre.catalog,
        s.post.gen == s.pre.gen,
        s.post.calls == s.pre.calls,
        s.post.sets == z3.If(code == CODE["ok"], z3.Store(s.pre.sets, name, new), s.pre.sets),
        x["tool"] == G.g_tool(g),
        x["grant"] == G.g_gen(g),
        x["catalog"] == s.pre.gen,
        x["set"] == S.set_catgen(st),
    )
    return s.query(goal, witness=[s.ok, S.set_schemagen(st) >= 1])


def revoke_postcondition(v: Variant) -> Query:
    """SPEC.md §3: "`revoke_exact(id)`: core → `ExactRevocationError.CoreTool(id)`; not activated
    → `NotActivated(id)`; else remove it and advance `schema_generation` by one."  Outcome and
    the whole post-world."""
    s = step("revoke", v)
    name, t = s.args["name"], s.args["tool"]
    st = sel(s.pre.sets, name)
    code = z3.If(
        P.is_Pin(sel(S.set_core(st), t)),
        CODE["ExactRevocationError.CoreTool"],
        z3.If(
            z3.Not(A.is_Act(sel(S.set_acts(st), t))),
            CODE["ExactRevocationError.NotActivated"],
            CODE["ok"],
        ),
    )
    new = S.TSet(
        S.set_session(st),
        S.set_catgen(st),
        S.set_schemagen(st) + 1,
        S.set_core(st),
        z3.Store(S.set_acts(st), t, A.NoAct),
    )
    goal = z3.And(
        s.res.code == code,
        s.post.catalog == s.pre.catalog,
        s.post.gen == s.pre.gen,
        s.post.calls == s.pre.calls,
        s.post.sets == z3.If(code == CODE["ok"], z3.Store(s.pre.sets, name, new), s.pre.sets),
    )
    return s.query(goal, witness=[s.ok, S.set_schemagen(st) >= 1])


def _seq_all(seq: Any, body: Callable[[Any, Any], Any]) -> Any:
    i = z3.FreshConst(zi.IntS, "i")
    return z3.ForAll([i], z3.Implies(z3.And(i >= 0, i < seq.length), body(i, seq.at(i))))


def _nothing_else(s: Step, seq: Any, key: str, before: Any, after: Any, defs: list[Any]) -> Any:
    """Every tool that no element of ``seq`` names keeps its activation slot as before.

    "Names" is the specification's own first occurrence (`functional.common.occurrence`, a
    symbol with its definition added to ``defs``), never the model's: an existential under the
    universal would leave Z3 a quantifier alternation that it gives up on."""
    token = BOUND.set(SEARCH_BOUND.get())
    try:
        listed = occurrence("named", lambda i: _key(seq.at(i), key), seq.length, defs)
    finally:
        BOUND.reset(token)
    t = z3.FreshConst(zi.Tool, "t")
    return z3.ForAll(
        [t],
        z3.Implies(
            z3.Not(listed.contains(t)), sel(S.set_acts(after), t) == sel(S.set_acts(before), t)
        ),
    )


def _key(e: Any, key: str) -> Any:
    return e if key == "self" else G.g_tool(e)


def _exactly_added(s: Step, seq: Any, key: str, act_at: Callable[[Any], Any]) -> Query:
    """The success side of a batch of ``seq`` (elements named by ``key``): a non-empty batch
    leaves the old set with exactly ``act_at(element)`` recorded for each element's tool and
    every other slot, the session, pinned generation and core as before, schema_generation one
    higher; an empty one changes nothing."""
    before, after = sel(s.pre.sets, s.args["name"]), sel(s.post.sets, s.args["name"])

    def tool_of(e: Any) -> Any:
        return _key(e, key)

    defs: list[Any] = []
    goal = z3.If(
        seq.length > 0,
        z3.And(
            S.is_TSet(after),
            S.set_session(after) == S.set_session(before),
            S.set_catgen(after) == S.set_catgen(before),
            S.set_core(after) == S.set_core(before),
            S.set_schemagen(after) == S.set_schemagen(before) + 1,
            _seq_all(seq, lambda _i, e: sel(S.set_acts(after), tool_of(e)) == act_at(e)),
            _nothing_else(s, seq, key, before, after, defs),
        ),
        same(s.alg, s.pre, s.post),
    )
    return s.query(goal, [s.ok, *defs], witness=[seq.length >= 2])


def atomic_many(v: Variant) -> Query:
    """SPEC.md §3: "`activate_many(grants, catalog)`: empty → returns 0, changes nothing. ...
    On success apply all in ToolId order, advance `schema_generation` by exactly one"; §6 "a
    batch applies entirely or not at all".  On success with a non-empty batch the set is the old
    set with exactly the granted activations added (each with the record's current provenance)
    and nothing else changed, schema_generation one higher."""
    s = step("activate_many", v)

    def act(g: Any) -> Any:
        rec = sel(s.pre.catalog, G.g_tool(g))
        return A.Act(G.g_session(g), G.g_gen(g), G.g_digest(g), R.rec_prov(rec))

    return _exactly_added(s, s.args["grants"], "tool", act)


def atomic_model(v: Variant) -> Query:
    """SPEC.md §5: "`ModelConfirmed` → issue every grant in request order ..., then
    `activate_many`"; §5 issuance gives "a grant at the current generation and digest" for the
    set's session; §6 "a batch applies entirely or not at all, with exactly one
    `schema_generation` advance".  On success with tools requested: exactly those tools are
    activated, each as a grant for the set's session at the current generation and digest with
    the record's provenance, nothing else changes, schema_generation one higher."""
    s = step("activate_model", v)
    before = sel(s.pre.sets, s.args["name"])

    def act(t: Any) -> Any:
        rec = sel(s.pre.catalog, t)
        return A.Act(S.set_session(before), s.pre.gen, R.rec_digest(rec), R.rec_prov(rec))

    return _exactly_added(s, s.args["tools"], "self", act)


def _in(n: Any, i: Any) -> Any:
    return z3.And(i >= 0, i < n)


def _all_pass(n: Any, code_at: Callable[[Any], Any]) -> Any:
    """No element of ``[0, n)`` fails (its code is ``ok``)."""
    i = z3.FreshConst(zi.IntS, "i")
    return z3.ForAll([i], z3.Implies(_in(n, i), code_at(i) == CODE["ok"]))


def _at_first_failure(n: Any, code_at: Callable[[Any], Any], then: Callable[[Any], Any]) -> Any:
    """``then(k)`` for the first ``k`` in ``[0, n)`` whose code is not ``ok`` (if there is one):
    "the first failure rejects the whole batch"."""
    k = z3.FreshConst(zi.IntS, "k")
    first = z3.And(_in(n, k), code_at(k) != CODE["ok"], _all_pass(k, code_at))
    return z3.ForAll([k], z3.Implies(first, then(k)))


def _bulk_code(s: Step, st: Any, grant_at: Callable[[Any], Any], i: Any, prefix: str) -> Any:
    """The code of grant ``i`` of a batch into set ``st``, from SPEC.md §3 `activate_many`: "for
    each grant in request order: a tool id seen earlier in the batch → DuplicateRequest(id); the
    `activate` validation, wrapped as Grant(…); source trust → UntrustedSource(id) or
    SourceProvenanceMismatch(id)"; ``ok`` when it passes.  ``prefix`` is the error's wrapping
    (`BulkActivationError`, or `HostActivationError.Bulk` for §5's entry points)."""
    g = grant_at(i)
    t = G.g_tool(g)
    trust = R.rec_trust(sel(s.pre.catalog, t))
    j = z3.FreshConst(zi.IntS, "j")
    checks = [(z3.Exists([j], z3.And(_in(i, j), G.g_tool(grant_at(j)) == t)), "DuplicateRequest")]
    checks += [(c, f"Grant.{n}") for c, n in _activate_checks(st, g, s.pre.catalog, s.pre.gen)]
    checks += [
        (trust == zi.TRUST["untrusted"], "UntrustedSource"),
        (trust == zi.TRUST["mismatch"], "SourceProvenanceMismatch"),
    ]
    return _first_of(checks, prefix)


def first_passes(s: Step, opname: str) -> Any:
    """The first element of a batch passes every per-element check of SPEC.md (for
    `activate_model`: its issuance and its grant), so a rejection of the batch is decided
    later.  For witness cases only; index 0 has no earlier element to repeat, so no
    DuplicateRequest (and no fresh symbol: the obligation's other terms keep their names)."""
    st = sel(s.pre.sets, s.args["name"])
    zero = z3.IntVal(0)
    if opname == "activate_many":
        grant = s.args["grants"].at(zero)
    else:
        tool = s.args["tools"].at(zero)
        digest = R.rec_digest(sel(s.pre.catalog, tool))
        grant = G.MkGrant(S.set_session(st), tool, s.pre.gen, digest)
    rec = sel(s.pre.catalog, G.g_tool(grant))
    checks = _activate_checks(st, grant, s.pre.catalog, s.pre.gen)
    return z3.And(
        R.is_Rec(rec),
        R.rec_trust(rec) == zi.TRUST["trusted"],
        *(z3.Not(failing) for failing, _ in checks),
    )


LATER_CHECK = "Grant.AlreadyActivated"
"""The per-grant check a batch-outcome witness must see decide a batch at a later grant: the
`activate` check that reads the target set's own activations (the one a session-wide lookup
gets wrong), not a DuplicateRequest, which looks only at the batch itself."""


def _rejected_later(s: Step, n: Any, code_at: Callable[[Any], Any], prefix: str) -> list[Any]:
    """The witness case of a batch outcome: a batch of at least two whose first grant passes and
    whose first failing grant, a later one, fails `activate`'s `LATER_CHECK` (so the per-grant
    activation checks run at a later grant and decide the batch).  Stated with the obligation's
    own ``code_at`` (the model's definition as SPEC.md words it), and the outcome is that code."""
    k = z3.Const("later_k", zi.IntS)  # one per query; `zi.fresh` would renumber the rest
    later = CODE[f"{prefix}.{LATER_CHECK}"]
    return [
        n >= 2,
        z3.Not(s.ok),
        code_at(z3.IntVal(0)) == CODE["ok"],
        k >= 1,
        _in(n, k),
        _all_pass(k, code_at),
        code_at(k) == later,
        s.res.code == later,
    ]


def batch_outcome_many(v: Variant) -> Query:
    """SPEC.md §3: "`activate_many(grants, catalog)`: empty → returns 0, changes nothing.
    Otherwise, for each grant in request order: a tool id seen earlier in the batch →
    `BulkActivationError.DuplicateRequest(id)`; the `activate` validation, wrapped as
    `BulkActivationError.Grant(…)`; source trust → `UntrustedSource(id)` or
    `SourceProvenanceMismatch(id)`.  The first failure rejects the whole batch with zero
    mutation."  The whole outcome function: ``ok`` exactly when every grant passes, else the
    first failing grant's code and tool, and nothing changed."""
    s = step("activate_many", v)
    seq = s.args["grants"]
    st = sel(s.pre.sets, s.args["name"])
    tool = s.res.extras["tool"]

    def code_at(i: Any) -> Any:
        return _bulk_code(s, st, seq.at, i, "BulkActivationError")

    goal = z3.And(
        z3.Implies(_all_pass(seq.length, code_at), s.ok),
        _at_first_failure(
            seq.length,
            code_at,
            lambda k: z3.And(s.res.code == code_at(k), tool == G.g_tool(seq.at(k))),
        ),
        z3.Implies(z3.Not(s.ok), same(s.alg, s.pre, s.post)),
    )
    return s.query(goal, witness=_rejected_later(s, seq.length, code_at, "BulkActivationError"))


def batch_outcome_model(v: Variant) -> Query:
    """SPEC.md §5: "`activate_model_initiated(authority, set, catalog, ids)`: authority
    `Unauthorized` → `HostActivationError.ConfirmationRequired` before anything else;
    `ModelConfirmed` → issue every grant in request order (first failure → `Issuance(…)`,
    nothing applied), then `activate_many` (`Bulk(…)`)"; `issue_exact_grant`: "not cataloged →
    `GrantIssuanceError.UnknownTool(id)`; source trust → `UntrustedSource(id)` /
    `SourceProvenanceMismatch(id)`; else a grant at the current generation and digest" (for the
    set's session); §3 `activate_many` as in `batch_outcome_many`.  The whole outcome function
    and, on any rejection, nothing changed."""
    s = step("activate_model", v)
    seq = s.args["tools"]
    st = sel(s.pre.sets, s.args["name"])
    tool = s.res.extras["tool"]

    def issuance_at(i: Any) -> Any:
        trust = R.rec_trust(sel(s.pre.catalog, seq.at(i)))
        checks = [
            (z3.Not(R.is_Rec(sel(s.pre.catalog, seq.at(i)))), "UnknownTool"),
            (trust == zi.TRUST["untrusted"], "UntrustedSource"),
            (trust == zi.TRUST["mismatch"], "SourceProvenanceMismatch"),
        ]
        return _first_of(checks, "HostActivationError.Issuance")

    def grant_at(i: Any) -> Any:
        digest = R.rec_digest(sel(s.pre.catalog, seq.at(i)))
        return G.MkGrant(S.set_session(st), seq.at(i), s.pre.gen, digest)

    def bulk_at(i: Any) -> Any:
        return _bulk_code(s, st, grant_at, i, "HostActivationError.Bulk")

    def rejected_at(code_at: Callable[[Any], Any]) -> Callable[[Any], Any]:
        return lambda k: z3.And(s.res.code == code_at(k), tool == seq.at(k))

    n = seq.length
    goal = z3.And(
        z3.Implies(
            z3.Not(s.args["confirmed"]),
            s.res.code == CODE["HostActivationError.ConfirmationRequired"],
        ),
        z3.Implies(
            s.args["confirmed"],
            z3.And(
                _at_first_failure(n, issuance_at, rejected_at(issuance_at)),
                z3.Implies(
                    _all_pass(n, issuance_at),
                    z3.And(
                        z3.Implies(_all_pass(n, bulk_at), s.ok),
                        _at_first_failure(n, bulk_at, rejected_at(bulk_at)),
                    ),
                ),
            ),
        ),
        z3.Implies(z3.Not(s.ok), same(s.alg, s.pre, s.post)),
    )
    case = [
        s.args["confirmed"],
        _all_pass(n, issuance_at),
        *_rejected_later(s, n, bulk_at, "HostActivationError.Bulk"),
    ]
    return s.query(goal, witness=case)


def route_postcondition(v: Variant) -> Query:
    """SPEC.md §5: "`route_session_set(retained, catalog, fallback_session)`: with a retained
    shared set, return a copy of its current state as is (activations and pinned generation
    included, stale or not)"; §3 "`is_stale(catalog)` ⇔ set generation ≠ catalog generation"."""
    s = step("route", v)
    a = s.args
    kept = sel(s.pre.sets, a["retained"])
    goal = z3.Implies(
        a["has_retained"],
        z3.And(
            sel(s.post.sets, a["into"]) == kept,
            s.res.extras["stale"] == (S.set_catgen(kept) != s.pre.gen),
        ),
    )
    case = [a["has_retained"], a["retained"] != a["into"], S.set_catgen(kept) != s.pre.gen]
    return s.query(goal, witness=case)


def default_core_postcondition(v: Variant) -> Query:
    """SPEC.md §3: "`default_core_for_catalog(session, catalog)`: core = every record whose
    provenance is not `Unverified`; zero activations", each pinned "with its record's current
    digest AND provenance"."""
    s = step("set_default_core", v)
    new = sel(s.post.sets, s.args["name"])
    t = z3.FreshConst(zi.Tool, "t")
    rec = sel(s.pre.catalog, t)
    pinned = z3.If(
        z3.And(R.is_Rec(rec), z3.Not(zi.UNVERIFIED(R.rec_prov(rec)))),
        P.Pin(R.rec_digest(rec), R.rec_prov(rec)),
        P.NoPin,
    )
    goal = z3.And(S.is_TSet(new), z3.ForAll([t], sel(S.set_core(new), t) == pinned))
    unverified = zi.fresh("case_tool", zi.Tool)
    urec = sel(s.pre.catalog, unverified)
    kept = zi.fresh("case_tool", zi.Tool)  # and the core is not empty: some record is kept
    case = [R.is_Rec(urec), zi.UNVERIFIED(R.rec_prov(urec)), P.is_Pin(sel(S.set_core(new), kept))]
    return s.query(goal, witness=case)
