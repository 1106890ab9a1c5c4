"""Every command docs/install.md shows works as written.

The ``sh`` blocks run in order, as one script, in a copy of this checkout (so the virtual
environments they create are fresh and the developer's own are untouched).  That takes minutes
(several installs, one ``session-toolset check``), so it runs only with
``SESSION_TOOLSET_INSTALL_DOCS=1``; `.ci/run` sets it.  A command the page shows that this
test does not run (the dependency matrix, an inline command) must be one `.ci/run` runs: the
always-on test below checks that.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import session_toolset

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "install.md"
CI = REPO / ".ci" / "run"
BLOCK = re.compile(r"^```sh\n(.*?)^```$", re.S | re.M)
RUN_BY_CI = ("python3 tools/deps_matrix.py",)
"""Commands the page shows that CI runs in its own step instead of this test."""


def _blocks() -> list[str]:
    return BLOCK.findall(PAGE.read_text(encoding="utf-8"))


def _script() -> str:
    lines = [
        command  # each part of an `a && b` on its own line, where set -e stops at a failure
        for block in _blocks()
        for line in block.splitlines()
        if not line.startswith(RUN_BY_CI)
        for command in line.split(" && ")
    ]
    return "\n".join(["set -euo pipefail", *lines]) + "\n"


def test_commands_the_test_does_not_run_are_run_by_ci() -> None:
    page = PAGE.read_text(encoding="utf-8")
    ci = CI.read_text(encoding="utf-8")
    shown = [line for block in _blocks() for line in block.splitlines()]
    assert len(_blocks()) >= 6
    for command in RUN_BY_CI:
        assert command in shown and command in ci, command
    # inline commands: pip installs written in running text
    for inline in re.findall(r"`(pip install [^`]+)`", page):
        assert inline in shown or inline in ci, f"{inline!r} is run neither here nor by CI"


def test_the_page_names_the_wheel_of_this_version() -> None:
    wheels = set(re.findall(r"session_toolset-([0-9.]+)-py3-none-any\.whl", _script()))
    assert wheels == {session_toolset.__version__}


@pytest.mark.skipif(
    os.environ.get("SESSION_TOOLSET_INSTALL_DOCS") != "1",
    reason="runs docs/install.md's installs in fresh virtual environments (minutes): set "
    "SESSION_TOOLSET_INSTALL_DOCS=1 to run it (.ci/run does)",
)
def test_every_install_command_of_the_page_runs(tmp_path: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    checkout = tmp_path / "checkout"
    for name in filter(None, (n.decode() for n in listed)):
        if (REPO / name).is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, checkout / name)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PIP_QUIET"] = "1"
    done = subprocess.run(
        ["bash", "-c", _script()],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"session-toolset {session_toolset.__version__}" in done.stdout
    assert "passed" in done.stdout
