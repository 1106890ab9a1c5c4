"""Deterministic solving, the counterexample search after ``unknown``, and the agreement rows.

The model bugs here are injected into the one definition by monkeypatching (the forked
proof jobs inherit the patch), never written into the tree.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import pytest
import z3  # type: ignore[import-untyped]
from session_toolset_model import sets
from session_toolset_model import z3_interp as zi
from session_toolset_proofs import solve
from session_toolset_proofs.report import Report, Row, run

DUP = '(dup, alg.code("BulkActivationError.DuplicateRequest")),'


def _accept_repeated_grants(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bug: a batch naming a tool twice is not rejected (DuplicateRequest never checked)."""
    src = inspect.getsource(sets.batch_error)
    assert DUP in src
    namespace: dict[str, Any] = dict(vars(sets))
    exec(src.replace(DUP, ""), namespace)  # the definition with one rule removed
    monkeypatch.setattr(sets, "batch_error", namespace["batch_error"])


def _answers(report: Report) -> dict[tuple[str, str, str], str]:
    return {(r.name, r.profile, r.check): r.result for r in report.rows}


def _row(report: Report, name: str, check: str = "proof") -> Row:
    return next(r for r in report.rows if r.name == name and r.check == check)


def test_an_answer_does_not_depend_on_what_else_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under the repeated-grant bug `postcondition.activate_many` used to be refuted when run
    alone and `unknown` in the full run.  Now every obligation runs in a process of its own
    forked before any query is built: alone, beside other obligations of the same op, and with
    one worker or two, every row answers the same."""
    _accept_repeated_grants(monkeypatch)
    alone = run(["per-tool-pinned"], re.compile(r"^postcondition\.activate_many$"), workers=1)
    beside = run(
        ["per-tool-pinned"],
        re.compile(r"^(zero_inheritance\.frame\.activate_many|postcondition\.activate_many)$"),
        workers=2,
    )
    assert _row(alone, "postcondition.activate_many").result == "refuted"
    shared = _answers(alone)
    assert {k: _answers(beside)[k] for k in shared} == shared


def test_an_unknown_proof_falls_back_to_the_counterexample_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the proofs starved of budget (every proof `unknown`), the bounded search still
    finds the repeated-grant bug's counterexample (a batch naming one tool twice) and the row
    reads `refuted` with that trace."""
    _accept_repeated_grants(monkeypatch)
    monkeypatch.setattr(solve, "RLIMIT", 2_000)
    report = run(["per-tool-pinned"], re.compile(r"^postcondition\.activate_many$"))
    row = _row(report, "postcondition.activate_many")
    assert row.result == "refuted" and not report.ok
    assert "bounded query" in row.trace["found_by"]
    assert int(row.trace["grants"]) >= 2


def test_an_unknown_without_a_counterexample_stays_a_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same starvation on the correct definition: the searches find nothing (there is
    nothing to find), so the row stays `unknown` and the run fails."""
    monkeypatch.setattr(solve, "RLIMIT", 2_000)
    report = run(["per-tool-pinned"], re.compile(r"^postcondition\.activate_many$"))
    row = _row(report, "postcondition.activate_many")
    assert row.result == "unknown" and not row.passed and not report.ok


def test_agreement_rows_agree_and_count_in_the_summary() -> None:
    report = run(
        ["per-tool-pinned", "per-tool-digest"], re.compile(r"^agree\.(rebuild|authorize)$")
    )
    rows = [(r.name, r.profile, r.check, r.result) for r in report.rows]
    assert rows == [
        ("agree.rebuild", "per-tool-pinned", "agreement", "agrees"),
        ("agree.authorize", "per-tool-pinned", "agreement", "agrees"),
        ("agree.authorize", "per-tool-digest", "agreement", "agrees"),
    ]
    assert report.ok and "3 of 3 agreement checks as expected" in report.summary()


def test_a_slip_on_the_z3_side_alone_fails_prove(monkeypatch: pytest.MonkeyPatch) -> None:
    """`Z3Algebra.exists_key` answering "no key" makes the Z3 rebuild never advance
    schema_generation after a drop, while the concrete rebuild does: the agreement row of
    `rebuild` (whose cases include a carry-forward rebuild that drops an activation)
    disagrees and the run fails."""

    def never(self: zi.Z3Algebra, cands: Any, sort: str, pred: Any) -> Any:
        return z3.BoolVal(False)

    monkeypatch.setattr(zi.Z3Algebra, "exists_key", never)
    report = run(["per-tool-pinned"], re.compile(r"^agree\.rebuild$"))
    (row,) = report.rows
    assert row.result == "disagrees" and not report.ok
    assert row.trace["case"] == "success" and "'carry_forward': True" in row.trace["action"]


def test_the_z3_only_mutant_rows_show_the_check_can_fail() -> None:
    report = run(["per-tool-pinned"], re.compile(r"^agree\.activate_many$"))
    strict = _row(report, "agree.activate_many", "agreement:z3_first_index_strict")
    assert strict.result == strict.expected == "disagrees"
