"""Rules for the whole of PROTOCOL.md, mixed into the explore machine.

`machine.ExploreMachine` drives the model's transitions with pooled entities; these rules add
what only the expected world (`session_toolset_model.world`) can answer: every identity op,
digests of random JSON, records with random sources, runtime names, summaries and tags,
wire-name resolution, raw request lines and requests with several faulty fields (PROTOCOL.md:
fields validated in row order, the first faulty one decides).  Random records stay in the
catalog only: the pooled rules (which need a tool's flavors) never draw them.
"""

from __future__ import annotations

from typing import Any, Final

from session_toolset_model.world import World
from session_toolset_model.world.alias import aliases
from session_toolset_model.world.fields import Fields, derived_id
from session_toolset_model.world.json_text import INT_MAX, INT_MIN

from ..conform.jsonio import RawLine, encode_value_line
from . import draw as st
from . import pools
from . import strategies as gen
from .draw import RuleBasedStateMachine, rule

Reply = dict[str, Any]
Request = Reply | RawLine


def expected_reply(world: World, request: Request) -> Reply:
    """The world's reply to a request object or a raw line."""
    if isinstance(request, RawLine):
        return world.handle_line(request.data)
    return world.handle(request)


PLAIN_DEPTH: Final = 32
"""Containers nested deeper than this take the world's text parser (SPEC.md's depth bound is the
parser's to apply)."""


def plain(value: object, depth: int = 0) -> bool:
    """A value the world's JSON text parser gives back unchanged from its compact UTF-8 encoding:
    strings (their line went out as raw UTF-8, so none holds a lone surrogate), booleans, null,
    integers within SPEC.md 1.4's integer range (others parse as doubles), and objects with
    string keys and arrays of those, shallowly nested.  Floats are not plain (``-0.0``, rounding
    and range are the parser's to decide)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return INT_MIN <= value <= INT_MAX  # type: ignore[operator]
    if depth >= PLAIN_DEPTH:
        return False
    if kind is dict:
        items = value.items()  # type: ignore[attr-defined]
        return all(type(k) is str and plain(v, depth + 1) for k, v in items)
    if kind is list:
        return all(plain(v, depth + 1) for v in value)  # type: ignore[attr-defined]
    return False


def expect_and_encode(world: World, request: Request) -> tuple[Reply, bytes]:
    """The world's reply to a request and the line the SUT is sent (newline-terminated), with
    the request encoded once.  A plain request (`plain`, raw UTF-8) is answered as the parsed
    value it is, without the world re-parsing its own encoding character by character: the
    parser would give back an equal value, so the reply is the one `World.handle` gives
    (`tests/explore/test_expect_fast.py` checks both paths agree on every request of a run)."""
    if isinstance(request, RawLine):
        return world.handle_line(request.data), request.data + b"\n"
    line, utf8 = encode_value_line(request)
    if utf8 and plain(request):
        return world.answer(request), line
    return world.handle_line(line[:-1]), line


def op_name(request: Request) -> str:
    """The op a request names, for coverage and messages (``send_line`` for raw lines)."""
    if isinstance(request, RawLine):
        return "send_line"
    op = request.get("op")
    return op if isinstance(op, str) else "?"


# -- requests with faulty fields ---------------------------------------------------------------
def _rows(text: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """``op field:kind ...`` a line (``field`` alone: its kind is its name; an indented line
    continues the op above)."""
    rows: dict[str, list[tuple[str, str]]] = {}
    op = ""
    for line in text.strip("\n").split("\n"):
        words = line.split()
        op = op if line.startswith(" ") else words.pop(0)
        fields = [(w.partition(":")[0], w.partition(":")[2] or w) for w in words]
        rows.setdefault(op, []).extend(fields)
    return {op: tuple(fields) for op, fields in rows.items()}


ROWS: Final = _rows("""
tool_id_parse raw:tool
tool_id source
session_id_parse raw:session
digest schema:any
catalog_insert source provenance schema:any id:opt_tool
    runtime_name:opt_str summary:opt_str tags:opt_strs
catalog_upsert replaced:tool_or_null source provenance schema:any
    id:opt_tool runtime_name:opt_str summary:opt_str tags:opt_strs
catalog_remove id:tool
catalog_rebase_past prior:u64
catalog_set_generation value:u64
factory_calls tool
issue_grant name:str session tool
forge_grant name:str session:grant_session tool generation:u64 digest:str
set_new name:str session core:tools
set_default_core name:str session
set_progressive_core name:str session
activate set grant
activate_many set grants
activate_user set tool
activate_model set authority tools
revoke set tool
rebuild set into:str progressive:bool carry_forward:opt_bool
route set:set_or_null into:str fallback_session:session
is_stale set
snapshot set
resolve wire_name:str
authorize set tool wire_name:opt_str
authorize_wire set wire_name:str
carry_forward_enabled env:str_or_null
""")
"""Each op's fields in PROTOCOL.md row order, with the kind of value each holds."""
_MISSING: Final = object()
_HOSTILE_ID: Final = "Builtin:read"
_HOSTILE_SESSION: Final = "a\nb"
FAULTS: Final[dict[str, tuple[Any, ...]]] = {
    "tool": (_MISSING, None, 5, _HOSTILE_ID, ""),
    "tool_or_null": (_MISSING, 5, _HOSTILE_ID),
    "opt_tool": (None, 5, _HOSTILE_ID),
    # a list is typed as a whole before its elements are parsed, then parsed in list order
    "tools": (
        _MISSING,
        None,
        "builtin:read",
        [5],
        ["builtin:read", _HOSTILE_ID],
        [_HOSTILE_ID, 5],
        [_HOSTILE_ID, ""],
    ),
    "session": (_MISSING, None, 5, _HOSTILE_SESSION, ""),
    "grant_session": (_MISSING, None, 5, _HOSTILE_SESSION, "s" * 257),
    "str": (_MISSING, None, 5, ["A"]),
    "str_or_null": (_MISSING, 5, False),
    "opt_str": (None, 5),
    "opt_strs": (None, "t", [1], ["t", 1]),
    "set": (_MISSING, None, 5, "nope"),
    "set_or_null": (_MISSING, 5, "nope"),
    "grant": (_MISSING, None, 5, "never-stored"),
    "grants": (_MISSING, None, "g1", [5], ["never-stored"], ["never-stored", 5]),
    "u64": (_MISSING, None, -1, 2**64, 1.0, "1", True),
    "bool": (_MISSING, None, 1, "true"),
    "opt_bool": (None, 1),
    "any": (_MISSING,),
    "source": (
        _MISSING,
        None,
        "builtin:read",
        {"kind": "martian"},
        {"kind": "builtin"},
        {"kind": "mcp", "server_id": 1, "server_tool_name": "x"},
    ),
    "provenance": (_MISSING, None, {"kind": "root"}, {"kind": "mcp_config"}),
    "authority": (_MISSING, None, 5, "root"),
}


# Strategies built once: building them inside a rule costs more than drawing from them.
SOURCES: Final = gen.sources()
RAW_TOOL_IDS: Final = gen.raw_tool_ids()
RAW_TOOL_IDS_OR_JUNK: Final = st.one_of(RAW_TOOL_IDS, st.sampled_from([5, None]))
SESSION_TEXTS: Final = gen.session_texts()
SCHEMAS: Final = gen.json_values(2)
JSON_VALUES: Final = gen.json_values()
RAW_LINES: Final = gen.raw_lines()
JSON_TEXT_LINES: Final = gen.json_text_lines()
RUNTIME_NAMES: Final = gen.runtime_names()
ESCAPING_WIRE_NAMES: Final = gen.escaping_wire_names()
LEXICAL_EDGE_LINES: Final = gen.lexical_edge_lines()
COLLIDING_NAMES: Final = gen.colliding_runtime_names()
SUMMARIES: Final = gen.unicode_text(0, 300)
TAGS: Final = st.lists(gen.unicode_text(0, 40), max_size=10)
SHORT_TEXT: Final = gen.unicode_text(0, 20)
WILD_OPS: Final = st.sampled_from(
    [
        "issue_grant",
        "activate_user",
        "authorize",
        "authorize",
        "revoke",
        "activate_model",
        "set_new",
        "factory_calls",
    ]
)
IDENTITY_SWEEP: Final = (
    "hello",
    "tool_id_parse",
    "tool_id",
    "session_id_parse",
    "carry_forward_enabled",
    "forge_grant",
)
PURE_CANDIDATES: Final[dict[str, st.SearchStrategy[Reply]]] = {
    "tool_id_parse": st.one_of(RAW_TOOL_IDS, st.sampled_from([5, None])).map(
        lambda raw: {"op": "tool_id_parse", "raw": raw}
    ),
    "tool_id": SOURCES.map(lambda source: {"op": "tool_id", "source": source}),
    "session_id_parse": SESSION_TEXTS.map(lambda raw: {"op": "session_id_parse", "raw": raw}),
    "carry_forward_enabled": st.sampled_from([None, "0", "00", "", " 0", "0 ", "1", "false"]).map(
        lambda env: {"op": "carry_forward_enabled", "env": env}
    ),
}
"""Candidates for the identity ops answered from their fields alone."""
HOSTILE_IDS: Final = st.one_of(
    [st.sampled_from(group) for group in pools.by_error(pools.HOSTILE_TOOL_IDS).values()]
)
HOSTILE_SESSIONS: Final = st.one_of(
    [st.sampled_from(group) for group in pools.by_error(pools.SESSION_CASES).values()]
)
"""The pools' hostile texts, drawn error class first so every expected code is about equally
likely: a faulty identity field is one of them half the time."""
FAULT_VALUES: Final = {kind: st.sampled_from(values) for kind, values in FAULTS.items()}
for _kind, _hostile in (
    ("tool", HOSTILE_IDS),
    ("tool_or_null", HOSTILE_IDS),
    ("tools", HOSTILE_IDS.map(lambda raw: ["builtin:read", raw])),
    ("session", HOSTILE_SESSIONS),
    ("grant_session", HOSTILE_SESSIONS),
):
    FAULT_VALUES[_kind] = st.one_of(FAULT_VALUES[_kind], _hostile)
EXTRAS: Final = st.sampled_from(
    ["none", "none", "both", "summary", "tags", "faulty summary", "faulty tags"]
)
"""A random record's optional summary and tags: each alone, both, neither, or one faulty."""
ABSENT_ID: Final = "wild:absent"
"""An upsert's ``replaced`` naming no record (fresh ids never take it): nothing to replace."""


PURE_WORLD: Final = World()
"""Answers the ops whose reply depends on their fields alone (identity parsing, `hello`,
`carry_forward_enabled`): the model deciding which class a candidate falls in.  Never the
compared world, so it records no condition and changes no state that is observed."""
CANDIDATES: Final = 6


def by_outcome(
    data: st.DataObject, candidates: st.SearchStrategy[Reply], accepted: bool, label: str
) -> Reply:
    """A request from ``candidates`` that the model accepts (or rejects, as ``accepted``
    says): up to `CANDIDATES` draws, the last kept if none falls in the wanted class.  Rare
    outcomes of a field-only op (a valid ToolId text among mostly hostile ones) then come as
    often as common ones, without the generator knowing which texts are valid."""
    request = data.draw(candidates, label=label)
    for _ in range(CANDIDATES - 1):
        if (PURE_WORLD.handle(request).get("ok") is True) == accepted:
            break
        request = data.draw(candidates, label=label)
    return request


def fresh_id(world: World, stem: str, taken: list[str] | None = None) -> str:
    """The first ``stem<N>`` that no record of ``world`` (and nothing in ``taken``) holds."""
    present = world.observe()["records"]
    n = 0
    while f"{stem}{n}" in present or (taken is not None and f"{stem}{n}" in taken):
        n += 1
    return f"{stem}{n}"


class WholeProtocolRules(RuleBasedStateMachine):
    """Rules over the ops and fields the pooled rules leave out (see module docstring)."""

    world: World

    def step(self, request: Request) -> Reply:  # the machine's comparing step
        raise NotImplementedError

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

    def faulty_fields(self, data: st.DataObject) -> None:
        """A request with one, two or three faulty fields: the first in row order decides.

        The deciding field is drawn uniformly from the op's row and its fault uniformly from
        the field kind's faults, so a late field (``authority``, ``provenance``, ``tags``) decides
        as often as the first one; the other faults come after it and must not matter."""
        op = data.draw(gen.sampled(sorted(ROWS)), label="op")
        row = ROWS[op]
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
                value = data.draw(FAULT_VALUES[kind], label=field)
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
