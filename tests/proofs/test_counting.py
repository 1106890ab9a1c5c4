"""Honest counting: goals that hold by construction are reported apart from proved ones."""

from __future__ import annotations

from session_toolset_model.profiles import DEFAULT
from session_toolset_proofs.obligations import OBLIGATIONS
from session_toolset_proofs.report import Report, run
from session_toolset_proofs.solve import construction

BY_NAME = {ob.name: ob for ob in OBLIGATIONS}


def _basis(name: str) -> str:
    return construction(lambda: BY_NAME[name].build(DEFAULT))


def test_a_frame_of_a_catalog_op_simplifies_to_true() -> None:
    """The catalog transitions never write a set: the frame is true by rewriting alone."""
    assert _basis("zero_inheritance.frame.catalog_insert") == "simplify"


def test_gate_soundness_needs_its_premises() -> None:
    """Without "the call was authorized" the goal is false (a denied call's record may be
    absent), so it is a real proof from premises."""
    assert _basis("gate.soundness") == "premises"
    assert _basis("invariant.step.activate") == "premises"


def test_summary_gives_both_numbers() -> None:
    report = run(["per-tool-pinned"], r"^(gate\.soundness|zero_inheritance\.frame\.catalog_)")
    proofs = [r for r in report.rows if r.check == "proof"]
    assert sum(r.by_construction for r in proofs) == 4
    assert "1 obligations proved from their premises, 4 hold by construction" in report.summary()
    assert "(4 simplify to true, 0 need no premises)" in report.summary()


def test_all_profiles_counts(all_profiles_report: Report) -> None:
    rows = [
        r for r in all_profiles_report.rows if r.check == "proof" and r.profile == DEFAULT.profile
    ]
    assert len(rows) == len(OBLIGATIONS)
    built = [r for r in rows if r.by_construction]
    assert 0 < len(built) < len(rows)
    assert all(r.basis == "premises" for r in rows if not r.by_construction)
