"""The model-generated golden vectors: up to date with the oracle, passed by the reference
adapter, and consistent with the coverage split of `explore.coverage`."""

from __future__ import annotations

import pytest

from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.explore import coverage, golden

pytestmark = pytest.mark.spec("2", "3", "4", "5")


def test_golden_vectors_are_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    assert golden.main(["check"]) == 0, capsys.readouterr().err


def test_reference_adapter_passes_every_golden_vector() -> None:
    assert conform_main(["--vectors", str(golden.default_dir())]) == 0


def test_golden_vectors_are_modest() -> None:
    files = sorted(golden.default_dir().glob("*.json"))
    assert 10 <= len(files) <= 50
    assert all(f.stat().st_size < 20_000 for f in files)


def test_exhaustive_search_agrees_with_the_reachable_split() -> None:
    """Every pair the small-scope search reaches is required, none is declared unreachable."""
    reached = set(golden.enumerate_targets())
    assert reached <= set(coverage.required_pairs())
    assert not reached & set(coverage.UNREACHABLE)
