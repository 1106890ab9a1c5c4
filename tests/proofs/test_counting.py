"""Honest counting: goals that hold by construction are reported apart from proved ones."""

from __future__ import annotations

import re
from typing import Any

from session_toolset_model.profiles import DEFAULT
from session_toolset_proofs import solve
from session_toolset_proofs.obligations import OBLIGATIONS
from session_toolset_proofs.report import Report, run
from session_toolset_proofs.solve import construction

BY_NAME = {ob.name: ob for ob in OBLIGATIONS}


def _basis(name: str) -> str:
    return construction(lambda: BY_NAME[name].build(DEFAULT))


def test_a_frame_of_a_catalog_op_simplifies_to_true() -> None:
    """The catalog transitions never write a set: the frame is true by rewriting alone."""
    assert _basis("zero_inheritance.frame.catalog_insert") == "simplify"


def test_summary_gives_both_numbers() -> None:
    report = run(
        ["per-tool-pinned"], re.compile(r"^(gate\.soundness|zero_inheritance\.frame\.catalog_)")
    )
    proofs = [r for r in report.rows if r.check == "proof"]
    assert sum(r.by_construction for r in proofs) == 4
    assert "1 obligations proved from their premises (0 need the inductive invariant, 1 hold " in (
        report.summary()
    )
    assert "0 proved whose class is undetermined within the budget" in report.summary()
    assert "4 hold by construction (4 simplify to true, 0 need no premises)" in report.summary()


def test_all_profiles_counts(all_profiles_report: Report) -> None:
    rows = [
        r for r in all_profiles_report.rows if r.check == "proof" and r.profile == DEFAULT.profile
    ]
    assert len(rows) == len(OBLIGATIONS)
    built = [r for r in rows if r.by_construction]
    assert 0 < len(built) < len(rows)
    kinds = {r.basis for r in rows if r.result == "proved" and not r.by_construction}
    assert kinds <= {"invariant", "hypothesis", "undetermined"}
    assert {"invariant", "hypothesis"} <= kinds
    bounded = [r.name for r in rows if r.result == "bounded"]
    assert bounded == ["interp.first_index_exact", "interp.seq_first_index_exact"]


def test_a_goal_that_needs_the_invariant_and_one_that_does_not() -> None:
    """`invariant.step.activate` keeps "core and activations are disjoint" only because the
    pre-state has it (a model exists without the invariant); `gate.soundness` follows from
    "the call was authorized" and the gate's definition alone."""
    assert _basis("invariant.step.activate") == "invariant"
    assert _basis("gate.soundness") == "hypothesis"


def test_a_goal_with_no_premises_is_not_counted_from_its_hypothesis() -> None:
    """The batch-outcome function of `activate_model` holds from the side definitions alone; its
    own hypothesis also implies it, so a classifier that tried the hypothesis whenever the "no
    premises" check was not shown unsat counted it there."""
    assert _basis("postcondition.activate_model") == "no premises"


def test_an_unknown_no_premises_check_leaves_the_class_undetermined(monkeypatch: Any) -> None:
    """`gate.soundness` holds from its hypothesis and needs it (`hypothesis`); when the "no
    premises" check cannot answer within its budget the class is reported undetermined, not
    guessed as either side."""
    monkeypatch.setattr(solve, "CONSTRUCTION_RLIMIT", 1)
    assert _basis("gate.soundness") == "undetermined"
    assert _basis("invariant.step.activate") == "invariant"  # a model without the invariant
