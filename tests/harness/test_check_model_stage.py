"""`session-toolset check` replays the independent corpus against the model's expected world:
a model bug that contradicts recorded behaviour fails the main job."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from session_toolset_model import sets
from session_toolset_model.algebra import Algebra, Term
from session_toolset_model.state import State
from session_toolset_model.world import World
from session_toolset_proofs.mutants import variant as mutant_variant

from session_toolset_harness import check, independent
from session_toolset_harness.check import main, model_vs_implementation

pytestmark = pytest.mark.spec("6")


def _passing_stage(*_args: object) -> object:
    return check._Stage(0, 0.0, "stubbed", {})


@pytest.fixture
def other_stages_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Proofs and conformance are stubbed out: this is about the model stage alone."""
    monkeypatch.setattr(check, "_prove", _passing_stage)
    monkeypatch.setattr(check, "_conform", _passing_stage)


@pytest.mark.usefixtures("other_stages_pass")
def test_check_passes_with_the_spec_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--quiet", "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "model vs recorded passed" in out
    report = json.loads((tmp_path / "r.json").read_text())["model_vs_recorded"]
    assert report["exit_status"] == 0 and report["report"]["vectors"] >= 80


@pytest.mark.usefixtures("other_stages_pass")
def test_check_fails_when_the_model_contradicts_recorded_behaviour(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the batch mutant: a rejected batch keeps the grants before the failing one
    monkeypatch.setattr(independent, "World", lambda: World(mutant_variant("batch_partial")))
    assert main(["--quiet"]) == 1
    out = capsys.readouterr().out
    assert "model disagrees with recorded behaviour: " in out
    assert "model vs recorded FAILED" in out


def _progressive_core_skips_unverified(alg: Algebra, st: State) -> Term:
    """A model bug: the progressive core leaves out a progressive tool whose record is
    Unverified (SPEC.md: the fixed progressive list, wherever it is cataloged)."""
    pin_if = sets._pin_if
    return alg.update_map(
        alg.empty_map("pin"),
        alg.keys(st.catalog),
        lambda t, old: pin_if(
            alg, st, t, old, lambda r: alg.and_(alg.progressive(t), alg.not_(alg.unverified(r)))
        ),
    )


def test_the_differential_stage_catches_a_bug_the_recorded_behaviour_misses(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bug passes the replay of the recorded behaviour (and `prove` on the default
    profile: no obligation states the progressive core's members); the short exploration
    against the reference implementation fails on it, and passes without it."""
    assert model_vs_implementation().status == 0
    monkeypatch.setattr(sets, "progressive_core", _progressive_core_skips_unverified)
    assert independent.replay().ok
    stage = model_vs_implementation()
    assert stage.status == 1
    # found where a progressive core is built: `set_progressive_core`, or a progressive rebuild
    report = stage.report
    assert isinstance(report, dict)
    divergence, requests = report["divergence"], report["requests"]
    assert isinstance(divergence, str) and isinstance(requests, list)
    assert "after set_progressive_core" in divergence or "after rebuild" in divergence
    built = ("'op': 'set_progressive_core'", "'progressive': True")
    assert any(b in request for request in requests for b in built)
    assert "model disagrees with the reference implementation" in capsys.readouterr().out
