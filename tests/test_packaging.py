"""`pip install session-toolset` gives every command the console script lists.

A command whose dependency sits only in an extra (`test`, `mutation`) works in the developer's
venv and ends in a `ModuleNotFoundError` traceback after a plain `pip install .`; that is how
`explore` once shipped.  These tests read every import statement of the shipped packages and
require each third-party one to come from a distribution that the installed `session-toolset`
declares as a main (not extra) requirement, as a compatible range (a lower bound and an upper
bound below the next major version) that constraints.txt pins to one version inside it.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from session_toolset_harness.cli import COMMANDS

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
SHIPPED = [REPO / p for p in PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]]
OWN = {p.name for p in SHIPPED}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imported_top_levels(package: Path) -> dict[str, str]:
    """Top-level module -> one file importing it, for every absolute import in ``package``."""
    found: dict[str, str] = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                found.setdefault(name.partition(".")[0], str(path.relative_to(REPO)))
    return found


def _third_party_imports() -> dict[str, str]:
    found: dict[str, str] = {}
    for package in SHIPPED:
        for top, where in _imported_top_levels(package).items():
            if top not in sys.stdlib_module_names and top not in OWN and top != "__future__":
                found.setdefault(top, where)
    return found


def _main_requirements(requirements: list[str]) -> dict[str, str]:
    """Distribution -> requirement text, for requirements outside every extra."""
    main: dict[str, str] = {}
    for text in requirements:
        if "extra ==" in text or "extra==" in text:
            continue
        name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", text)
        assert name is not None, text
        main[_canonical(name.group(0))] = text
    return main


def _providers(top: str) -> set[str]:
    return {_canonical(d) for d in metadata.packages_distributions().get(top, [])}


def test_the_scan_sees_the_known_third_party_imports() -> None:
    # The scan must not pass by finding nothing: these are imported by prove and conform.
    assert {"z3", "jsonschema", "referencing"} <= set(_third_party_imports())


@pytest.mark.parametrize("source", ["pyproject.toml", "installed metadata"])
def test_every_shipped_import_is_a_ranged_main_dependency(source: str) -> None:
    if source == "pyproject.toml":
        requirements = list(PYPROJECT["project"]["dependencies"])
    else:
        requirements = metadata.requires("session-toolset") or []
    main = _main_requirements(requirements)
    problems = []
    for top, where in sorted(_third_party_imports().items()):
        providers = _providers(top)
        declared = providers & set(main)
        if not declared:
            problems.append(f"{top} (imported by {where}; from {sorted(providers)}) not declared")
        for dist in declared:
            operators = sorted(spec.operator for spec in Requirement(main[dist]).specifier)
            if operators != ["<", ">="]:
                problems.append(f"{main[dist]!r} is not a range '>=LOWEST,<NEXT_MAJOR'")
    hint = " (stale install? pip install -e '.[test]')" if source != "pyproject.toml" else ""
    assert problems == [], f"{source}{hint}: " + "; ".join(problems)


def test_the_lock_pins_every_runtime_dependency_inside_its_range() -> None:
    # The set CI and the published figures use: one version per runtime dependency, allowed
    # by the declared range (a lock outside it would test what no user gets).
    pins: dict[str, str] = {}
    for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not name==version"
            pins[_canonical(name)] = version
    for text in PYPROJECT["project"]["dependencies"]:
        requirement = Requirement(text)
        pinned = pins.get(_canonical(requirement.name))
        assert pinned is not None, f"constraints.txt does not pin {requirement.name}"
        assert requirement.specifier.contains(pinned), f"{requirement.name}=={pinned}: {text}"


def test_the_extras_hold_no_runtime_dependency() -> None:
    # Declared twice, an extra's pin could silently disagree with the main one.
    main = set(_main_requirements(list(PYPROJECT["project"]["dependencies"])))
    for extra, requirements in PYPROJECT["project"]["optional-dependencies"].items():
        assert main.isdisjoint(_main_requirements(list(requirements))), extra


def test_trace_needs_no_third_party_module(tmp_path: Path) -> None:
    # `trace` reads logs with the model's world only: no Z3, Hypothesis or jsonschema needed.
    log = tmp_path / "log.jsonl"
    log.write_text('{"request":{"op":"reset"},"reply":{"ok":true}}\n', encoding="utf-8")
    code = (
        "import sys\n"
        "for name in ('z3', 'hypothesis', 'jsonschema', 'referencing'):\n"
        "    sys.modules[name] = None\n"
        "from session_toolset_harness.cli import main\n"
        f"sys.exit(main(['trace', {str(log)!r}]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "1 checked" in result.stdout


def test_the_trace_schemas_ship_inside_the_package() -> None:
    # hatch ships every file under a listed package directory; these must be among them
    schemas = REPO / "src" / "session_toolset_harness" / "schemas"
    assert (schemas / "trace-line.schema.json").is_file()
    assert (schemas / "trace-report.schema.json").is_file()
    assert any(str(p).endswith("session_toolset_harness") for p in SHIPPED)


@pytest.mark.parametrize("command", sorted(set(COMMANDS) - {"adapter", "trace"}))
def test_a_missing_dependency_is_one_line_not_a_traceback(command: str) -> None:
    # Simulate an installation without the dependency (e.g. `pip install --no-deps`): a module
    # set to None in sys.modules raises ModuleNotFoundError when imported.
    missing = {"explore": "jsonschema", "conform": "jsonschema", "check": "z3", "prove": "z3"}
    code = (
        "import sys\n"
        f"sys.modules[{missing[command]!r}] = None\n"
        "from session_toolset_harness.cli import main\n"
        f"sys.exit(main([{command!r}]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines == [
        f"session-toolset {command}: error: needs the Python module {missing[command]!r}, which is "
        "not installed; reinstall with 'pip install session-toolset'"
    ]


def test_the_version_has_one_source() -> None:
    # pyproject.toml reads it from session_toolset.__version__ ([tool.hatch.version]): the
    # installed metadata, the module and `session-toolset --version` agree.
    import session_toolset

    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert "version" not in PYPROJECT["project"]
    assert metadata.version("session-toolset") == session_toolset.__version__
