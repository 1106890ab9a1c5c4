"""The two interpretations agree, checked by `prove` itself (rows ``agree.<op>``).

Every proof is about the Z3 interpretation; every test, vector and exploration runs the concrete
one.  They are the same Python definition, but each interpretation supplies its own primitives
(`z3_interp.Z3Algebra`: quantified side definitions for loops and bulk map updates, witnesses
for "some key", read-over-write, ...), so a slip on one side alone would make the proofs speak
about a different machine than the one tested.  For each operation and profile, `cases` picks
reachable pre-states of the bounded enumerator (`enumerate.nodes`) and arguments of the op's
small alphabet - the op's interesting success (`search.success`: a successful batch of at
least two, a carry-forward rebuild that drops something, a record replaced, ...), a rejection,
and a step at the u64 seam (generation 2^64-2 or 2^64-1) - runs the concrete transition, and
asks Z3 two questions about the Z3 transition from the same state (distinct constants per
value, `pin.Encoder`):

* the concrete outcome, post-state and payload *satisfy* it (``sat``): fails when the Z3 side
  computes something else, and when a wrong side definition makes it unsatisfiable;
* no other outcome or post-state is possible (``unsat``): fails when the Z3 side leaves it open.

Under a model mutant both sides run the mutant, on the instance its mutant row found (where the
mutant's behaviour differs from the definition's); under a mutant of the Z3 side alone
(``z3_*``) the check must *fail* on the default cases (`Z3_ONLY`), which shows it can.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.algebra import MAX_GENERATION
from session_toolset_model.concrete import CMap, Grant
from session_toolset_model.enumerate import ALG, Action, Node, candidates, nodes, outcome
from session_toolset_model.ops import OPS
from session_toolset_model.profiles import Variant
from session_toolset_model.state import Result, State

from .pin import Encoder, pin_step
from .solve import _solver
from .steps import FINITE_STATES, SEARCH_BOUND, Step, step

RLIMIT = 5_000_000
"""Budget of each agreement query (ground but for the side definitions: far below it)."""

INSTANCE_RLIMIT = 2_000_000
"""Budget of the unbounded agreement query on a mutant's instance; ``unknown`` there is asked
again of the bounded interpretation (reported in the row's trace)."""

PROFILE_OPS = ("authorize",)
"""The ops whose definition reads the profile (`gate.py`, and `ops.py` for authorize): under
the other profiles only they are checked again (every other op is the same function)."""

NO_INSTANCE = {
    "model_issuance_partial": "its Z3 transition runs the batch twice (the issued prefix, then "
    "the whole batch): the pinned agreement query is `unknown` within 20 M, bounded or not",
}
"""Model mutants whose instance agreement is not asked, and why (reported in the docs)."""

Z3_ONLY = {"z3_first_index_strict": ("activate_many", "activate_model")}
"""Mutants of the Z3 side alone and the ops whose default cases they must make disagree."""


@dataclass
class Agreement:
    result: str
    """``agrees``, ``disagrees`` (the first failing case in ``trace``) or ``unknown``."""
    seconds: float
    cases: int
    trace: dict[str, str] = field(default_factory=dict)


def _seam(node: Node) -> bool:
    return bool(node.state.gen >= MAX_GENERATION - 1)


def cases(opname: str, v: Variant) -> list[tuple[str, Node, Action]]:
    """(label, pre-state, action) of ``opname`` under ``v``: the first interesting success,
    the first rejection and the first step at the u64 seam, in exploration order."""
    from .search import _success  # the op's interesting success, as the witnesses use it

    wanted: dict[str, Any] = {
        "success": lambda n, a, r: _success(opname, n, a.kwargs, r),
        "rejection": lambda n, a, r: r.code != "ok",
        "u64 seam": lambda n, a, r: _seam(n),
    }
    if len(OPS[opname].outcomes) <= 1:
        del wanted["rejection"]
    out: dict[str, tuple[str, Node, Action]] = {}
    for node, i in _instances(opname, seam_first=False):
        act = candidates(opname, node)[i]
        res = outcome(v, opname, node, i)
        for label, pred in wanted.items():
            if label not in out and pred(node, act, res):
                out[label] = (label, node, act)
        if len(out) == len(wanted):
            break
        if set(out) == set(wanted) - {"u64 seam"}:
            break
    if "u64 seam" in wanted and "u64 seam" not in out:
        for node, i in _instances(opname, seam_first=True):
            out["u64 seam"] = ("u64 seam", node, candidates(opname, node)[i])
            break
    return [out[k] for k in wanted if k in out]


def _instances(opname: str, seam_first: bool) -> Iterator[tuple[Node, int]]:
    for node in nodes():
        if seam_first and not _seam(node):
            continue
        for i in range(len(candidates(opname, node))):
            yield node, i


def _payload(enc: Encoder, key: str, v: Any) -> Any:
    """A concrete payload value as a Z3 term (None: not compared)."""
    if isinstance(v, bool):
        return z3.BoolVal(v)
    if isinstance(v, int):
        return z3.IntVal(v)
    if isinstance(v, CMap):
        return enc.cmap(v, "tool", zi.REASON["none"], lambda r: zi.REASON[r])
    if isinstance(v, Grant):
        return enc.grant(v)
    if key == "tool" and isinstance(v, str):
        return enc.c("tool", v)
    return None


def _transition(opname: str, zv: Variant, bound: int | None) -> Step:
    """The op's Z3 transition from an arbitrary state (unbounded, as proved, unless
    ``bound``), built once per job (`steps.step` caches it) and pinned to each case."""
    tokens = (SEARCH_BOUND.set(bound), FINITE_STATES.set(False))
    try:
        return step(opname, zv)
    finally:
        FINITE_STATES.reset(tokens[1])
        SEARCH_BOUND.reset(tokens[0])


def agree_on(
    v: Variant,
    opname: str,
    st: State,
    args: dict[str, Any],
    zv: Variant,
    bound: int | None = None,
    rlimit: int = RLIMIT,
) -> str:
    """``agrees`` when the Z3 transition under ``zv`` from the encoded ``st`` has exactly the
    concrete result under ``v`` (the two checks of the module docstring), else ``disagrees``
    (or ``unknown``).  With ``bound`` the Z3 side is its bounded search interpretation (loops
    as ground if-chains over batches of at most ``bound``)."""
    cres: Result = OPS[opname].run(ALG, v, st, args)
    enc = Encoder("a")
    z = _transition(opname, zv, bound)
    pins = pin_step(enc, opname, z.pre, z.args, st, args)
    zres = z.res
    post = enc.state(cres.state)
    same = z3.And(
        zres.code == zi.OUTCOME[cres.code],
        zres.state.gen == post.gen,
        zres.state.catalog == post.catalog,
        zres.state.calls == post.calls,
        zres.state.sets == post.sets,
    )
    payload = []
    for key, value in cres.extras.items():
        term = _payload(enc, key, value)
        if (
            term is not None
            and key in zres.extras
            and not (key.startswith("basis") and cres.code != "ok")
        ):
            payload.append(zres.extras[key] == term)
    facts = enc.facts()
    for question, expect in ((z3.And(same, *payload), z3.sat), (z3.Not(same), z3.unsat)):
        s = _solver()
        s.set("rlimit", rlimit)
        s.add(*pins, *facts, *z.alg.defs, question)
        status = s.check()
        if status == z3.unknown:
            return "unknown"
        if status != expect:
            return "disagrees"
    return "agrees"


def check_cases(
    opname: str,
    v: Variant,
    zv: Variant | None = None,
    picked: list[tuple[str, Node, Action]] | None = None,
) -> Agreement:
    """Every case of ``opname`` (`cases` under ``v``, or ``picked``), the Z3 side under ``zv``
    (default ``v``)."""
    start = time.perf_counter()
    todo = picked if picked is not None else cases(opname, v)
    for label, node, act in todo:
        verdict = agree_on(v, opname, node.state, act.kwargs, zv or v)
        if verdict != "agrees":
            trace = {"case": label, "action": repr(act.to_json()), "trace": str(len(node.trace))}
            return Agreement(verdict, time.perf_counter() - start, len(todo), trace)
    return Agreement("agrees", time.perf_counter() - start, len(todo))
