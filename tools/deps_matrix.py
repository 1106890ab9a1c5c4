"""Run the smoke checks at the lowest and the newest dependency versions pyproject.toml allows.

    python tools/deps_matrix.py            # both: lowest, then newest
    python tools/deps_matrix.py lowest     # or: newest
    python tools/deps_matrix.py --keep /tmp/deps   # keep the virtual environments there

Each set gets a fresh virtual environment with this checkout installed editable:

* ``lowest``: every runtime dependency at its declared lower bound (``z3-solver>=X`` ->
  ``z3-solver==X``), the rest as pip resolves them;
* ``newest``: every runtime dependency at the newest release its range allows (``--upgrade``).

The smoke set, about a minute and a half per set on two cores: ``session-toolset check`` (the
proofs, the corpus against the reference, the model against the recorded outcomes), a short
``explore``, and the tests that touch the dependencies' APIs most closely (explore's stateful
machine, schema validation, packaging).  Exit status 0 when every set passes, 1 otherwise, 2 on
a bad argument.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SETS = ("lowest", "newest")
SMOKE_TESTS = (
    "tests/explore/test_stateful.py",
    "tests/conformance/test_conform_validate.py",
    "tests/test_packaging.py",
)
WATCHED = ("z3-solver", "jsonschema", "referencing")


def runtime_requirements() -> list[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return list(project["dependencies"])


def lowest_pins(requirements: list[str]) -> list[str]:
    """``name>=X,<Y`` -> ``name==X``, for each runtime requirement."""
    pins = []
    for text in requirements:
        found = re.match(r"\s*([A-Za-z0-9._-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)", text)
        if found is None:
            raise SystemExit(f"deps_matrix: error: {text!r} has no lower bound '>=X'")
        pins.append(f"{found.group(1)}=={found.group(2)}")
    return pins


def locked(name: str) -> str:
    """``name==version`` from constraints.txt (the test runner's own version)."""
    for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.lower().startswith(f"{name.lower()}=="):
            return line.strip()
    raise SystemExit(f"deps_matrix: error: constraints.txt does not pin {name}")


def _run(argv: list[str], env: dict[str, str]) -> bool:
    print("  $", " ".join(argv), flush=True)
    return subprocess.run(argv, cwd=REPO, env=env, check=False).returncode == 0


def run_set(name: str, root: Path) -> bool:
    venv = root / f"venv-{name}"
    print(f"== {name}: a fresh virtual environment in {venv}", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {**os.environ, "VIRTUAL_ENV": str(venv), "PATH": f"{venv / 'bin'}:{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    install = [python, "-m", "pip", "install", "-q", "-e", str(REPO), locked("pytest")]
    if name == "lowest":
        constraints = root / "lowest.txt"
        constraints.write_text("\n".join(lowest_pins(runtime_requirements())) + "\n")
        install += ["-c", str(constraints)]
    else:
        install += ["--upgrade", "--upgrade-strategy", "eager"]
    if not _run(install, env):
        return False
    versions = subprocess.run(
        [python, "-c", "from importlib import metadata as m; "
         f"print(', '.join(f'{{d}} {{m.version(d)}}' for d in {WATCHED!r}))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    print(f"   {name}: {versions}", flush=True)
    tool = str(venv / "bin" / "session-toolset")
    explore = [tool, "explore", "--examples", "20", "--steps", "30", "--seed", "1", "--quiet"]
    steps = [
        [tool, "check"],
        explore,
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *SMOKE_TESTS],
    ]
    failed = [step for step in steps if not _run(step, env)]
    print(f"== {name}: {'FAILED' if failed else 'passed'} ({versions})", flush=True)
    return not failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deps_matrix", description=__doc__.split("\n")[0])
    parser.add_argument("sets", nargs="*", metavar="SET", help="lowest, newest (default: both)")
    parser.add_argument("--keep", type=Path, help="create the environments here and keep them")
    args = parser.parse_args(argv)
    chosen = args.sets or list(SETS)
    if unknown := [s for s in chosen if s not in SETS]:
        parser.error(f"unknown set {unknown[0]!r}: expected lowest or newest")
    try:
        if args.keep is not None:
            args.keep.mkdir(parents=True, exist_ok=True)
            results = {s: run_set(s, args.keep) for s in chosen}
        else:
            with tempfile.TemporaryDirectory(prefix="deps-matrix-") as tmp:
                results = {s: run_set(s, Path(tmp)) for s in chosen}
    except KeyboardInterrupt:
        print("deps_matrix: interrupted", file=sys.stderr)
        return 130
    summary = ", ".join(f"{s} {'passed' if ok else 'FAILED'}" for s, ok in results.items())
    print(f"deps_matrix: {summary}")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
