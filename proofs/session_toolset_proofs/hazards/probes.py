"""The hazards' probes (final operations from a state) and violation predicates.

A probe yields the candidate final sequences of one hazard from a concrete state of its domain;
a predicate says whether the executed sequence violates the hazard's expectation (or, for a
proved hazard, shows its witness case).  `search.shortest` combines them into minimal traces.
"""

from __future__ import annotations

from collections.abc import Iterator

from session_toolset_model.concrete import Grant
from session_toolset_model.enumerate import Action
from session_toolset_model.state import State

from .search import SESSION, Domain, Probe, Ran, alphabet, good_grant


def ok(r: Ran) -> bool:
    return bool(r.result.code == "ok")


def existing(st: State, d: Domain) -> list[str]:
    return [n for n in d.sets if st.sets[n] is not None]


def authorize(name: str, tool: str) -> Action:
    return Action.of("authorize", name=name, tool=tool)


def activate_authorize(st: State, d: Domain) -> Iterator[list[Action]]:
    for n in existing(st, d):
        for t in d.tools:
            g = good_grant(st, n, t)
            if g is not None:
                yield [Action.of("activate", name=n, grant=g), authorize(n, t)]


def core_authorize(opname: str) -> Probe:
    def probe(st: State, d: Domain) -> Iterator[list[Action]]:
        for n in d.sets:
            for t in d.tools:
                yield [Action.of(opname, name=n, session=SESSION), authorize(n, t)]

    return probe


def core_denied(steps: list[Ran]) -> bool:
    built, call = steps
    name, tool = call.action.kwargs["name"], call.action.kwargs["tool"]
    core = built.result.state.sets[name].core
    return core[tool] is not None and not ok(call)


def foreign_core_authorized(steps: list[Ran]) -> bool:
    built, call = steps
    name, tool = call.action.kwargs["name"], call.action.kwargs["tool"]
    pin = built.result.state.sets[name].core[tool]
    return pin is not None and pin.prov.kind != "builtin_runtime" and ok(call)


def reinsert_authorize(st: State, d: Domain) -> Iterator[list[Action]]:
    for n in existing(st, d):
        for t in d.tools:
            rec = st.catalog[t]
            if rec is None or st.sets[n].acts[t] is None:
                continue
            again = Action.of(
                "catalog_insert", tool=t, digest=rec.digest, prov=rec.prov, trust=rec.trust
            )
            yield [Action.of("catalog_remove", tool=t), again, authorize(n, t)]


def route(st: State, d: Domain) -> Iterator[list[Action]]:
    for n in existing(st, d):
        for m in d.sets:
            yield [
                Action.of("route", has_retained=True, retained=n, into=m, fallback_session=SESSION)
            ]


def issue_change_activate(st: State, d: Domain) -> Iterator[list[Action]]:
    """Issue a grant, make one catalog change, then activate with the grant issued before."""
    for n in existing(st, d):
        for t in d.tools:
            rec = st.catalog[t]
            if rec is None or rec.trust != "trusted":
                continue
            g = Grant(st.sets[n].session, t, st.gen, rec.digest)
            issue = Action.of("issue_grant", session=g.session, tool=t)
            for change in alphabet(st, d):
                if change.op.startswith("catalog_"):
                    yield [issue, change, Action.of("activate", name=n, grant=g)]


def stale_authorize(st: State, d: Domain) -> Iterator[list[Action]]:
    for n in existing(st, d):
        if st.sets[n].catgen != st.gen:
            for t in d.tools:
                yield [authorize(n, t)]


def activate_twice(st: State, d: Domain) -> Iterator[list[Action]]:
    for n in existing(st, d):
        for m in existing(st, d):
            for t in d.tools:
                g = good_grant(st, n, t)
                if m != n and g is not None:
                    yield [
                        Action.of("activate", name=n, grant=g),
                        Action.of("activate", name=m, grant=g),
                    ]


def drift_rebuild_authorize(st: State, d: Domain) -> Iterator[list[Action]]:
    for n in existing(st, d):
        for t in d.tools:
            if st.sets[n].acts[t] is None:
                continue
            for change in alphabet(st, d):
                if change.op == "catalog_upsert" and change.kwargs["tool"] == t:
                    for prog in (False, True):
                        rebuild = Action.of(
                            "rebuild", name=n, into=n, progressive=prog, carry_forward=True
                        )
                        yield [change, rebuild, authorize(n, t)]


def drifted_reauthorized(steps: list[Ran]) -> bool:
    change, _rebuilt, call = steps
    t, n = call.action.kwargs["tool"], call.action.kwargs["name"]
    act, rec = change.pre.sets[n].acts[t], change.result.state.catalog[t]
    drifted = rec is not None and (rec.digest != act.digest or rec.prov != act.prov)
    return drifted and all(ok(r) for r in steps)


def rebuild(carry: bool) -> Probe:
    def probe(st: State, d: Domain) -> Iterator[list[Action]]:
        for n in existing(st, d):
            for prog in (False, True):
                yield [Action.of("rebuild", name=n, into=n, progressive=prog, carry_forward=carry)]

    return probe


def core_changed_same_schemagen(steps: list[Ran]) -> bool:
    (r,) = steps
    n = r.action.kwargs["name"]
    old, new = r.pre.sets[n], r.result.state.sets[n]
    return ok(r) and old.core != new.core and old.schemagen == new.schemagen


def schemagen_lowered(steps: list[Ran]) -> bool:
    (r,) = steps
    n = r.action.kwargs["name"]
    return bool(r.result.state.sets[n].schemagen < r.pre.sets[n].schemagen)
