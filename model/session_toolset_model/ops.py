"""The operation table: every transition with its argument sorts, precondition and outcomes.

Proofs iterate this table (fresh Z3 arguments per sort), the oracle calls it with concrete
values, and the reachability check covers every ``(operation, outcome)`` pair listed here.
Arguments are keyword arguments of the transition function; their sort keys are:
``tool session digest prov trust setname int bool grant seq_tool seq_grant``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import catalog, gate, host, sets
from .algebra import MAX_GENERATION, Algebra, Term
from .outcomes import ACTIVATION, BULK, CATALOG, GATE, HOST, ISSUANCE, OK
from .profiles import Variant
from .state import Result, State

Transition = Callable[..., Result]
Precondition = Callable[[Algebra, State, dict[str, Term]], Term]


@dataclass(frozen=True)
class Op:
    """One operation: transition, argument sorts, precondition, the outcomes it can return."""

    name: str
    fn: Transition
    args: tuple[tuple[str, str], ...]
    outcomes: tuple[str, ...]
    pre: Precondition
    set_args: tuple[str, ...] = ()
    """Arguments naming a set the operation writes (frame: every other set is untouched)."""
    catalog: bool = False
    """Whether the operation mutates the catalog (and only it)."""

    def run(self, alg: Algebra, v: Variant, st: State, args: dict[str, Term]) -> Result:
        return self.fn(alg, v, st, **args)


def _true(alg: Algebra, st: State, a: dict[str, Term]) -> Term:
    return alg.bool_(True)


def _record_wf(alg: Algebra, st: State, a: dict[str, Term]) -> Term:
    """A record whose provenance is Unverified is untrusted (SPEC.md source-trust row 1)."""
    return alg.implies(alg.unverified(a["prov"]), alg.eq(a["trust"], alg.trust("untrusted")))


def _set_exists(*names: str) -> Precondition:
    def pre(alg: Algebra, st: State, a: dict[str, Term]) -> Term:
        return alg.and_(*(alg.is_some(alg.select(st.sets, a[n])) for n in names))

    return pre


def _prior_u64(alg: Algebra, st: State, a: dict[str, Term]) -> Term:
    return alg.and_(alg.le(alg.int_(0), a["prior"]), alg.le(a["prior"], alg.int_(MAX_GENERATION)))


def _retained_exists(alg: Algebra, st: State, a: dict[str, Term]) -> Term:
    return alg.implies(a["has_retained"], alg.is_some(alg.select(st.sets, a["retained"])))


RECORD = (("tool", "tool"), ("digest", "digest"), ("prov", "prov"), ("trust", "trust"))
HOST_USER = tuple(c for c in HOST if c != "HostActivationError.ConfirmationRequired")

OPS: dict[str, Op] = {
    op.name: op
    for op in (
        Op("catalog_insert", catalog.insert, RECORD, (OK, *CATALOG[:2]), _record_wf, catalog=True),
        Op(
            "catalog_upsert",
            catalog.upsert,
            (("has_replaced", "bool"), ("replaced", "tool"), *RECORD),
            (OK, *CATALOG[:2]),
            _record_wf,
            catalog=True,
        ),
        Op(
            "catalog_remove",
            catalog.remove,
            (("tool", "tool"),),
            (OK, CATALOG[1]),
            _true,
            catalog=True,
        ),
        Op(
            "catalog_rebase_past",
            catalog.rebase_past,
            (("prior", "int"),),
            (OK, CATALOG[2]),
            _prior_u64,
            catalog=True,
        ),
        Op(
            "set_new",
            sets.new,
            (("name", "setname"), ("session", "session"), ("core_ids", "seq_tool")),
            (OK, "SessionToolSetError.UnknownCoreTool"),
            _true,
            ("name",),
        ),
        Op(
            "set_default_core",
            sets.new_default_core,
            (("name", "setname"), ("session", "session")),
            (OK,),
            _true,
            ("name",),
        ),
        Op(
            "set_progressive_core",
            sets.new_progressive_core,
            (("name", "setname"), ("session", "session")),
            (OK,),
            _true,
            ("name",),
        ),
        Op("is_stale", sets.is_stale, (("name", "setname"),), (OK,), _set_exists("name")),
        Op(
            "activate",
            sets.activate,
            (("name", "setname"), ("grant", "grant")),
            (OK, *ACTIVATION),
            _set_exists("name"),
            ("name",),
        ),
        Op(
            "activate_many",
            sets.activate_many,
            (("name", "setname"), ("grants", "seq_grant")),
            (OK, *BULK),
            _set_exists("name"),
            ("name",),
        ),
        Op(
            "revoke",
            sets.revoke_exact,
            (("name", "setname"), ("tool", "tool")),
            (OK, "ExactRevocationError.CoreTool", "ExactRevocationError.NotActivated"),
            _set_exists("name"),
            ("name",),
        ),
        Op(
            "rebuild",
            sets.rebuilt_for_catalog,
            (
                ("name", "setname"),
                ("into", "setname"),
                ("progressive", "bool"),
                ("carry_forward", "bool"),
            ),
            (OK,),
            _set_exists("name"),
            ("into",),
        ),
        Op(
            "authorize",
            gate.authorize,
            (("name", "setname"), ("tool", "tool")),
            (OK, *GATE[:5]),
            _set_exists("name"),
        ),
        Op(
            "issue_grant",
            host.issue_exact_grant,
            (("session", "session"), ("tool", "tool")),
            (OK, *ISSUANCE),
            _true,
        ),
        Op(
            "activate_user",
            host.activate_exact_for_user,
            (("name", "setname"), ("tool", "tool")),
            (OK, *HOST_USER),
            _set_exists("name"),
            ("name",),
        ),
        Op(
            "activate_model",
            host.activate_model_initiated,
            (("confirmed", "bool"), ("name", "setname"), ("tools", "seq_tool")),
            (OK, *HOST),
            _set_exists("name"),
            ("name",),
        ),
        Op(
            "route",
            host.route_session_set,
            (
                ("has_retained", "bool"),
                ("retained", "setname"),
                ("into", "setname"),
                ("fallback_session", "session"),
            ),
            (OK,),
            _retained_exists,
            ("into",),
        ),
    )
}


def outcomes_for(op: Op, v: Variant) -> tuple[str, ...]:
    """The outcomes of ``op`` under ``v`` (the generation-strict gate adds `StaleSet`)."""
    if op.name == "authorize" and v.profile == "generation-strict":
        return (*op.outcomes, GATE[5])
    return op.outcomes
