"""Explore's private Hypothesis names live in one module, which knows the versions they work with.

`hypothesis_private` is the only module of the tree (package, tests, tools) that imports
``hypothesis.internal``, ``hypothesis.strategies._internal``, ``hypothesis.control`` or
``RuleStrategy``; its lowest version is pyproject.toml's lower bound; outside the ``prng``
engine's versions the default engine is Hypothesis's own and ``--engine prng`` is one line and
exit 2, and a Hypothesis without the private names stops explore the same way.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from session_toolset_harness.explore import hypothesis_private

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
TREE = [REPO / d for d in ("src", "model", "proofs", "tests", "tools", "benchmarks")]
PRIVATE = re.compile(r"^hypothesis\.(internal|control)\b|\._internal\b")


def _private_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = {a.name for a in node.names}
            if PRIVATE.search(node.module) or (
                node.module == "hypothesis.stateful" and "RuleStrategy" in names
            ):
                found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if PRIVATE.search(a.name)]
    return found


def test_only_one_module_of_the_tree_imports_private_hypothesis_names() -> None:
    offenders = {
        str(path.relative_to(REPO)): imports
        for directory in TREE
        for path in sorted(directory.rglob("*.py"))
        if (imports := _private_imports(path)) and path.name != "hypothesis_private.py"
    }
    assert offenders == {}
    module = Path(hypothesis_private.__file__)
    assert "hypothesis.internal.constants_ast" in _private_imports(module)  # the scan sees them


def test_the_lowest_supported_version_is_the_declared_lower_bound() -> None:
    (requirement,) = [r for r in PYPROJECT["project"]["dependencies"] if r.startswith("hypothesis")]
    lowest = ".".join(map(str, hypothesis_private.LOWEST))
    assert f">={lowest}" in requirement.replace(" ", "")
    assert hypothesis_private.PRNG_ENGINE_VERSIONS[0] == hypothesis_private.LOWEST


@pytest.mark.parametrize(
    ("version", "engine"),
    [("6.138.12", "prng"), ("6.155.2", "prng"), ("6.157.0", "prng"), ("6.157.1", "hypothesis")],
)
def test_the_default_engine_follows_the_installed_version(version: str, engine: str) -> None:
    assert hypothesis_private.default_engine(version) == engine
    assert (hypothesis_private.prng_engine_unsupported(version) is None) == (engine == "prng")


def _explore_with_version(version: str, *args: str) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys, hypothesis\n"
        f"hypothesis.__version__ = {version!r}\n"
        "from session_toolset_harness.cli import main\n"
        f"sys.exit(main(['explore', *{list(args)!r}]))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )


def test_engine_prng_outside_its_versions_is_one_line_and_exit_2() -> None:
    result = _explore_with_version("6.170.17", "--engine", "prng", "--examples", "1")
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        "session-toolset explore: error: --engine prng works with Hypothesis 6.138.12 to "
        "6.157.0 (installed: 6.170.17): use --engine hypothesis (the default with this "
        "Hypothesis), or pip install 'hypothesis>=6.138.12,<=6.157.0'"
    ]


def test_a_hypothesis_older_than_supported_stops_explore_with_one_line() -> None:
    result = _explore_with_version("6.100.0", "--examples", "1")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "session-toolset explore: error: explore needs Hypothesis 6.138.12 or newer "
        "(installed: 6.100.0); pip install 'hypothesis>=6.138.12,<7'"
    ]
