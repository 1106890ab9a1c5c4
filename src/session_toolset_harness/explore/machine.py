"""The stateful model-based test: one PROTOCOL.md request per rule, sent to the system under
test and the model's oracle side by side and checked by `observe.Observer`.

Entities recur through Bundles (tools, sessions, set names, grant names); hostile values come from
the hand-classified pools.  A request never carries two faulty fields at once (PROTOCOL.md does
not fix which of two field errors is reported)."""

from __future__ import annotations

from typing import Any

from session_toolset_model.conditions import RecordingAlgebra
from session_toolset_model.world import World

from ..conform.jsonio import RawLine
from ..declared_difference import steer_line, steer_value
from . import draw as st
from . import pools
from .context import RunContext
from .draw import Bundle, initialize, multiple, rule
from .macros import GenerationEdgeRules
from .observe import Observer
from .protocol_rules import Request, WholeProtocolRules, expect_and_encode

Reply = dict[str, Any]
MAX = pools.MAX_GENERATION
GRANT_NAMES = ("g1", "g2", "g3")

tool_ids = st.sampled_from(pools.TOOL_IDS)
set_names = st.sampled_from(pools.SET_NAMES)
grant_names = st.sampled_from(GRANT_NAMES)
flavors = st.sampled_from([0, 0, 1, 2])
"""A flavor index (modulo the tool's flavors): the trusted flavor 0 is drawn most often."""


class ExploreMachine(WholeProtocolRules, GenerationEdgeRules):
    """One example: reset both sides, then a sequence of rules (these and, inherited, the
    whole-protocol rules of `protocol_rules`)."""

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
        """Rebuild a set in place (so it is fresh), activate through one of the four doors, and
        optionally repeat the same request, revoke or call the first tool.

        Random catalog churn leaves most sets stale, so without this macro the success paths
        (and AlreadyActivated, revocation, exact-basis gate calls) would be rare.  The ``exact``
        and ``batch`` doors forge grants exact for the set's session and the current catalog —
        the low-level doors do not check source trust, so these reach the batch's trust
        checks.  ``skew`` makes one forged grant (the activated one, or the batch's last)
        carry another digest, the previous generation or another session; or repeats the first
        tool; or makes the set stale (a rebase) before the grants are forged; or re-catalogs
        the first tool with its second source/provenance first.
        """
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
