"""Fixtures for every test."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands append a Markdown summary to ``$GITHUB_STEP_SUMMARY`` when it is set: a test run
    inside GitHub Actions must not publish the summaries of the runs it makes (a test that
    checks the append sets the variable itself)."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
