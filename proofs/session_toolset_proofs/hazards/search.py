"""Minimal traces from the initial state: breadth-first search over a small domain.

A hazard's *probe* is the short sequence of final operations its candidate property talks
about (e.g. "activate, then authorize the same tool"); its *prefix* is any sequence of
state-changing operations from PROTOCOL.md's ``reset``.  `shortest` explores prefixes in order of
length (breadth first, every successful state-changing action of the domain's alphabet, states
deduplicated), and at every state tries every probe instance; the first state that yields a
violating probe ends the search.  Because every state reachable by a shorter prefix was probed
before, the trace found - prefix plus probe - is of minimal length among all traces over the
domain that end in the probe (ties are broken by the fixed alphabet order, so the result is
deterministic).  The alphabet (`alphabet`): insert, upsert (new digest, every record kind),
remove and rebase of each domain tool; set_new (empty or one core tool), default and
progressive builds of each set name; for an existing set, `activate` with the grant issuance
would give, `activate_user` and `revoke` of each tool, `activate_model` of all domain tools at
once (a batch: one schema_generation step), carry-forward and zero-inheritance rebuilds in place,
and `route` of it into each set name.  Rejected operations change nothing (proved:
no_partial_mutation), and `is_stale`, `issue_grant`, `authorize` change at most a factory
counter no hazard reads, so none of them can shorten a trace; they appear only in probes.

The domain is deliberately small (at most three tools, two set names, one session, the four
record kinds of `enumerate.KINDS`, two digests): a hazard's minimal trace is minimal *over that
domain*; a hazard that needs a bigger one says so in its own definition (`Domain`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from session_toolset_model.concrete import Grant
from session_toolset_model.enumerate import ALG, KINDS, T0, T1, Action, insert, new_set, upsert
from session_toolset_model.ops import OPS
from session_toolset_model.profiles import DEFAULT, Variant
from session_toolset_model.state import Result, State, initial

SESSION = "s-1"
BASH = "builtin:bash"
"""A tool of SPEC.md's progressive-core list (its record's source is whatever its kind says)."""


@dataclass(frozen=True)
class Domain:
    """The tools and set names a search ranges over."""

    tools: tuple[str, ...] = (T0,)
    sets: tuple[str, ...] = ("A",)
    kinds: tuple[str, ...] = tuple(KINDS)
    """Record kinds (`enumerate.KINDS`) an insert or upsert may use."""

    def describe(self) -> str:
        return (
            f"tools {', '.join(self.tools)}; sets {', '.join(self.sets)}; session {SESSION}; "
            f"record kinds {', '.join(self.kinds)}; digests d0, d1"
        )


ONE = Domain()
TWO_TOOLS = Domain((T0, T1))
TWO_SETS = Domain((T0,), ("A", "B"))
PROGRESSIVE = Domain((BASH,))


def good_grant(st: State, name: str, tool: str) -> Grant | None:
    """The grant `issue_exact_grant` would give set ``name``'s session for ``tool`` now (issued
    or forged: `activate` sees only the four-tuple); None when there is none."""
    s, rec = st.sets[name], st.catalog[tool]
    if s is None or rec is None:
        return None
    return Grant(s.session, tool, st.gen, rec.digest)


def alphabet(st: State, d: Domain) -> Iterator[Action]:
    """Every state-changing action of the domain, in a fixed order."""
    for t in d.tools:
        for kind in d.kinds:
            yield insert(t, "d0", kind)
        yield upsert(t, t, "d1", d.kinds[0])
        for kind in d.kinds:
            yield upsert(t, t, "d0", kind)
        yield Action.of("catalog_remove", tool=t)
    yield Action.of("catalog_rebase_past", prior=st.gen)
    for n in d.sets:
        yield new_set(n, SESSION, ())
        for t in d.tools:
            yield new_set(n, SESSION, (t,))
        yield Action.of("set_default_core", name=n, session=SESSION)
        yield Action.of("set_progressive_core", name=n, session=SESSION)
        if st.sets[n] is None:
            continue
        for t in d.tools:
            g = good_grant(st, n, t)
            if g is not None:
                yield Action.of("activate", name=n, grant=g)
            yield Action.of("activate_user", name=n, tool=t)
            yield Action.of("revoke", name=n, tool=t)
        if len(d.tools) > 1:
            yield Action.of("activate_model", confirmed=True, name=n, tools=d.tools)
        for prog in (False, True):
            for carry in (True, False):
                yield Action.of("rebuild", name=n, into=n, progressive=prog, carry_forward=carry)
        for m in d.sets:
            yield Action.of(
                "route", has_retained=True, retained=n, into=m, fallback_session=SESSION
            )


@dataclass(frozen=True)
class Ran:
    """One executed action: the state before it, the action and its result."""

    pre: State
    action: Action
    result: Result


def run(v: Variant, st: State, actions: Iterable[Action]) -> list[Ran] | None:
    """Run actions in order under ``v``; None if one's precondition fails."""
    out = []
    for act in actions:
        if not OPS[act.op].pre(ALG, st, act.kwargs):
            return None
        res = act.run(v, st)
        out.append(Ran(st, act, res))
        st = res.state
    return out


Probe = Callable[[State, Domain], Iterable[list[Action]]]
"""Candidate final sequences from a state (each checked by the hazard's predicate)."""
Violates = Callable[[list[Ran]], bool]


@dataclass(frozen=True)
class Trace:
    """A minimal trace: the prefix (every step succeeded) and the probe's steps."""

    prefix: tuple[Action, ...]
    probe: tuple[Ran, ...]
    explored: int
    """How many distinct states were probed before this one (the search's work)."""

    @property
    def actions(self) -> tuple[Action, ...]:
        return (*self.prefix, *(s.action for s in self.probe))

    @property
    def length(self) -> int:
        return len(self.prefix) + len(self.probe)


MAX_DEPTH = 6
"""Longest prefix tried; a hazard with no violation within it reports ``not found``."""


def shortest(
    probe: Probe, violates: Violates, d: Domain, v: Variant = DEFAULT, depth: int = MAX_DEPTH
) -> Trace | None:
    """The first (shortest prefix, then alphabet order) violating probe from ``reset``."""
    start = initial(ALG, v)
    seen = {start}
    frontier: deque[tuple[State, tuple[Action, ...]]] = deque([(start, ())])
    explored = 0
    while frontier:
        st, prefix = frontier.popleft()
        explored += 1
        for final in probe(st, d):
            steps = run(v, st, final)
            if steps is not None and violates(steps):
                return Trace(prefix, tuple(steps), explored)
        if len(prefix) == depth:
            continue
        for act in alphabet(st, d):
            if not OPS[act.op].pre(ALG, st, act.kwargs):
                continue
            res = act.run(v, st)
            if res.code != "ok" or res.state in seen:
                continue
            seen.add(res.state)
            frontier.append((res.state, (*prefix, act)))
    return None
