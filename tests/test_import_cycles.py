"""No package of the project imports itself in a circle (tools/attack/import_cycles.py), and the
tool does find a circle when there is one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "attack" / "import_cycles.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], capture_output=True, text=True, check=False
    )


def test_no_package_has_an_import_circle() -> None:
    done = _run()
    assert done.returncode == 0, done.stdout
    assert done.stdout.count(": 0 circle(s)") == 8


def test_a_planted_circle_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pk"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pk import b\n")
    (package / "b.py").write_text("def f() -> None:\n    from pk import a\n")
    done = _run(str(package))
    assert done.returncode == 1
    assert "pk, module-level imports: 0 circle(s)" in done.stdout  # b imports a inside f only
    assert "pk, all imports: 1 circle(s)" in done.stdout and "pk.a <-> pk.b" in done.stdout


def test_a_missing_directory_is_one_error_line(tmp_path: Path) -> None:
    done = _run(str(tmp_path / "nope"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "error:" in done.stderr
