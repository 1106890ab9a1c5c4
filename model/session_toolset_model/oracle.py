"""The executable oracle: the model's definition run over concrete values.

API (every operation returns ``(code, payload)``; ``code`` is ``"ok"`` or PROTOCOL.md's dotted
error name; an unknown set name gives ``("Protocol", {})`` and changes nothing)::

    o = Oracle()                          # or Oracle(Variant(profile=...))
    o.catalog_insert(tool, digest, source, provenance)   -> {"id", "generation"}
    o.catalog_upsert(replaced | None, tool, digest, source, provenance) -> {"id", "generation"}
    o.catalog_remove(tool)                -> {"removed", "generation"}
    o.catalog_rebase_past(prior)          -> {"generation"}
    o.catalog_set_generation(value)       -> {"generation"}   (test seam, outside the model)
    o.set_new(name, session, core_ids) / o.set_default_core(name, session)
    o.set_progressive_core(name, session) -> {}
    o.is_stale(name)                      -> {"stale"}
    o.activate(name, grant)               -> {}
    o.activate_many(name, grants)         -> {"applied"}
    o.revoke(name, tool)                  -> {}
    o.rebuild(name, into, progressive, carry_forward=True) -> {"dropped": [{"tool", "reason"}]}
    o.authorize(name, tool)               -> {"tool", "basis"}
    o.issue_grant(session, tool)          -> {"grant": Grant}
    o.activate_user(name, tool)           -> {}
    o.activate_model(name, authority, tools) -> {"applied"}   (authority "model_confirmed" or
                                                               "unauthorized")
    o.route(name | None, into, fallback_session) -> {"stale"}
    o.observe()                           -> the full observable state (see `Oracle.observe`)

Tools, sessions, digests and set names are strings (a digest is any label: the oracle never
computes SchemaDigest); sources and provenances are `values.Source` / `values.Provenance`;
grants are `concrete.Grant(session, tool, gen, digest)`.  Error payloads carry ``tool`` for the
variants with an id, ``grant``/``catalog`` for StaleGeneration and ``set``/``catalog`` for
StaleSnapshot, as PROTOCOL.md names them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .concrete import CMap, ConcreteAlgebra, Grant, SetRec
from .ops import OPS
from .outcomes import WITH_TOOL
from .profiles import DEFAULT, Variant
from .state import Result, State, initial
from .values import Provenance, Source, is_progressive, is_unverified, source_trust

Reply = tuple[str, dict[str, Any]]
PROTOCOL_ERROR: Reply = ("Protocol", {})


def concrete_algebra() -> ConcreteAlgebra:
    return ConcreteAlgebra(unverified=is_unverified, progressive=is_progressive)


def error_payload(code: str, extras: dict[str, Any]) -> dict[str, Any]:
    """The PROTOCOL.md payload fields of an error code."""
    if code.endswith("StaleGeneration"):
        return {"grant": extras["grant"], "catalog": extras["catalog"]}
    if code.endswith("StaleSnapshot"):
        return {"set": extras["set"], "catalog": extras["catalog"]}
    if code in WITH_TOOL:
        return {"tool": extras["tool"]}
    return {}


class Oracle:
    """A world (catalog, generation, sets, factory counters) driven through the definition."""

    def __init__(self, variant: Variant = DEFAULT, alg: ConcreteAlgebra | None = None) -> None:
        """``alg``: another concrete interpretation (e.g. `conditions.RecordingAlgebra`)."""
        self.variant = variant
        self.alg = concrete_algebra() if alg is None else alg
        self.state: State = initial(self.alg, variant)

    def reset(self) -> None:
        self.state = initial(self.alg, self.variant)

    def _run(self, op: str, **args: Any) -> Result:
        result = OPS[op].run(self.alg, self.variant, self.state, args)
        self.state = result.state
        return result

    def _has(self, name: str | None) -> bool:
        return name is not None and self.state.sets[name] is not None

    def _reply(self, result: Result, ok: dict[str, Any]) -> Reply:
        code = result.code
        return (code, ok) if code == "ok" else (code, error_payload(code, result.extras))

    # -- catalog ---------------------------------------------------------------------------
    def catalog_insert(
        self, tool: str, digest: str, source: Source, provenance: Provenance
    ) -> Reply:
        r = self._run(
            "catalog_insert",
            tool=tool,
            digest=digest,
            prov=provenance,
            trust=source_trust(source, provenance),
        )
        return self._reply(r, {"id": tool, "generation": r.state.gen})

    def catalog_upsert(
        self, replaced: str | None, tool: str, digest: str, source: Source, provenance: Provenance
    ) -> Reply:
        r = self._run(
            "catalog_upsert",
            has_replaced=replaced is not None,
            replaced=replaced,
            tool=tool,
            digest=digest,
            prov=provenance,
            trust=source_trust(source, provenance),
        )
        return self._reply(r, {"id": tool, "generation": r.state.gen})

    def catalog_remove(self, tool: str) -> Reply:
        r = self._run("catalog_remove", tool=tool)
        return self._reply(r, {"removed": r.extras["removed"], "generation": r.state.gen})

    def catalog_rebase_past(self, prior: int) -> Reply:
        r = self._run("catalog_rebase_past", prior=prior)
        return self._reply(r, {"generation": r.state.gen})

    def catalog_set_generation(self, value: int) -> Reply:
        """PROTOCOL.md test seam: sets the counter only (not a model transition)."""
        st = self.state
        self.state = State(st.catalog, value, st.calls, st.sets)
        return ("ok", {"generation": value})

    # -- sets ------------------------------------------------------------------------------
    def set_new(self, name: str, session: str, core_ids: Sequence[str]) -> Reply:
        r = self._run("set_new", name=name, session=session, core_ids=tuple(core_ids))
        return self._reply(r, {})

    def set_default_core(self, name: str, session: str) -> Reply:
        return self._reply(self._run("set_default_core", name=name, session=session), {})

    def set_progressive_core(self, name: str, session: str) -> Reply:
        return self._reply(self._run("set_progressive_core", name=name, session=session), {})

    def is_stale(self, name: str) -> Reply:
        if not self._has(name):
            return PROTOCOL_ERROR
        r = self._run("is_stale", name=name)
        return self._reply(r, {"stale": r.extras["stale"]})

    def activate(self, name: str, grant: Grant) -> Reply:
        if not self._has(name):
            return PROTOCOL_ERROR
        return self._reply(self._run("activate", name=name, grant=grant), {})

    def activate_many(self, name: str, grants: Sequence[Grant]) -> Reply:
        if not self._has(name):
            return PROTOCOL_ERROR
        r = self._run("activate_many", name=name, grants=tuple(grants))
        return self._reply(r, {"applied": r.extras["applied"]})

    def revoke(self, name: str, tool: str) -> Reply:
        if not self._has(name):
            return PROTOCOL_ERROR
        return self._reply(self._run("revoke", name=name, tool=tool), {})

    def rebuild(self, name: str, into: str, progressive: bool, carry_forward: bool = True) -> Reply:
        if not self._has(name):
            return PROTOCOL_ERROR
        r = self._run(
            "rebuild", name=name, into=into, progressive=progressive, carry_forward=carry_forward
        )
        dropped: CMap = r.extras["dropped"]
        return self._reply(
            r, {"dropped": [{"tool": t, "reason": dropped[t]} for t in sorted(dropped)]}
        )

    # -- gate and host ---------------------------------------------------------------------
    def authorize(self, name: str, tool: str) -> Reply:
        if not self._has(name):
            return PROTOCOL_ERROR
        r = self._run("authorize", name=name, tool=tool)
        basis: dict[str, Any] = (
            {"kind": "core"}
            if r.extras["basis_core"]
            else {"kind": "exact", "catalog_generation": r.extras["basis_gen"]}
        )
        return self._reply(r, {"tool": tool, "basis": basis})

    def issue_grant(self, session: str, tool: str) -> Reply:
        r = self._run("issue_grant", session=session, tool=tool)
        return self._reply(r, {"grant": r.extras["grant"]})

    def activate_user(self, name: str, tool: str) -> Reply:
        if not self._has(name):
            return PROTOCOL_ERROR
        return self._reply(self._run("activate_user", name=name, tool=tool), {})

    def activate_model(self, name: str, authority: str, tools: Sequence[str]) -> Reply:
        if not self._has(name) or authority not in ("model_confirmed", "unauthorized"):
            return PROTOCOL_ERROR
        r = self._run(
            "activate_model",
            confirmed=authority == "model_confirmed",
            name=name,
            tools=tuple(tools),
        )
        return self._reply(r, {"applied": r.extras["applied"]})

    def route(self, name: str | None, into: str, fallback_session: str) -> Reply:
        if name is not None and not self._has(name):
            return PROTOCOL_ERROR
        r = self._run(
            "route",
            has_retained=name is not None,
            retained=name,
            into=into,
            fallback_session=fallback_session,
        )
        return self._reply(r, {"stale": r.extras["stale"]})

    # -- observation -----------------------------------------------------------------------
    def observe(self) -> dict[str, Any]:
        """The full observable state, as plain data::

        {"generation": int,
         "records": {tool: {"digest", "provenance", "trust"}},
         "sets": {name: {"session", "catalog_generation", "schema_generation",
                         "core": {tool: {"digest", "provenance"}},
                         "activated": {tool: {"session", "generation", "digest",
                                              "provenance"}}}},
         "factory_calls": {tool: int}}          (tools never called are absent)
        """
        st = self.state
        sets: dict[str, Any] = {}
        for name in sorted(st.sets):
            s: SetRec = st.sets[name]
            sets[name] = {
                "session": s.session,
                "catalog_generation": s.catgen,
                "schema_generation": s.schemagen,
                "core": {
                    t: {"digest": p.digest, "provenance": p.prov}
                    for t, p in sorted(s.core.as_dict().items())
                },
                "activated": {
                    t: {
                        "session": a.session,
                        "generation": a.gen,
                        "digest": a.digest,
                        "provenance": a.prov,
                    }
                    for t, a in sorted(s.acts.as_dict().items())
                },
            }
        return {
            "generation": st.gen,
            "records": {
                t: {"digest": r.digest, "provenance": r.prov, "trust": r.trust}
                for t, r in sorted(st.catalog.as_dict().items())
            },
            "sets": sets,
            "factory_calls": dict(sorted(st.calls.as_dict().items())),
        }
