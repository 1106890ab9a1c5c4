"""The condition-coverage gate of explore: every condition outcome of the model's decisions is
seen, or listed here as one no state can produce, with a Z3 proof.

Keys are `session_toolset_model.conditions.outcome_key`: the decision's module, function and
source line, the condition and the outcome.  Every entry is proved with Z3
(`session_toolset_proofs.conditions.prove_unreachable`: `unsat` under the inductive invariant,
the operation's precondition and the premises the concrete recorder itself requires - the
enclosing `algebra.when` guards, and for a map update that the key is one of its candidates);
``tests/explore/test_conditions.py`` re-runs every proof, and shows that without those premises
the candidate-key and guarded outcomes would be satisfiable (so the premises, which are exactly
what the concrete interpretation visits, are what the proofs rest on).

The `ci` and `nightly` profiles fail when any other outcome is missing.  A key that no longer
names a decision (the model's line changed) shows up as missing: update it here.
"""

from __future__ import annotations

from typing import Final

from session_toolset_model.conditions import ConditionTable

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
