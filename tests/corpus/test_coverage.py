"""The corpus's coverage gates: every (operation, outcome) pair and condition outcome it reached
before the derived vectors replaced the golden ones and the edge sweep is still reached; the
condition recorder, the listed unreachable outcomes and their Z3 proofs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.algebra import when
from session_toolset_model.conditions import ConditionTable, RecordingAlgebra, format_table
from session_toolset_model.world import World
from session_toolset_proofs.conditions import Instance, _RecordingZ3, _verdict, prove_unreachable

from session_toolset_harness.corpus import coverage as condition_gate
from session_toolset_harness.corpus.build import DEFAULT_OUT
from session_toolset_harness.independent import corpus_dir, replay

pytestmark = pytest.mark.spec("2", "3", "4", "5")


def _replayed(directory: Path | None = None) -> ConditionTable:
    table = ConditionTable()
    replay(directory, world_factory=lambda: World(alg=RecordingAlgebra(table)))
    return table


_CORPUS: list[ConditionTable] = []


def _corpus_table(directory: Path | None = None) -> ConditionTable:
    """The whole corpus's table, replayed once per session (no test writes to it)."""
    if directory is not None:
        return _replayed(directory)
    if not _CORPUS:
        _CORPUS.append(_replayed())
    return _CORPUS[0]


COVERED_PAIRS = Path(__file__).with_name("covered_pairs.jsonl")
"""Every (operation, outcome) pair the packaged corpus reached when the gates moved onto it."""


def _written() -> condition_gate.Coverage:
    if not _WRITTEN:
        _WRITTEN.append(condition_gate.measure(DEFAULT_OUT))
    return _WRITTEN[0]


_WRITTEN: list[condition_gate.Coverage] = []


def test_the_written_corpus_passes_both_gates() -> None:
    cov = _written()
    assert condition_gate.problems(cov) == []


def test_the_written_corpus_keeps_every_pair_it_reached() -> None:
    listed = {tuple(json.loads(line)) for line in COVERED_PAIRS.read_text().splitlines()}
    assert condition_gate.model_pairs() <= listed  # the list is not weaker than the model
    assert listed - _written().pairs == set()


def test_the_gates_fail_on_a_corpus_missing_vectors() -> None:
    """Both gates can fail: the recorded walkthroughs alone miss pairs and outcomes."""
    found = condition_gate.problems(condition_gate.measure(corpus_dir() / "original"))
    assert any(p.startswith("(operation, outcome) never reached: ") for p in found)
    assert any(p.startswith("condition outcome never reached: ") for p in found)


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


def test_z3_proves_each_listed_outcome() -> None:
    table = _corpus_table()
    verdicts = prove_unreachable(table)
    assert set(verdicts) == set(condition_gate.LISTED)  # the corpus misses exactly the listed
    assert {k: v for k, v in verdicts.items() if v != "unsat"} == {}


def test_a_reachable_missing_outcome_is_not_claimed() -> None:
    table = ConditionTable()
    w = World(alg=RecordingAlgebra(table))
    for request in (
        {"op": "set_new", "name": "A", "session": "s", "core": []},
        {"op": "authorize", "set": "A", "tool": "a:b"},
    ):
        w.handle(request)
    verdicts = prove_unreachable(table, ops=("authorize",))
    for key in (
        "gate.authorize: is_act = alg.and_(alg.not_(is_core), alg.is_some(act)) "
        "| and #1 operand 1 | decides",
        _COVERS_OP1_FALSE,
    ):
        assert verdicts.get(key) == "unsat", (key, verdicts.get(key))
    # the gate never got past NotCataloged: the core digest check was never true, and can be
    digest_core = [k for k in verdicts if "checks #2 ToolAuthorizationError.SchemaDigest" in k]
    assert digest_core and all(verdicts[k] == "sat" for k in digest_core)


_COVERS_OP1_FALSE = "gate.grant_covers: covers = alg.and_( | and #1 operand 1 | false"


def test_the_proofs_rest_on_the_recorders_premises() -> None:
    """Without the guard (an absent activation's fields) and the candidate keys, Z3 can produce
    every listed outcome except the two the invariant alone refutes: those premises - exactly
    what the concrete recorder requires - are what the other proofs use."""
    table = _corpus_table()
    weak = prove_unreachable(table, timeout_ms=300, guards=False)  # `unknown` is not a proof
    still = {k for k, v in weak.items() if v == "unsat"}
    assert still == {k for k in condition_gate.LISTED if k.startswith("gate.authorize: ")}
    assert weak[_COVERS_OP1_FALSE] == "sat"


def test_the_recorder_skips_evaluations_under_a_false_guard() -> None:
    table = ConditionTable()
    alg = RecordingAlgebra(table)
    for present in (False, True):
        when(alg, present, lambda: alg.and_(True, alg.bool_(False)), False)
    (decision,) = [d for d in table.decisions.values() if d.kind == "and"]
    assert decision.vectors == {(True, False)}  # only the guarded-true evaluation
    assert [d.seen for d in table.decisions.values() if d.kind == "ite"] == [
        {(0, "false"): 1, (0, "true"): 1}
    ]
    table2 = ConditionTable()
    alg2 = RecordingAlgebra(table2)
    when(alg2, False, lambda: alg2.and_(True, True), False)
    # the decision exists (its outcomes count as missing) though nothing was seen
    assert [d.seen for d in table2.decisions.values() if d.kind == "and"] == [{}]


def test_candidate_keys_are_the_concrete_keys() -> None:
    """The Z3 recorder's "key is a candidate" is the concrete `keys` / `seq_keys`: a map's keys
    are those whose value differs from the default; a sequence's, the keys of its elements."""
    alg = _RecordingZ3()
    t1, t2, t3 = (z3.Const(n, zi.Tool) for n in ("t1", "t2", "t3"))
    act = zi.ActOpt.Act(
        z3.Const("s", zi.Session), 1, z3.Const("d", zi.Digest), z3.Const("p", zi.Prov)
    )
    m = z3.Store(z3.Store(z3.K(zi.Tool, zi.ActOpt.NoAct), t1, act), t2, zi.ActOpt.NoAct)
    distinct = z3.Distinct(t1, t2, t3)
    is_key = alg.keys(m)
    assert _valid(z3.Implies(distinct, z3.And(is_key(t1), z3.Not(is_key(t2)), z3.Not(is_key(t3)))))
    seq = alg.seq_const((t1, t2))
    in_seq = alg.seq_keys(seq, "self")
    claim = z3.And(in_seq(t1), in_seq(t2), z3.Not(in_seq(t3)))
    assert _valid(z3.Implies(z3.And(distinct, *alg.defs), claim))  # defs: made by the calls
    assert alg.instances == []  # building the predicates records no decision


def _valid(formula: z3.ExprRef) -> bool:
    solver = z3.Solver()
    solver.add(z3.Not(formula))
    return bool(solver.check() == z3.unsat)


def test_decides_is_refuted_only_when_one_evaluation_is_refuted_everywhere() -> None:
    """MC/DC's "decides" needs two evaluations, possibly at two instances of one decision:
    refuting the all-true one here and the flipped one there proves nothing."""
    a, b, c, d = z3.Bools("a b c d")
    here = Instance("site", "and", (a, b), (a, b))  # only (T, T)
    there = Instance("site", "and", (c, d), (z3.Not(c), d))  # only (F, T)
    assert _verdict([here, there], 0, "decides", 1000) == "sat"
    assert _verdict([here], 0, "decides", 1000) == "unsat"
    assert _verdict([here, there], 1, "decides", 1000) == "unsat"  # (T, F) nowhere
