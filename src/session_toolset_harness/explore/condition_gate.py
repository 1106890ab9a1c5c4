"""The condition-coverage gate of explore: every condition outcome of the model's decisions is
seen, or listed here as one no state can produce.

Two kinds of listed outcome (keys are `session_toolset_model.conditions.outcome_key`: the
decision's module, function and source line, the condition and the outcome):

* `Z3_UNREACHABLE` - proved with Z3 (`session_toolset_proofs.conditions.prove_unreachable`:
  `unsat` under the inductive invariant and the operation's precondition); the test
  ``tests/explore/test_conditions.py`` re-runs each proof;
* `CONCRETE_ONLY` - Z3's reading of the definition *can* produce it, the concrete one cannot:
  the condition is evaluated on a junk value (a field of an absent option, which the concrete
  interpretation reads as None) or inside an update restricted to candidate keys (the concrete
  interpretation visits only keys for which the condition holds by construction; Z3 quantifies
  over every key).  Each entry says which.

The `ci` and `nightly` profiles fail when any other outcome is missing.  A key that no longer
names a decision (the model's line changed) shows up as missing: update it here.
"""

from __future__ import annotations

from typing import Final

from session_toolset_model.conditions import ConditionTable

_GATE = "gate.authorize: "
_SETS = "sets."

Z3_UNREACHABLE: Final[dict[str, str]] = {
    _GATE + 'code = first_failure(alg, [(c, f"ToolAuthorizationError.{n}") for c, n in checks]) '
    "| checks #4 ToolAuthorizationError.NotActivated | true": (
        "an activation's grant always covers the set's session (session_bound) and the digest "
        "was compared just before"
    ),
    _GATE + "is_act = alg.and_(alg.not_(is_core), alg.is_some(act)) | and #1 operand 1 | decides": (
        "a tool is never both core and activated in one set (disjoint)"
    ),
}

_CANDIDATES = "update over candidate keys: the condition holds for every key visited"
_JUNK = "junk: the operand is read from an absent option"
_NEW_CORE = (
    'sets.<lambda>: seq_contains(alg, core_ids, "self", t), alg.is_some(alg.select(st.catalog, t))'
)
_BATCH = 'sets.<lambda>: seq_contains(alg, grants, "tool", t),'
_CARRIED = "sets.carried: keep = alg.and_("
_DROP = "sets.drop_reason: alg.and_(alg.is_some(act), alg.not_(alg.is_some(alg.select(core, t)))),"
_PIN = 'sets._pin_if: keep = alg.and_(alg.is_some(rec), cond(alg.get(rec, "prov")))'


def _both(site: str, operand: int, reason: str) -> dict[str, str]:
    return {
        f"{site} | and #{operand} operand {operand} | {outcome}": reason
        for outcome in ("false", "decides")
    }


CONCRETE_ONLY: Final[dict[str, str]] = {
    "catalog.upsert: alg.or_(alg.not_(has_replaced), alg.not_(alg.eq(replaced, tool))), "
    "| or #1 operand 1 | decides": (
        "junk: with no `replaced`, its value is absent, so the second operand is true too"
    ),
    "gate.authorize: covers = alg.and_( | and #1 operand 1 | decides": (
        "junk: without an activation both operands are false; with one, its session is the "
        "set's (session_bound), so the first operand never fails alone"
    ),
    "sets.still_matches: return alg.and_( | and #1 operand 1 | decides": (
        "junk: an absent record has no digest, so the digest operand fails with it"
    ),
    **{k: _CANDIDATES for i in (1, 2, 3) for k in _both(_NEW_CORE, i, "")},
    **{k: _CANDIDATES for i in (1, 2, 3) for k in _both(_BATCH, i, "")},
    **_both("sets.<lambda>: alg.and_(", 1, _CANDIDATES + " (a batch's tools)"),
    **_both(_CARRIED, 1, _CANDIDATES + " (the old set's activations)"),
    **_both(_DROP, 1, _CANDIDATES + " (the old set's activations)"),
    **_both(_PIN, 1, _CANDIDATES + " (the catalog's records)"),
}

LISTED: Final = {**Z3_UNREACHABLE, **CONCRETE_ONLY}


def missing(table: ConditionTable) -> list[str]:
    """Condition outcomes neither seen nor listed as unreachable."""
    return table.missing(LISTED)


def summary(table: ConditionTable) -> str:
    covered, reachable, listed = table.summary(LISTED)
    share = 100.0 * covered / reachable if reachable else 100.0
    return (
        f"conditions: {covered}/{reachable} reachable condition outcomes seen ({share:.1f}%) "
        f"over {len(table.decisions)} decisions; {listed} listed unreachable "
        f"({len(Z3_UNREACHABLE)} proved by Z3, the rest concrete-only)"
    )
