"""The whole tree stays `mypy --strict` and `ruff` clean: part of the one test command.

Running the linters from pytest means CI and a newcomer's `pytest` enforce the same bar as the
README promises, with no second command to forget.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGETS = ["src", "model", "proofs", "tests", "benchmarks", "tools"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    present = [t for t in TARGETS if (REPO / t).exists()]
    return subprocess.run(
        [sys.executable, "-m", *args, *present],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )


def test_mypy_strict_is_clean() -> None:
    result = _run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_check_is_clean() -> None:
    result = _run("ruff", "check")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = _run("ruff", "format", "--check")
    assert result.returncode == 0, result.stdout + result.stderr
