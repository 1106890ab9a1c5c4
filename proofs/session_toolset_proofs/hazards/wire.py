"""The wire-name hazard: SPEC.md section 4's aliases, stated concretely, across catalog changes.

The model leaves `resolve` out (aliases are a function of the whole live registry, not of one
tool's record), so this hazard is checked by the concrete search alone, over a small executable
statement of the SPEC.md alias rule written here from the text - not taken from the
implementation.  Its vector pins what the reference implementation does today (tested through
the PROTOCOL.md adapter), which is also a check of this statement of the rule.

Every record of the domain is MCP-sourced (`enumerate.source_of`), so none is builtin; each tool
has a fixed runtime name (`RUNTIME`) chosen so aliases collide: ``a b``, ``a.b`` and ``a_b`` all
sanitise to ``a_b``, and byte order puts ``a b`` < ``a.b`` < ``a_b``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from session_toolset_model.enumerate import T0, T1, T2, Action
from session_toolset_model.profiles import DEFAULT
from session_toolset_model.state import State

from .definitions import Hazard
from .search import Domain, Ran, alphabet

RUNTIME = {T0: "a.b", T1: "a_b", T2: "a b"}
"""The runtime name of each tool of the wire domain (`catalog_insert`'s ``runtime_name``)."""

ALIAS_MAX_BYTES = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def _order(st: State) -> list[tuple[str, str]]:
    """Live tools as (runtime name, id) in SPEC.md's hand-out order (no builtins here)."""
    live = [(RUNTIME[t], t) for t in sorted(st.catalog.as_dict())]
    return sorted(live, key=lambda e: (e[0].encode(), e[1].encode()))


def aliases(st: State) -> dict[str, str]:
    """SPEC.md section 4: alias -> tool id, for every live tool of ``st``."""
    out: dict[str, str] = {}
    for runtime, tool in _order(st):
        base = _UNSAFE.sub("_", runtime)[:ALIAS_MAX_BYTES]
        alias, n = base, 2
        while alias in out:
            suffix = f"_{n}"
            alias = base[: ALIAS_MAX_BYTES - len(suffix)] + suffix
            n += 1
        out[alias] = tool
    return out


def resolve(st: State, wire: str) -> str | None:
    """Alias match first, then the first live tool with that runtime name; else None."""
    found = aliases(st).get(wire)
    if found is not None:
        return found
    return next((t for runtime, t in _order(st) if runtime == wire), None)


def reassigned_wire(before: State, after: State, t1: str, t2: str) -> str | None:
    """The first alias of ``before`` that selected ``t1`` and selects ``t2`` in ``after``."""
    return next(
        (w for w, t in aliases(before).items() if t == t1 and resolve(after, w) == t2), None
    )


def _probe(st: State, d: Domain) -> Iterator[list[Action]]:
    """Call through an alias, one catalog change to another tool, call through it again."""
    for n in d.sets:
        if st.sets[n] is None:
            continue
        for change in alphabet(st, d):
            if not change.op.startswith("catalog_"):
                continue
            res = change.run(DEFAULT, st)
            if res.code != "ok":
                continue
            touched = change.kwargs.get("tool")
            for w, t1 in aliases(st).items():
                t2 = resolve(res.state, w)
                if t2 is not None and t2 != t1 and touched not in (t1, t2):
                    yield [
                        Action.of("authorize", name=n, tool=t1),
                        change,
                        Action.of("authorize", name=n, tool=t2),
                    ]


def _violates(steps: list[Ran]) -> bool:
    return all(r.result.code == "ok" for r in steps)


WIRE = Domain((T0, T1, T2), ("A",), ("trusted",))

HAZARD = Hazard(
    "wire.alias_reassigned",
    "a wire name keeps selecting the tool it selected when the model saw the tool list, or "
    "selects nothing authorized: never a different authorized tool after an unrelated change",
    "4",
    "An alias or a collision suffix can never select a different identity than the tool it "
    "resolves to.",
    "catalog change 'insert or remove an unrelated tool' under the alias hand-out order "
    "(outside the model: concrete statement of the alias rule in `hazards.wire`)",
    "open question",
    "aliases are recomputed from the whole live catalog, so inserting an unrelated colliding "
    "tool shifts collision suffixes: a call made from an older tool list runs a different "
    "authorized tool; neither `resolve` nor the gate ties a wire name to a generation",
    "refuted",
    WIRE,
    _probe,
    _violates,
)
