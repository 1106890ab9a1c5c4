"""The corpus's coverage gates: every (operation, outcome) pair the model can produce and every
condition outcome (MC/DC) of its decisions is reached by a vector, or (a condition outcome)
listed in `LISTED`, each proved unreachable with Z3 by ``tests/corpus/test_coverage.py``.
`measure` replays the vectors against the model's expected world with the recording algebra;
keys are `session_toolset_model.conditions.outcome_key` (a key whose line moved shows missing).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from session_toolset_model.conditions import ConditionTable, RecordingAlgebra
from session_toolset_model.ops import OPS, outcomes_for
from session_toolset_model.profiles import DEFAULT
from session_toolset_model.reachability import UNREACHABLE
from session_toolset_model.world import OutOfScope, World

from .. import independent
from ..conform import compact

_GATE = "gate.authorize: "
_COVERS = "gate.grant_covers: covers = alg.and_("
_NEW_CORE = (
    'sets.<lambda>: seq_contains(alg, core_ids, "self", t), alg.is_some(alg.select(st.catalog, t))'
)
_BATCH = 'sets.<lambda>: seq_contains(alg, grants, "tool", t),'
_CARRIED = "sets.carried: keep = alg.and_("
_DROP = "sets.drop_reason: alg.and_(alg.is_some(act), alg.not_(alg.is_some(alg.select(core, t)))),"
_PIN = 'sets._pin_if: keep = alg.and_(alg.is_some(rec), cond(alg.get(rec, "prov")))'


def _both(site: str, operand: int, reason: str) -> dict[str, str]:
    """An operand that is never false is never false alone either."""
    return {
        f"{site} | and #{operand} operand {operand} | {outcome}": reason
        for outcome in ("false", "decides")
    }


_CANDIDATE = "the update visits only keys for which this operand holds: "

Z3_UNREACHABLE: Final[dict[str, str]] = {
    _GATE + 'code = first_failure(alg, [(c, f"ToolAuthorizationError.{n}") for c, n in checks]) '
    "| checks #4 ToolAuthorizationError.NotActivated | true": (
        "an activation's grant always covers the set's session (session_bound) and the digest "
        "was compared just before"
    ),
    _GATE + "is_act = alg.and_(alg.not_(is_core), alg.is_some(act)) | and #1 operand 1 | decides": (
        "a tool is never both core and activated in one set (disjoint)"
    ),
    **_both(_COVERS, 1, "an activation was granted for its set's session (session_bound)"),
    **{
        k: _CANDIDATE + "the core ids (`set_new`)"
        for i in (1, 2, 3)
        for k in _both(_NEW_CORE, i, "")
    },
    **{
        k: _CANDIDATE + "the batch's tools (`activate_many`)"
        for i in (1, 2, 3)
        for k in _both(_BATCH, i, "")
    },
    **_both("sets.<lambda>: alg.and_(", 1, _CANDIDATE + "the core ids / the batch's tools"),
    **_both(_CARRIED, 1, _CANDIDATE + "the old set's activations (`rebuild`)"),
    **_both(_DROP, 1, _CANDIDATE + "the old set's activations (`rebuild`)"),
    **_both(_PIN, 1, _CANDIDATE + "the catalog's records (default/progressive core)"),
}

LISTED: Final = Z3_UNREACHABLE


def missing(table: ConditionTable) -> list[str]:
    """Condition outcomes neither seen nor listed as unreachable."""
    return table.missing(LISTED)


def summary(table: ConditionTable) -> str:
    covered, reachable, listed = table.summary(LISTED)
    share = 100.0 * covered / reachable if reachable else 100.0
    return (
        f"conditions: {covered}/{reachable} reachable condition outcomes seen ({share:.1f}%) "
        f"over {len(table.decisions)} decisions; {listed} listed unreachable, each proved by Z3"
    )


def model_pairs() -> set[tuple[str, str]]:
    """Every (operation, outcome) pair of the model's table the reviewed table does not list
    as unreachable (`prove`'s ``reach.*`` rows show each one reachable)."""
    return {
        (name, code)
        for name, op in OPS.items()
        for code in outcomes_for(op, DEFAULT)
        if (name, code) not in UNREACHABLE
    }


@dataclass
class Coverage:
    """What a corpus reaches: the (op, outcome) pair of every step, and the condition table."""

    pairs: set[tuple[str, str]] = field(default_factory=set)
    table: ConditionTable = field(default_factory=ConditionTable)


def measure(directory: Path) -> Coverage:
    """Replay every vector file under ``directory`` (each in a fresh recording world) and
    collect what it reaches; a step whose answer SPEC.md leaves open ends its vector."""
    cov = Coverage()
    for path in sorted(directory.rglob("*.json")):
        measure_file(path, cov)
    return cov


def measure_file(path: Path, cov: Coverage | None = None) -> Coverage:
    """What one vector file reaches (added to ``cov`` when given)."""
    cov = Coverage() if cov is None else cov
    doc = compact.expand(json.loads(path.read_text(encoding="utf-8")))  # setups' steps first
    world = World(alg=RecordingAlgebra(cov.table))
    for step in doc["steps"]:
        send = step.get("send")
        op = send.get("op") if isinstance(send, dict) else None
        try:
            reply = independent.reply(world, step)
        except OutOfScope:
            break
        op = op if isinstance(op, str) else "send_line"
        cov.pairs.add((op, "ok" if reply.get("ok") else str(reply.get("error"))))
    return cov


def problems(cov: Coverage) -> list[str]:
    """Each model pair and condition outcome the corpus misses (empty: both gates pass)."""
    pairs = [
        f"(operation, outcome) never reached: {op} {code}"
        for op, code in sorted(model_pairs() - cov.pairs)
    ]
    return pairs + [f"condition outcome never reached: {key}" for key in missing(cov.table)]
