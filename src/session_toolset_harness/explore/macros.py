"""Macro rules: set up a subject, change one input of a compound decision (or none), decide.

* `drift_then_rebuild`: SPEC.md 3's carry condition (digest, provenance, source trust alone, the
  record removed, the tool now core, a fresh set, a revocation), the gate on the changed
  activation, then a rebuild (in place or not, progressive or default, carry-forward on, off or
  defaulted) and the gate again.
* `at_the_generation_edge`: every catalog mutation with the counter at 2^64-1 or one below.

They know SPEC.md's conditions, not any implementation's bugs."""

from __future__ import annotations

from typing import Any

from session_toolset_model.world import World

from . import draw as st
from . import pools
from .draw import RuleBasedStateMachine, rule

Reply = dict[str, Any]
CHANGES: tuple[str, ...] = (
    "none",
    "digest",
    "provenance",
    "provenance",
    "trust",
    "trust",
    "remove",
    "core",
)
CHANGES += ("fresh", "fresh", "revoke")
CARRY_CONDITIONS = ("digest", "provenance", "trust")
"""The changes that flip one condition of the rebuild's carry decision."""
NOT_PROGRESSIVE = tuple(t for t in pools.TOOL_IDS if t != "builtin:read" and t != "builtin:bash")


def _provenance_subject(tool: str) -> str:
    """``tool`` if one of its trusted flavors has a trusted twin of another provenance (so the
    provenance condition can be flipped while the others hold), else the first tool that has."""

    def flippable(t: str) -> bool:
        flavors = pools.TOOL_BY_ID[t].flavors
        return any(
            f.trust == "trusted" and pools.other_provenance_same_trust(t, i) is not None
            for i, f in enumerate(flavors)
        )

    return tool if flippable(tool) else next((t for t in NOT_PROGRESSIVE if flippable(t)), tool)


class SteeringRules(RuleBasedStateMachine):
    world: World

    def step(self, request: Any) -> Reply:  # the machine's comparing step
        raise NotImplementedError

    def _record(self, tool: str, flavor: int, schema: int, derived: bool) -> Reply:
        raise NotImplementedError

    def _upsert(self, tool: str, flavor: int, schema: int) -> None:
        """Re-catalog ``tool`` (replacing its record) with one pooled flavor and schema."""
        self.step(
            {"op": "catalog_upsert", "replaced": tool, **self._record(tool, flavor, schema, False)}
        )

    def _forge(self, name: str, session: str, tool: str, generation: int, digest: str) -> Reply:
        request = {"name": name, "session": session, "tool": tool, "generation": generation}
        return self.step({"op": "forge_grant", **request, "digest": digest})

    def _current_flavor(self, tool: str) -> int | None:
        info = self.world.records.get(tool)
        prov = self.world.observe()["records"].get(tool, {}).get("provenance")
        if info is None or prov is None:
            return None
        return pools.flavor_of(tool, info.source, prov)

    def _schema_index(self, tool: str) -> int:
        digest = self.world.record_digest(tool)
        for index, schema in enumerate(pools.SCHEMAS):
            if self.world.handle({"op": "digest", "schema": schema}).get("digest") == digest:
                return index
        return 0

    @rule(
        name=st.sampled_from(pools.SET_NAMES),
        session=st.sampled_from(pools.SESSIONS),
        tool=st.sampled_from(NOT_PROGRESSIVE),
        flavor=st.sampled_from([0, 0, 1, 2, 3]),
        change=st.sampled_from(CHANGES),
        into=st.sampled_from(["same", "same", "other"]),
        progressive=st.sampled_from([True, True, False]),
        carry=st.sampled_from([None, None, True, False]),
        call=st.booleans(),
    )
    def drift_then_rebuild(
        self,
        name: str,
        session: str,
        tool: str,
        flavor: int,
        change: str,
        into: str,
        progressive: bool,
        carry: bool | None,
        call: bool,
    ) -> None:
        """Activate ``tool`` exactly in a fresh set (progressive, or `new` with no core), change
        one condition of the rebuild's carry decision (or none), rebuild, call the tool."""
        if change == "provenance":
            tool = _provenance_subject(tool)
        if change in CARRY_CONDITIONS:
            # The flip is of the carry condition: only a progressive rebuild with carry-forward
            # on evaluates it (a default build makes the trusted tool core, carry off inherits
            # nothing), so the rebuild below is one.
            progressive, carry = True, None if carry is False else carry
        flavors = pools.TOOL_BY_ID[tool].flavors
        flavor %= len(flavors)
        if self._current_flavor(tool) is None:
            self._upsert(tool, flavor, 0)
        if call:  # the subject set from either constructor: `new` with no core, or progressive
            self.step({"op": "set_progressive_core", "name": name, "session": session})
        else:
            self.step({"op": "set_new", "name": name, "session": session, "core": []})
        digest = self.world.record_digest(tool)
        if digest is None:
            return
        self._forge("g1", session, tool, self.world.generation(), digest)
        self.step({"op": "activate", "set": name, "grant": "g1"})
        current = self._current_flavor(tool)
        schema = self._schema_index(tool)
        if change == "digest" and current is not None:
            self._upsert(tool, current, (schema + 1) % len(pools.SCHEMAS))
        elif change in ("provenance", "trust") and current is not None:
            # Only the provenance moves (the same trust verdict, when the pool has such a
            # flavor; else the first other provenance), or only the source trust.
            if change == "trust":
                other = pools.same_provenance_other_trust(tool, current)
            elif (other := pools.other_provenance_same_trust(tool, current)) is None:
                here = flavors[current].provenance
                other = next((i for i, f in enumerate(flavors) if f.provenance != here), None)
            if other is not None:
                self._upsert(tool, other, schema)
        elif change == "remove":
            self.step({"op": "catalog_remove", "id": tool})
        elif change == "revoke":  # the activation itself goes (revoke_exact's success path)
            self.step({"op": "revoke", "set": name, "tool": tool})
        elif change == "core":
            progressive = False  # a default build makes every verified record core
        if change != "core":  # the gate's checks on the changed activation, before the rebuild
            self.step({"op": "authorize", "set": name, "tool": tool})
        target = name if into == "same" else next(n for n in pools.SET_NAMES if n != name)
        if change == "fresh":
            fresh: Reply = {"name": target, "session": session}
            if carry is None:
                self.step({"op": "set_new", **fresh, "core": [] if progressive else [tool]})
            else:
                op = "set_progressive_core" if progressive else "set_default_core"
                self.step({"op": op, **fresh})
            if call:
                self.step({"op": "authorize", "set": target, "tool": tool})
            return
        request: Reply = {"op": "rebuild", "set": name, "into": target, "progressive": progressive}
        if carry is not None:
            request["carry_forward"] = carry
        self.step(request)
        if call:
            self.step({"op": "authorize", "set": target, "tool": tool})


class GenerationEdgeRules(SteeringRules):
    @rule(
        value=st.sampled_from(["max", "max", "max-1"]),
        op=st.sampled_from(["insert", "upsert", "remove", "remove_absent", "rebase"]),
        tool=st.sampled_from(pools.TOOL_IDS),
    )
    def at_the_generation_edge(self, value: str, op: str, tool: str) -> None:
        """Every catalog mutation with the counter at 2^64-1 (or one below), on a present or
        absent record: each condition of the exhausted/overflow checks flipped on its own."""
        top = pools.MAX_GENERATION
        self.step({"op": "catalog_set_generation", "value": top if value == "max" else top - 1})
        present = tool in self.world.observe()["records"]
        if op == "insert":
            self.step({"op": "catalog_insert", **self._record(tool, 0, 0, False)})
        elif op == "upsert":
            self._upsert(tool, 0, 1)
        elif op == "remove" or (op == "remove_absent" and not present):
            self.step({"op": "catalog_remove", "id": tool})
        elif op == "remove_absent":
            self.step({"op": "catalog_remove", "id": "unknown:absent-tool"})
        else:
            self.step({"op": "catalog_rebase_past", "prior": 0})
