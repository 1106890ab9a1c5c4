"""The ``prove`` suite of model mutation testing: ``session-toolset prove --all-profiles`` as one
test (one worker process: mutmut runs the mutants side by side)."""

from __future__ import annotations

from session_toolset_model.profiles import DEFAULT_PROFILE, PROFILES
from session_toolset_proofs.report import run


def test_prove_all_profiles() -> None:
    profiles = [DEFAULT_PROFILE, *(p for p in PROFILES if p != DEFAULT_PROFILE)]
    report = run(profiles, workers=1)
    assert report.ok, report.table(only_unexpected=True)
