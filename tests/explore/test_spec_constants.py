"""A walk is a function of the seed: not of what else the process imported, nor of the working
directory, where explore leaves nothing behind (`spec_constants`, `storage`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path
from types import ModuleType

import pytest
import session_toolset_model

import session_toolset
import session_toolset_harness
from session_toolset_harness.explore import spec_constants, storage
from session_toolset_harness.explore.hypothesis_private import (
    Constants,
    ConstantVisitor,
    _constants_from_source,
    providers,
)

pytestmark = pytest.mark.spec("1", "2")

WALK = textwrap.dedent(
    """
    import hashlib, json, sys
    if len(sys.argv) > 1:
        sys.path.insert(0, sys.argv[1])
        import extra_literals  # a local module full of literals Hypothesis could mix in
    from session_toolset_harness.explore.run import explore
    from session_toolset_harness.explore.sut import InProcessSut
    sent = hashlib.sha256()
    class Recording(InProcessSut):  # every request line, byte for byte
        def submit(self, lines):
            for line in lines:
                sent.update(line)
            return super().submit(lines)
    r = explore(Recording(), examples=12, steps=15, seed_value=5, shrink=False)
    print(json.dumps([r.steps, sorted(map(list, r.coverage.items())), sent.hexdigest()]))
    """
)


def _walk(tmp_path: Path, *extra: str) -> object:
    done = subprocess.run(
        [sys.executable, "-c", WALK, *extra],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "random"},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_walk_does_not_depend_on_the_local_modules_loaded(tmp_path: Path) -> None:
    # Before `fixed_constants`, Hypothesis mixed these literals into one draw in about twenty
    # and the two walks below parted within the first examples.
    folder = tmp_path / "host"
    folder.mkdir()
    literals = [*range(3, 400, 7), *(2**k + 1 for k in range(8, 70, 3))]
    text = ", ".join(map(str, literals)) + ", " + ", ".join(repr(f"w{i}") for i in range(300))
    (folder / "extra_literals.py").write_text(f"VALUES = [{text}]\n", encoding="utf-8")
    plain = _walk(tmp_path)
    assert plain == _walk(tmp_path, str(folder))
    # String hashing differs per process; the exact lines compared, a pool in hash order
    # (a set instead of the sorted set) fails here though the outcome table would not.
    assert plain == _walk(tmp_path)


def test_within_the_block_the_local_pool_is_the_fixed_one() -> None:
    before = providers._get_local_constants
    with spec_constants.fixed_constants() as fixed:
        local = providers._get_local_constants()
        assert local is fixed
        integers = set(local.integers)
        assert {v for v in spec_constants.INTEGERS if abs(v) >= 100} <= integers
        assert {199, 200, 201, 2**64 - 1, 2**63} <= integers
        assert not any(-100 < v < 100 for v in integers)  # index draws stay unskewed
        strings = set(local.strings)
        assert "sha-" in strings and not any(t.isspace() for t in strings)
        # the generation modules' own vocabulary, from their source text
        assert 0xD7FF in integers and "\\u12" in strings
    assert providers._get_local_constants is before


def test_the_previous_pool_is_back_when_the_block_raises() -> None:
    before = providers._get_local_constants
    with pytest.raises(KeyboardInterrupt), spec_constants.fixed_constants():
        assert providers._get_local_constants is not before
        raise KeyboardInterrupt  # what a user's Ctrl-C does in the middle of a walk
    assert providers._get_local_constants is before
    assert not providers.CONSTANTS_CACHE.cache  # no choices of the fixed pool left behind


def _literals(package: ModuleType) -> set[object]:
    found = Constants()
    for source in Path(str(package.__file__)).parent.rglob("*.py"):
        found |= _constants_from_source(source.read_bytes(), limit=False)
    return set(found.strings)


def test_the_pool_does_not_come_from_the_implementation_or_the_model() -> None:
    # A class name only the implementation spells and an error text only the model spells,
    # both short enough for Hypothesis's filter to keep (a literal over 20 characters would be
    # absent from any pool, whatever it was made of).
    only_there = {"SharedSessionToolSet", "invalid escape"}
    assert only_there <= _literals(session_toolset) | _literals(session_toolset_model)
    assert sorted(map(str, spec_constants._kept(only_there))) == sorted(only_there)
    assert not only_there & set(spec_constants.pool().strings)


def test_a_generation_module_past_hypothesis_cap_keeps_its_literals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Hypothesis's extractor, capped, returns *nothing* for a module with more than its cap of
    # constants: a generation module that grew past it would leave the pool silently.
    whole = spec_constants.generator_literals()
    monkeypatch.setattr(ConstantVisitor, "CONSTANTS_LIMIT", 10)
    assert spec_constants.generator_literals() == whole


ZIPPED = textwrap.dedent(
    """
    import json
    import session_toolset_harness
    from session_toolset_harness.explore import spec_constants
    found = spec_constants.generator_literals()
    print(json.dumps([session_toolset_harness.__file__, sorted(map(repr, found))]))
    """
)


def test_the_generation_literals_are_read_from_a_zipped_install(tmp_path: Path) -> None:
    # No source file on disk (a zip on sys.path, a zipapp): the loader still gives the source.
    package = Path(str(session_toolset_harness.__file__)).parent
    archive = tmp_path / "harness.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in package.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                zipped.write(path, path.relative_to(package.parent).as_posix())
    env = {**os.environ, "PYTHONPATH": str(archive)}
    done = subprocess.run(
        [sys.executable, "-c", ZIPPED], capture_output=True, text=True, env=env, check=True
    )
    where, literals = json.loads(done.stdout.strip().splitlines()[-1])
    assert where.startswith(str(archive))
    assert literals == sorted(map(repr, spec_constants.generator_literals()))


def test_explore_writes_nothing_into_the_working_directory(tmp_path: Path) -> None:
    cwd, cache = tmp_path / "project", tmp_path / "cache"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env["XDG_CACHE_HOME"] = str(cache)
    command = Path(sys.executable).parent / "session-toolset"
    done = subprocess.run(
        [str(command), "explore", "--examples", "20", "--steps", "10", "--seed", "1", "--quiet"],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert list(cwd.iterdir()) == []
    # Hypothesis did write its Unicode tables during this walk: into the user's cache.
    assert (cache / "session-toolset" / "hypothesis" / "unicode_data").is_dir()


def test_a_relative_xdg_cache_home_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # XDG: a relative path in these variables is invalid; used, it would be the cwd's.
    monkeypatch.setenv("XDG_CACHE_HOME", "cache")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert storage.cache_directory() == tmp_path / ".cache" / "session-toolset" / "hypothesis"


def test_without_a_home_directory_the_cache_goes_to_the_temporary_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # HOME unset and no password entry (an arbitrary container user): pathlib raises, and
    # explore failed with that traceback before it ran a step.
    def no_home(_cls: object) -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(Path, "home", classmethod(no_home))
    where = storage.cache_directory()
    assert where.is_absolute() and where.is_relative_to(tempfile.gettempdir())
