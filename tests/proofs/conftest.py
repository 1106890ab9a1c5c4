"""One all-profiles `prove` run shared by the tests that need a full report (it is the slow part
of this directory: every witness, mutant and profile refutation)."""

from __future__ import annotations

import pytest
from session_toolset_model.profiles import DEFAULT_PROFILE, PROFILES
from session_toolset_proofs.report import Report, run


@pytest.fixture(scope="session")
def all_profiles_report() -> Report:
    profiles = [DEFAULT_PROFILE, *(p for p in PROFILES if p != DEFAULT_PROFILE)]
    return run(profiles, workers=2)
