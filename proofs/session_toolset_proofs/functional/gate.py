"""SPEC.md §4, `ExecutionGate.authorize(catalog, set, resolved)`, stated declaratively.

The resolved call's tool id is the transition's ``tool``; the set is the one named ``name``.
The factory call count of each record is the world's ``calls``: "only then call the record's
factory, exactly once".
"""

from __future__ import annotations

from typing import Any

import z3  # type: ignore[import-untyped]

from .common import CODE, A, Expected, P, R, S, World, first_of, trust_checks, unchanged

E = "ToolAuthorizationError."


def authorize(w: World, a: dict[str, Any]) -> Expected:
    """§4: "checks in order; any failure acquires nothing and changes nothing:
    1. no record for the id → `ToolAuthorizationError.NotCataloged(id)`;
    2. if core: pinned digest ≠ record digest → `SchemaDigestMismatch(id)`; basis `Core`.
       elif activated: activation digest ≠ record digest → `SchemaDigestMismatch(id)`; the grant
       must cover (session, tool, current digest) — generation deliberately not compared — else
       `NotActivated(id)`; basis `Exact{catalog_generation of the grant}`.
       else → `NotActivated(id)`;
    3. pinned provenance ≠ record's current provenance → `SourceProvenanceMismatch(id)`;
    4. source trust of the record → `UntrustedSource(id)` / `SourceProvenanceMismatch(id)`;
    5. only then call the record's factory, exactly once, and return the `AuthorizedToolCall`
       (resolved call, implementation, basis)."
    The grant of an activation at key ``id`` names ``id``; it covers the call when its session
    is the set's and its digest is the record's current one."""
    t = a["tool"]
    s = z3.Select(w.sets, a["name"])
    rec = z3.Select(w.catalog, t)
    pin = z3.Select(S.set_core(s), t)
    act = z3.Select(S.set_acts(s), t)
    core = P.is_Pin(pin)
    activated = z3.And(z3.Not(core), A.is_Act(act))
    covers = z3.And(A.act_session(act) == S.set_session(s), A.act_digest(act) == R.rec_digest(rec))
    pinned_prov = z3.If(core, P.pin_prov(pin), A.act_prov(act))
    checks = [
        (z3.Not(R.is_Rec(rec)), "NotCataloged"),
        (z3.And(core, P.pin_digest(pin) != R.rec_digest(rec)), "SchemaDigestMismatch"),
        (z3.And(activated, A.act_digest(act) != R.rec_digest(rec)), "SchemaDigestMismatch"),
        (z3.And(activated, z3.Not(covers)), "NotActivated"),
        (z3.And(z3.Not(core), z3.Not(activated)), "NotActivated"),
        (pinned_prov != R.rec_prov(rec), "SourceProvenanceMismatch"),
        *trust_checks(rec),
    ]
    code = first_of([(c, E + n) for c, n in checks])
    ok = code == CODE["ok"]
    called = z3.Store(w.calls, t, z3.Select(w.calls, t) + 1)
    payload = [
        (z3.BoolVal(True), "tool", t),
        (ok, "basis_core", core),
        (z3.And(ok, z3.Not(core)), "basis_gen", A.act_gen(act)),
    ]
    return Expected(code, unchanged(w, calls=z3.If(ok, called, w.calls)), payload)
