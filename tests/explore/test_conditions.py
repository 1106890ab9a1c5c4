"""Spec-level condition coverage: the recorder, the listed unreachable outcomes and their Z3
proofs."""

from __future__ import annotations

from pathlib import Path

import pytest
from session_toolset_model.conditions import ConditionTable, RecordingAlgebra, format_table
from session_toolset_model.world import World
from session_toolset_proofs.conditions import prove_unreachable

from session_toolset_harness.explore import condition_gate
from session_toolset_harness.independent import corpus_dir, replay

pytestmark = pytest.mark.spec("2", "3", "4", "5")


def _corpus_table(directory: Path | None = None) -> ConditionTable:
    table = ConditionTable()
    replay(directory, world_factory=lambda: World(alg=RecordingAlgebra(table)))
    return table


def test_the_whole_independent_corpus_reaches_every_reachable_outcome() -> None:
    table = _corpus_table()
    assert condition_gate.missing(table) == []


def test_one_walkthrough_leaves_outcomes_unseen_and_the_gate_names_them() -> None:
    """The gate must be able to fail: the two recorded walkthroughs alone miss some."""
    table = _corpus_table(corpus_dir() / "original")
    covered, reachable, _listed = table.summary(condition_gate.LISTED)
    assert 0 < covered < reachable
    assert condition_gate.missing(table)
    assert " . " in format_table(table, condition_gate.LISTED)


def test_every_listed_outcome_names_a_decision_the_model_takes() -> None:
    """A listed key whose decision no longer exists would hide nothing, but would rot."""
    table = _corpus_table()
    keys = {
        key
        for d, i, outcome, _covered in table.outcomes()
        for key in [f"{d.site} | {d.kind} #{i + 1} {d.labels[i]} | {outcome}"]
    }
    stale = sorted(set(condition_gate.LISTED) - keys)
    assert stale == []


def test_listed_outcomes_are_never_seen() -> None:
    table = _corpus_table()
    seen = {k for k in condition_gate.LISTED if k not in table.missing()}
    assert seen == set()


def test_z3_proves_each_listed_z3_unreachable_outcome() -> None:
    table = ConditionTable()
    w = World(alg=RecordingAlgebra(table))
    for request in (
        {"op": "set_new", "name": "A", "session": "s", "core": []},
        {"op": "authorize", "set": "A", "tool": "a:b"},
    ):
        w.handle(request)
    verdicts = prove_unreachable(table, ops=("authorize",))
    for key in condition_gate.Z3_UNREACHABLE:
        assert verdicts.get(key) == "unsat", (key, verdicts.get(key))
    # and a reachable missing outcome is not claimed: the core digest check was never true here
    assert "sat" in verdicts.values()
