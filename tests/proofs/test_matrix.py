"""The proof matrix: default proves, the two profiles are refuted by the named obligations,
mutants are refuted, and the CLI parses flags like the brief says."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
import session_toolset_model
from session_toolset_model.profiles import PROFILES, SEAMS, Variant
from session_toolset_proofs.cli import main
from session_toolset_proofs.mutants import MUTANTS
from session_toolset_proofs.mutants import variant as mutant_variant
from session_toolset_proofs.obligations import OBLIGATIONS
from session_toolset_proofs.report import Report, run
from session_toolset_proofs.solve import check

pytestmark = pytest.mark.spec("6")

BY_NAME = {ob.name: ob for ob in OBLIGATIONS}


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_default_profile_proves(name: str) -> None:
    assert check(lambda: BY_NAME[name].build(Variant()), True).status == "unsat"


def test_per_tool_digest_refuted_by_gate_soundness_with_an_imposter() -> None:
    report = run(["per-tool-digest"], re.compile(r"^gate\.soundness$"))
    (row,) = report.rows
    assert row.result == "refuted" and row.trace["outcome"] == "ok"
    assert (
        check(lambda: BY_NAME["gate.exactness"].build(Variant("per-tool-digest")), True).status
        == "unsat"
    )


def test_generation_strict_refuted_by_gate_exactness_only() -> None:
    assert (
        check(
            lambda: BY_NAME["gate.exactness"].build(Variant("generation-strict")), True, True
        ).status
        == "sat"
    )
    assert (
        check(lambda: BY_NAME["gate.soundness"].build(Variant("generation-strict")), True).status
        == "unsat"
    )


def test_every_mutant_is_expected_to_refute_something() -> None:
    used = {m for ob in OBLIGATIONS for m in ob.refuted_by}
    assert used == set(MUTANTS)


def test_the_model_states_only_the_spec_rules() -> None:
    """No mutant is known to the model: its name appears nowhere in the model's source, and no
    transition asks a variant which mutant is on; mutants only replace seams from outside."""
    root = Path(session_toolset_model.__file__).parent
    names = re.compile(r"\b(" + "|".join(map(re.escape, MUTANTS)) + r")\b")
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert names.search(text) is None, (path.name, names.findall(text))
        assert ".has(" not in text, path.name


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_each_mutant_replaces_one_seam_with_its_signature(name: str) -> None:
    m = MUTANTS[name]
    assert m.replacement.__name__ == name and m.helper in SEAMS
    spec, broken = inspect.signature(SEAMS[m.helper]), inspect.signature(m.replacement)
    assert list(spec.parameters) == list(broken.parameters)
    assert mutant_variant(name).overrides == {m.helper: m.replacement}


def test_a_variant_names_its_overrides_and_replaces_only_seams() -> None:
    fn = MUTANTS["stale_off_by_one"].replacement
    with pytest.raises(ValueError, match="go together"):
        Variant(overrides={"stale": fn})
    with pytest.raises(ValueError, match="go together"):
        Variant(label="stale_off_by_one")
    with pytest.raises(ValueError, match="not a helper"):
        Variant(label="x", overrides={"no_such_helper": fn})
    with pytest.raises(ValueError, match="unknown mutant"):
        mutant_variant("no_such_mutant")
    assert mutant_variant("stale_off_by_one") == mutant_variant("stale_off_by_one")
    assert mutant_variant("stale_off_by_one") != Variant()
    assert repr(mutant_variant("stale_off_by_one")) == (
        "Variant(profile='per-tool-pinned', label='stale_off_by_one', overrides={'stale': "
        "session_toolset_proofs.mutants.stale_off_by_one})"
    )


def test_run_gate_rows_all_as_expected() -> None:
    report = run(
        ["per-tool-pinned", "per-tool-digest", "generation-strict"], re.compile(r"^gate\.")
    )
    assert report.rows and report.ok, report.table()
    assert {r.check for r in report.rows} >= {"proof", "witness"}


def test_every_witness_and_mutant_row_of_the_default_profile(all_profiles_report: Report) -> None:
    report = all_profiles_report
    assert report.ok, report.table()
    assert {r.profile for r in report.rows} == set(PROFILES)
    witnesses = [r for r in report.rows if r.check == "witness"]
    assert len(witnesses) == len(OBLIGATIONS)
    assert all(r.result == "sat" for r in witnesses)
    refuted = [r for r in report.rows if r.check.startswith("mutant:")]
    assert refuted and all(r.result == "refuted" for r in refuted)
    # a concrete trace from the initial state, except for the Z3 interpretation's own mutants
    # (their counterexample is a Z3 batch and predicate, shown in ``trace``)
    assert all(r.concrete if r.kind != "interpretation" else r.trace for r in refuted)


def test_cli_bad_flag_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--profile", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("session-toolset prove: error: argument --profile: invalid choice")
    assert err.endswith(" (see --help)\n") and err.count("\n") == 1


def test_two_workers_give_the_same_results_in_the_same_order() -> None:
    """Results and concrete traces do not depend on the worker count (the Z3 model's names for
    uninterpreted values in ``trace`` may)."""
    one = run(
        ["per-tool-pinned", "generation-strict"], re.compile(r"^(gate|atomic_batch)\."), workers=1
    )
    two = run(
        ["per-tool-pinned", "generation-strict"], re.compile(r"^(gate|atomic_batch)\."), workers=2
    )
    key = [(r.name, r.profile, r.check, r.result, r.concrete) for r in one.rows]
    assert key == [(r.name, r.profile, r.check, r.result, r.concrete) for r in two.rows]
    assert one.ok


def _raises(alg: object, v: object, st: object, s: object) -> object:
    raise AssertionError("an assertion of the edited model")


def test_a_check_that_raises_is_one_line_and_a_failure(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model edit that breaks one of the model's own assertions stops the checks that run it
    (in their forked processes): prove says which exception in one line and exits 1."""
    from session_toolset_model import sets
    from session_toolset_model.profiles import spec_rule

    monkeypatch.setattr(spec_rule(sets.stale), "__code__", _raises.__code__)
    assert main(["-k", "functional.is_stale", "--no-cache", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "a check raised AssertionError: an assertion of the edited model" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
