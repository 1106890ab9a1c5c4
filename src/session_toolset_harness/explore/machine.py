"""The stateful model-based test: one PROTOCOL.md request per rule, sent to the system under
test and the model's oracle side by side and checked by `observe.Observer`.

Entities recur through Bundles (tools, sessions, set names, grant names); hostile values come from
the hand-classified pools.  A request never carries two faulty fields at once (PROTOCOL.md does
not fix which of two field errors is reported)."""

from __future__ import annotations

from typing import Any

from session_toolset_model.conditions import RecordingAlgebra
from session_toolset_model.world import World
from session_toolset_model.world.alias import aliases
from session_toolset_model.world.fields import Fields, derived_id

from ..conform.jsonio import RawLine
from ..declared_difference import steer_line, steer_value
from . import draw as st
from . import pools
from . import strategies as gen
from .draw import Bundle, RuleBasedStateMachine, initialize, multiple, rule
from .observe import Observer, RunContext
from .protocol_rules import (
    _MISSING,
    ABSENT_ID,
    COLLIDING_NAMES,
    ESCAPING_WIRE_NAMES,
    EXTRAS,
    FAULT_VALUES,
    HOSTILE,
    HOSTILE_OPS,
    IDENTITY_SWEEP,
    JSON_TEXT_LINES,
    JSON_VALUES,
    LEXICAL_EDGE_LINES,
    PURE_CANDIDATES,
    RAW_LINES,
    RAW_TOOL_IDS,
    ROWS,
    RUNTIME_NAMES,
    SCHEMAS,
    SESSION_TEXTS,
    SHORT_TEXT,
    SOURCES,
    SUMMARIES,
    TAGS,
    WILD_OPS,
    Request,
    by_outcome,
    expect_and_encode,
    fresh_id,
)

Reply = dict[str, Any]
MAX = pools.MAX_GENERATION
GRANT_NAMES = ("g1", "g2", "g3")

tool_ids = st.sampled_from(pools.TOOL_IDS)
set_names = st.sampled_from(pools.SET_NAMES)
grant_names = st.sampled_from(GRANT_NAMES)
flavors = st.sampled_from([0, 0, 1, 2])
"""A flavor index (modulo the tool's flavors): the trusted flavor 0 is drawn most often."""


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


class ExploreMachine(RuleBasedStateMachine):
    """One example: reset both sides, then a sequence of rules."""

    tools = Bundle("tools")
    sessions = Bundle("sessions")
    sets = Bundle("sets")
    grants = Bundle("grants")

    def __init__(self, ctx: RunContext) -> None:
        super().__init__()
        self.ctx = ctx
        ctx.failure = None  # the last example run (the failing example's replay) decides
        self.world = World(alg=RecordingAlgebra(ctx.conditions))  # the model package's world
        # The comparison core (observe.py): replies, observable state, no partial mutation.
        self.observer = Observer(ctx, self.world.answer, lambda: self.world.oracle.state)
        self.observer.start()

    def step(self, request: Request) -> Reply:
        """Send one request to both sides; the observer checks reply, state and frame."""
        if self.ctx.steer_declared:
            request = self._steer(request)
        expected, line = expect_and_encode(self.world, request)
        self.observer.step(request, expected, line)
        return expected

    def _steer(self, request: Request) -> Request:
        """The request with SPEC.md 1.4's declared-difference literals replaced (counted)."""
        if isinstance(request, RawLine):
            data, count = steer_line(request.data)
            steered: Request = RawLine(data, request.hex) if count else request
        else:
            steered, count = steer_value(request)
        self.ctx.steered += count
        return steered

    def teardown(self) -> None:
        """The end of the example: the full observable state, and whatever is outstanding."""
        try:
            self.observer.finish()
        finally:
            self.ctx.examples_done += 1
            if self.ctx.watch is not None:
                self.ctx.watch(self.ctx)

    def _gen(self) -> int:
        return self.world.generation()

    def _member(self, name: str, tool: str, member: int) -> str:
        """Bias towards the set's own tools: ``member`` < 4 picks one of its core/activated
        tools (by index), if any; otherwise the drawn ``tool``.  Gate and revocation outcomes
        other than NotActivated need a tool the set knows."""
        s = self.world.observe()["sets"][name]
        known = [*s["activated"], *s["core"]] if member < 2 else [*s["core"], *s["activated"]]
        return known[member % len(known)] if member < 4 and known else tool

    def _record(self, tool: str, flavor: int, schema: int, derived: bool) -> Reply:
        f = pools.TOOL_BY_ID[tool].flavors[flavor % len(pools.TOOL_BY_ID[tool].flavors)]
        req: Reply = {
            "source": f.source.to_json(),
            "provenance": f.provenance.to_json(),
            "schema": pools.SCHEMAS[schema],
        }
        if not (f.derives and derived):
            req["id"] = tool
        return req

    # -- macros: one input of a compound decision changed, then the decision ----------
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

    # -- the whole protocol: identities, digests, raw lines, records, names, faults --------
    # -- valid values for a field kind, from the current world -------------------------------
    def _valid(self, kind: str, data: st.DataObject) -> Any:
        names = self.world.set_names()
        draw = data.draw
        if kind in ("tool", "opt_tool", "tool_or_null"):
            return draw(gen.sampled(pools.TOOL_IDS))
        if kind == "tools":
            return draw(st.lists(gen.sampled(pools.TOOL_IDS), max_size=2))
        if kind in ("session", "grant_session"):
            return draw(gen.sampled(pools.SESSIONS))
        if kind in ("set", "set_or_null"):
            return draw(gen.sampled(names)) if names else "A"
        if kind in ("grant", "grants"):
            grants = sorted(self.world.grants) or ["g1"]
            one = draw(gen.sampled(grants))
            return one if kind == "grant" else [one]
        if kind == "u64":
            return self.world.generation()
        if kind in ("bool", "opt_bool"):
            return draw(st.booleans())
        if kind == "authority":
            return draw(gen.sampled(["model_confirmed", "unauthorized"]))
        if kind == "str_or_null":
            return draw(gen.sampled([None, "0", "1"]))
        if kind == "any":
            return draw(gen.sampled(pools.SCHEMAS))
        if kind == "source":
            return {"kind": "builtin", "name": draw(gen.sampled(["read", "bash"]))}
        if kind == "provenance":
            return {"kind": "builtin_runtime"}
        if kind == "opt_strs":
            return ["t"]
        return draw(gen.sampled(["A", "B", "x"]))

    @rule(data=st.data(), kind=st.sampled_from(["identity", "digest"]))
    def protocol_probe(self, data: st.DataObject, kind: str) -> None:
        """One request outside the model's transitions: an identity op or a digest (random
        JSON, deep nesting or a raw line)."""
        (self.identity_probe if kind == "identity" else self.digest_probe)(data)

    @rule(data=st.data())
    def raw_request_line(self, data: st.DataObject) -> None:
        """A request line built from JSON text (SPEC.md 1.4's lexical rules in every position:
        kept and discarded values, keys, the op and the fields an op reads)."""
        self.step(RawLine(data.draw(JSON_TEXT_LINES, label="line")))

    @rule(data=st.data())
    def lexical_edge_line(self, data: st.DataObject) -> None:
        """A digest line of near misses of SPEC.md 1.4's lexical rules: brackets around the
        127-level bound in total and inside strings, surrogate escapes at every range edge and
        adjacency, numbers at the largest double (`strategies.lexical_edge_lines`)."""
        self.step(RawLine(data.draw(LEXICAL_EDGE_LINES, label="line").encode("utf-8")))

    @rule(data=st.data())
    def resolve_request(self, data: st.DataObject) -> None:
        self.resolve_probe(data)

    @rule(data=st.data())
    def faulty_request(self, data: st.DataObject) -> None:
        self.faulty_fields(data)

    @rule(data=st.data())
    def hostile_request(self, data: st.DataObject) -> None:
        """A request whose deciding fault is a tool id or session from the hostile pools, the
        error SPEC.md 1.1/1.2/1.5 names for it reported by whichever op parses that field."""
        self.faulty_fields(data, hostile=True)

    def faulty_fields(self, data: st.DataObject, hostile: bool = False) -> None:
        """A request with one, two or three faulty fields: the first in row order decides.

        The deciding field is drawn uniformly from the op's row (with ``hostile``, from its
        identity fields) and its fault uniformly from the field kind's faults, so a late field
        decides as often as the first one; the other faults come after it and must not matter."""
        op = data.draw(gen.sampled(HOSTILE_OPS if hostile else sorted(ROWS)), label="op")
        row = ROWS[op]
        if hostile:
            first = data.draw(gen.sampled([i for i, (_, k) in enumerate(row) if k in HOSTILE]))
        else:
            first = data.draw(st.integers(0, len(row) - 1), label="deciding field")
        later = range(first + 1, len(row))
        extra = data.draw(st.integers(0, 2), label="more faults") if later else 0
        broken = {first} | set(
            data.draw(st.lists(gen.sampled(later), max_size=extra), label="later faulty fields")
            if extra
            else ()
        )
        request: Reply = {"op": op}
        for index, (field, kind) in enumerate(row):
            if index in broken:
                faults = HOSTILE[kind] if hostile and index == first else FAULT_VALUES[kind]
                value = data.draw(faults, label=field)
            elif kind.startswith("opt_") and data.draw(st.booleans(), label=f"omit {field}"):
                continue
            else:
                value = self._valid(kind, data)
            if value is not _MISSING:
                request[field] = value
        self.step(request)

    # -- identities and digests --------------------------------------------------------------
    def identity_probe(self, data: st.DataObject) -> None:
        """Every identity op once.  For the ops answered from their fields
        alone, the outcome class (accepted or rejected) is drawn and the model picks a candidate
        of that class (`by_outcome`): most raw texts are hostile by design, so a valid
        one would otherwise be rare."""
        for op in IDENTITY_SWEEP:
            if op in PURE_CANDIDATES:
                accepted = data.draw(st.booleans(), label=f"{op} accepted")
                self.step(by_outcome(data, PURE_CANDIDATES[op], accepted, op))
            elif op == "hello":
                self.step({"op": "hello"})
            else:  # grant construction maps the same rules to its own codes
                self.step(
                    {
                        "op": "forge_grant",
                        "name": "g3",
                        "session": data.draw(SESSION_TEXTS),
                        "tool": "builtin:read",
                        "generation": 0,
                        "digest": "00",
                    }
                )

    def digest_probe(self, data: st.DataObject) -> None:
        kind = data.draw(gen.sampled(["value", "value", "deep", "line", "line"]), label="kind")
        if kind == "value":
            self.step({"op": "digest", "schema": data.draw(JSON_VALUES)})
        elif kind == "deep":
            depth = data.draw(gen.sampled([60, 125, 126]))
            self.step({"op": "digest", "schema": gen.nested(depth)})
        else:
            self.step(RawLine(data.draw(RAW_LINES)))

    # -- random records, runtime names, resolution -------------------------------------------
    @rule(data=st.data(), explicit=st.booleans(), upsert=st.booleans())
    def wild_record(self, data: st.DataObject, explicit: bool, upsert: bool) -> None:
        """A random record, then (often) one use of a random record through a gate or host
        door."""
        request, reply = self._wild_record(data, explicit, upsert)
        runtime_name = request.get("runtime_name")
        # Its own runtime name, at once: the name may be long (a resolve echoes the wire name
        # bounded to 128 bytes) and in a later step the record may be gone or shadowed.
        if (
            reply.get("ok") is True
            and isinstance(runtime_name, str)
            and data.draw(st.booleans(), label="resolve its runtime name")
        ):
            self.resolve_name(data, runtime_name)
        known = sorted(set(self.world.observe()["records"]) - set(pools.TOOL_IDS))
        use = data.draw(st.booleans(), label="use one")
        if known and use:
            self.wild_use(data, data.draw(gen.sampled(known), label="wild tool"))

    def _wild_record(
        self, data: st.DataObject, explicit: bool, upsert: bool
    ) -> tuple[Reply, Reply]:
        """A record from a random source (derived id) or with a random explicit id text, a
        random schema, runtime name (aliases that collide or sit at the 64-byte cut), summary
        and tags (bounded by the implementation, never shown in a reply, so only a faulty one
        shows that they are read: a record with one faulty, all else valid); the request and
        its expected reply.  An upsert replaces a present record, none, or an absent id."""
        source = data.draw(SOURCES, label="source")
        request: Reply = {
            "op": "catalog_upsert" if upsert else "catalog_insert",
            "source": source,
            "provenance": data.draw(gen.provenance_for(source), label="provenance"),
            "schema": data.draw(SCHEMAS, label="schema"),
        }
        if upsert:
            present = sorted(self.world.observe()["records"])
            request = {
                "op": "catalog_upsert",
                "replaced": data.draw(gen.sampled([None, *present[:4], ABSENT_ID])),
                **{k: v for k, v in request.items() if k != "op"},
            }
        if explicit:
            request["id"] = data.draw(RAW_TOOL_IDS, label="id")
        # a pooled id stays the pooled rules' (their flavors and schemas): use another one
        target = request.get("id", derived_id(Fields(request).source("source")))
        if target in pools.TOOL_BY_ID:
            request["id"] = target = "wild:" + target.replace(":", ".")
        if target in self.world.observe()["records"] and data.draw(
            st.booleans(), label="fresh id for a taken one"
        ):  # most sources derive one of few ids: without this most inserts are duplicates
            request["id"] = fresh_id(self.world, "wild:n")
        if data.draw(st.booleans(), label="with runtime_name"):
            request["runtime_name"] = data.draw(RUNTIME_NAMES, label="runtime_name")
        extras = data.draw(EXTRAS, label="summary/tags")
        if extras in ("summary", "both"):
            request["summary"] = data.draw(SUMMARIES, label="summary")
        if extras in ("tags", "both"):
            request["tags"] = data.draw(TAGS, label="tags")
        if extras == "faulty summary":
            request["summary"] = data.draw(FAULT_VALUES["opt_str"], label="summary")
        if extras == "faulty tags":
            request["tags"] = data.draw(FAULT_VALUES["opt_strs"], label="tags")
        return request, self.step(request)

    def wild_use(self, data: st.DataObject, tool: str) -> None:
        """The gate and host doors on a record with a random identity."""
        op = data.draw(WILD_OPS, label="op")
        names = self.world.set_names()
        name = data.draw(gen.sampled(names), label="set") if names else "A"
        if op == "issue_grant":
            self.step({"op": op, "name": "g1", "session": "s1", "tool": tool})
        elif op == "activate_model":
            self.step({"op": op, "set": name, "authority": "model_confirmed", "tools": [tool]})
        elif op == "set_new":
            self.step({"op": op, "name": name, "session": "s1", "core": [tool]})
        elif op == "factory_calls":
            self.step({"op": op, "tool": tool})
        else:
            self.step({"op": op, "set": name, "tool": tool})

    @rule(data=st.data(), upsert=st.booleans())
    def colliding_aliases(self, data: st.DataObject, upsert: bool) -> None:
        """Records whose runtime names share one alias base (SPEC.md 4's ``base_N`` and the
        64-byte cut), then every alias the world hands out resolved or called by wire name."""
        names = data.draw(COLLIDING_NAMES, label="runtime names")
        op = "catalog_upsert" if upsert else "catalog_insert"
        ids: list[str] = []  # fresh: a taken id would refuse the record (DuplicateToolId)
        for _ in names:
            ids.append(fresh_id(self.world, "wild:collide", taken=ids))
        for index, runtime_name in enumerate(names):
            builtin = data.draw(st.booleans(), label="builtin-sourced")  # builtins come first
            request: Reply = {
                "op": op,
                "source": {"kind": "builtin", "name": f"collide{index}"}
                if builtin
                else {"kind": "mcp", "server_id": "srv", "server_tool_name": f"collide{index}"},
                "provenance": {"kind": "builtin_runtime"}
                if builtin
                else {"kind": "mcp_config", "server_id": "srv"},
                "schema": pools.SCHEMAS[0],
                "id": ids[index],
                "runtime_name": runtime_name,
            }
            if upsert:
                request["replaced"] = None
            self.step(request)
        sets = self.world.set_names()
        for wire, entry in aliases(self.world.live()):
            if entry.tool not in ids:
                continue
            if data.draw(st.booleans(), label="call it") and sets:
                name = data.draw(gen.sampled(sets), label="set")
                self.step({"op": "authorize_wire", "set": name, "wire_name": wire})
            else:
                self.step({"op": "resolve", "wire_name": wire})

    def resolve_name(self, data: st.DataObject, wire: str) -> None:
        """``wire`` resolved, or called through the gate by a set the world holds."""
        names = self.world.set_names()
        if len(names) > 0 and data.draw(st.booleans(), label="call it"):
            name = data.draw(gen.sampled(names), label="set")
            self.step({"op": "authorize_wire", "set": name, "wire_name": wire})
        else:
            self.step({"op": "resolve", "wire_name": wire})

    def resolve_probe(self, data: st.DataObject) -> None:
        """Resolve (or authorize) a wire name: an alias or runtime name of a live record, a
        near miss, a text beyond the 128-byte bound (or at it, of characters a message escapes,
        so an unknown name's denial message must be cut to stay under 512 bytes), or a random
        one."""
        op = data.draw(gen.sampled(["resolve", "authorize_wire"]), label="op")
        pick = data.draw(
            gen.sampled(
                [
                    "alias",
                    "alias",
                    "runtime_name",
                    "prefix",
                    "long",
                    "escaping",
                    "escaping",
                    "random",
                ]
            ),
            label="pick",
        )
        world = self.world
        names = world.set_names()
        name = data.draw(gen.sampled(names), label="set") if names else "A"
        everyone = world.live()  # aliases are handed out over the whole registry
        live = everyone
        if op == "authorize_wire" and name in names:
            s = world.observe()["sets"][name]
            known = {*s["core"], *s["activated"]}
            live = [e for e in everyone if e.tool in known] or everyone  # a tool the set knows
        assigned = [(a, e) for a, e in aliases(everyone) if e in live]
        if pick == "alias" and assigned:
            wire = data.draw(gen.sampled([a for a, _ in assigned]))
        elif pick == "runtime_name" and live:
            wire = data.draw(gen.sampled([e.runtime_name for e in live]))
        elif pick == "prefix" and assigned:
            wire = data.draw(gen.sampled([a for a, _ in assigned]))[:-1]
        elif pick == "long":
            wire = data.draw(gen.sampled(["x" * 129, "é" * 65, "a" + "é" * 64, "y" * 300]))
        elif pick == "escaping":
            wire = data.draw(ESCAPING_WIRE_NAMES)
        else:
            wire = data.draw(SHORT_TEXT)
        if op == "resolve":
            self.step({"op": op, "wire_name": wire})
            return
        self.step({"op": op, "set": name, "wire_name": wire})

    # -- entities --------------------------------------------------------------------------
    @initialize(
        target=tools,
        batch=st.lists(tool_ids, min_size=1, max_size=4, unique=True),
        flavor=st.lists(flavors, min_size=4, max_size=4),
        schema=st.integers(0, 2),
    )
    def populate(self, batch: list[str], flavor: list[int], schema: int) -> Any:
        """Start each example with a few cataloged tools (mostly trusted): most behaviour
        needs records, and waiting for random inserts would spend the budget on UnknownTool."""
        for index, tool in enumerate(batch):
            self.step({"op": "catalog_insert", **self._record(tool, flavor[index], schema, True)})
        return multiple(*batch)

    @initialize(target=sessions, session=st.sampled_from(pools.SESSIONS))
    def first_session(self, session: str) -> str:
        return session

    @rule(target=tools, tool=tool_ids)
    def another_tool(self, tool: str) -> str:
        return tool

    @rule(target=sessions, session=st.sampled_from(pools.SESSIONS))
    def another_session(self, session: str) -> str:
        return session

    # -- catalog ---------------------------------------------------------------------------
    @rule(tool=tools, flavor=flavors, schema=st.integers(0, 2), derived=st.booleans())
    def catalog_insert(self, tool: str, flavor: int, schema: int, derived: bool) -> None:
        self.step({"op": "catalog_insert", **self._record(tool, flavor, schema, derived)})

    @rule(
        replaced=st.one_of(st.just(None), tools),
        tool=tools,
        flavor=flavors,
        schema=st.integers(0, 2),
        derived=st.booleans(),
    )
    def catalog_upsert(
        self, replaced: str | None, tool: str, flavor: int, schema: int, derived: bool
    ) -> None:
        record = self._record(tool, flavor, schema, derived)
        self.step({"op": "catalog_upsert", "replaced": replaced, **record})

    @rule(tool=tools)
    def catalog_remove(self, tool: str) -> None:
        self.step({"op": "catalog_remove", "id": tool})

    @rule(
        kind=st.sampled_from(
            ["rebase_zero", "rebase_current", "rebase_ahead", "set_0", "set_1"] * 2
            + ["rebase_max-1", "rebase_max", "set_max-2", "set_max-1", "set_max"]
        )
    )
    def catalog_generation(self, kind: str) -> None:
        """The generation seams, one rule so boundary values stay a small share of the steps."""
        gen = self._gen()
        values = {
            "zero": 0,
            "current": gen,
            "ahead": min(gen + 3, MAX),
            "0": 0,
            "1": 1,
            "max-2": MAX - 2,
            "max-1": MAX - 1,
            "max": MAX,
        }
        op, which = kind.split("_")
        if op == "rebase":
            self.step({"op": "catalog_rebase_past", "prior": values[which]})
        else:
            self.step({"op": "catalog_set_generation", "value": values[which]})

    # -- grants ----------------------------------------------------------------------------
    @rule(target=grants, name=grant_names, session=sessions, tool=tools)
    def issue_grant(self, name: str, session: str, tool: str) -> Any:
        reply = self.step({"op": "issue_grant", "name": name, "session": session, "tool": tool})
        return name if reply["ok"] else multiple()

    @rule(
        target=grants,
        name=grant_names,
        session=sessions,
        tool=tools,
        gen_kind=st.sampled_from(["current", "previous", "next", "zero", "max"]),
        digest=st.sampled_from(["current", "0", "1", "2", *pools.BOGUS_DIGESTS]),
    )
    def forge_grant(self, name: str, session: str, tool: str, gen_kind: str, digest: str) -> Any:
        gen = self._gen()
        generation = {
            "current": gen,
            "previous": max(gen - 1, 0),
            "next": min(gen + 1, MAX),
            "zero": 0,
        }.get(gen_kind, MAX)
        labels = list(self.ctx.digests.values())
        current = self.world.record_digest(tool)
        if digest == "current":
            text = current if current is not None else labels[0]
        elif digest in ("0", "1", "2"):
            text = labels[int(digest)]
        else:
            text = digest
        reply = self._forge(name, session, tool, generation, text)
        return name if reply["ok"] else multiple()

    # -- sets ------------------------------------------------------------------------------
    @rule(target=sets, name=set_names, session=sessions, core=st.lists(tools, max_size=3))
    def set_new(self, name: str, session: str, core: list[str]) -> Any:
        reply = self.step({"op": "set_new", "name": name, "session": session, "core": core})
        return name if reply["ok"] else multiple()

    @rule(target=sets, name=set_names, session=sessions, progressive=st.booleans())
    def set_built_core(self, name: str, session: str, progressive: bool) -> str:
        op = "set_progressive_core" if progressive else "set_default_core"
        self.step({"op": op, "name": name, "session": session})
        return name

    @rule(
        target=sets,
        source=sets,
        into=set_names,
        progressive=st.booleans(),
        carry=st.sampled_from([None, True, False]),
    )
    def rebuild(self, source: str, into: str, progressive: bool, carry: bool | None) -> str:
        request: Reply = {"op": "rebuild", "set": source, "into": into, "progressive": progressive}
        if carry is not None:
            request["carry_forward"] = carry
        self.step(request)
        return into

    @rule(target=sets, retained=st.one_of(st.just(None), sets), into=set_names, fallback=sessions)
    def route(self, retained: str | None, into: str, fallback: str) -> str:
        self.step({"op": "route", "set": retained, "into": into, "fallback_session": fallback})
        return into

    @rule(name=sets)
    def is_stale(self, name: str) -> None:
        self.step({"op": "is_stale", "set": name})

    @rule(name=sets, tool=tools, member=st.integers(0, 7))
    def revoke(self, name: str, tool: str, member: int) -> None:
        self.step({"op": "revoke", "set": name, "tool": self._member(name, tool, member)})

    # -- activation and the gate -----------------------------------------------------------
    @rule(name=sets, grant=grants)
    def activate(self, name: str, grant: str) -> None:
        self.step({"op": "activate", "set": name, "grant": grant})

    @rule(name=sets, batch=st.lists(grants, max_size=4))
    def activate_many(self, name: str, batch: list[str]) -> None:
        self.step({"op": "activate_many", "set": name, "grants": batch})

    @rule(name=sets, tool=tools)
    def activate_user(self, name: str, tool: str) -> None:
        self.step({"op": "activate_user", "set": name, "tool": tool})

    @rule(name=sets, confirmed=st.booleans(), batch=st.lists(tools, max_size=3))
    def activate_model(self, name: str, confirmed: bool, batch: list[str]) -> None:
        authority = "model_confirmed" if confirmed else "unauthorized"
        self.step({"op": "activate_model", "set": name, "authority": authority, "tools": batch})

    @rule(name=sets, tool=tools, member=st.integers(0, 7))
    def authorize(self, name: str, tool: str, member: int) -> None:
        self.step({"op": "authorize", "set": name, "tool": self._member(name, tool, member)})

    @rule(
        target=grants,
        name=sets,
        door=st.sampled_from(["user", "model", "exact", "batch", "all_batch", "all_model"]),
        batch=st.lists(tools, min_size=1, max_size=3),
        skew=st.sampled_from(
            [
                "none",
                "none",
                "none",
                "digest",
                "generation",
                "stale",
                "retrust",
                "foreign",
                "duplicate",
            ]
        ),
        then=st.sampled_from(["nothing", "again", "again", "revoke", "authorize"]),
    )
    def refresh_then_activate(
        self, name: str, door: str, batch: list[str], skew: str, then: str
    ) -> Any:
        """Rebuild a set in place (so it is fresh), activate through one of the four doors, then
        maybe repeat the request, revoke or call the first tool.  ``skew`` makes one forged
        grant carry another digest, generation or session, repeats a tool, makes the set stale,
        or re-catalogs the first tool with another flavor first: random catalog churn leaves
        most sets stale, so without this the success paths would be rare."""
        # Progressive: a default core would hold every verified record, leaving little to
        # activate (AlreadyCore).
        self.step({"op": "rebuild", "set": name, "into": name, "progressive": True})
        if skew == "retrust":  # re-catalog the first tool with its second (mostly untrusted) flavor
            self._upsert(batch[0], 1, 0)
            self.step({"op": "rebuild", "set": name, "into": name, "progressive": True})
        if skew == "stale":  # the grants below are current, the set is not
            self.step({"op": "catalog_rebase_past", "prior": 0})
        names: list[str] = []
        if door.startswith("all_"):  # every trusted record the set lacks: a batch that applies
            obs = self.world.observe()
            have = {*obs["sets"][name]["core"], *obs["sets"][name]["activated"]}
            fits = [t for t, r in obs["records"].items() if r["trust"] == "trusted"]
            batch = [t for t in fits if t not in have][:3] or batch
            door = door[4:]
            skew = skew if skew in ("duplicate", "stale") else "none"  # mostly: let it apply
        if skew == "duplicate":  # the same tool twice in one batch
            batch = [*batch, batch[0]]
        if door == "user":
            request: Reply = {"op": "activate_user", "set": name, "tool": batch[0]}
        elif door == "model":
            request = {
                "op": "activate_model",
                "set": name,
                "authority": "model_confirmed",
                "tools": batch,
            }
        else:
            # The skewed grant is the one activated (exact) or the batch's last, so the grants
            # before it are valid and a partial application would show.
            names = self._forge_exact(name, batch, skew, 0 if door == "exact" else len(batch) - 1)
            request = (
                {"op": "activate", "set": name, "grant": names[0]}
                if door == "exact"
                else {"op": "activate_many", "set": name, "grants": names}
            )
        self.step(request)
        if then == "again":
            self.step(request)
        elif then in ("revoke", "authorize"):
            self.step({"op": then, "set": name, "tool": batch[0]})
        return multiple(*names)

    def _forge_exact(self, name: str, batch: list[str], skew: str, target: int) -> list[str]:
        session = self.world.observe()["sets"][name]["session"]
        foreign = next(x for x in pools.SESSIONS if x != session)
        labels = list(self.ctx.digests.values())
        names = []
        for index, (grant_name, tool) in enumerate(zip(GRANT_NAMES, batch, strict=False)):
            digest = self.world.record_digest(tool) or labels[0]
            generation = self._gen()
            if index == target and skew == "digest":
                digest = labels[(labels.index(digest) + 1) % len(labels)]
            if index == target and skew == "generation":
                generation = max(generation - 1, 0)
            who = foreign if index == target and skew == "foreign" else session
            self._forge(grant_name, who, tool, generation, digest)
            names.append(grant_name)
        return names
