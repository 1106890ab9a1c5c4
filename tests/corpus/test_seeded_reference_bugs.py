"""Vectors pinned for plausible reference bugs, each shown to catch the bug it is for.

Each case copies ``src/session_toolset`` into a scratch directory, plants one bug a plausible
implementation has (one text replacement), and runs the vector through ``conform`` against that
copy: the vector must fail there and pass the unmodified reference.  Before these vectors
existed, the whole corpus passed every one of these copies.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import pytest

import session_toolset
from session_toolset_harness.conform import cli
from session_toolset_harness.corpus.build import DEFAULT_OUT

SRC = Path(session_toolset.__file__).resolve().parent

#: (case, vector id, file under session_toolset/, text, replacement)
BUGS = [
    (
        "list-elements-parsed-one-by-one",
        "fields/list-elements-typed-before-parsing",
        "adapter/fields.py",
        "        return [ToolId.parse(text) for text in self.strings(name)]",
        "        value = self._required(name)\n"
        "        if not isinstance(value, list):\n"
        "            raise self._wrong(name, 'an array', value)\n"
        "        return [ToolId.parse(self._element(name, v)) for v in value]\n\n"
        "    def _element(self, name: str, value: object) -> str:\n"
        "        if not isinstance(value, str):\n"
        "            raise self._wrong(name, 'a string', value)\n"
        "        return value",
    ),
    (
        "source-kind-case-folded",
        "fields/kind-case-sensitive",
        "adapter/fields.py",
        '        kind = obj.string("kind")\n        if kind == "builtin":',
        '        kind = obj.string("kind").lower()\n        if kind == "builtin":',
    ),
    (
        "provenance-kind-case-folded",
        "fields/kind-case-sensitive",
        "adapter/fields.py",
        '        kind = obj.string("kind")\n        if kind == "builtin_runtime":',
        '        kind = obj.string("kind").lower()\n        if kind == "builtin_runtime":',
    ),
    (
        "high-pairs-with-any-later-low",
        "lines/repeated-keys",
        "json_value.py",
        "if match.start() == pending_high and 0xDC00",
        "if 0xDC00",
    ),
    (
        "high-pairs-with-any-next-escape",
        "lines/repeated-keys",
        "json_value.py",
        "if match.start() == pending_high and 0xDC00 <= unit <= 0xDFFF:",
        "if match.start() == pending_high:",
    ),
]


def _conform(vector_id: str, pythonpath: Path | None) -> int:
    adapter = f"{shlex.quote(sys.executable)} -m session_toolset.adapter"
    if pythonpath is not None:
        adapter = f"env PYTHONPATH={shlex.quote(str(pythonpath))} {adapter}"
    path = DEFAULT_OUT / f"{vector_id}.json"
    return cli.main(["--quiet", "--adapter", adapter, "--vectors", str(path)])


@pytest.mark.parametrize(
    ("case", "vector_id", "file", "text", "bug"), BUGS, ids=[b[0] for b in BUGS]
)
def test_vector_catches_the_planted_bug(
    tmp_path: Path, case: str, vector_id: str, file: str, text: str, bug: str
) -> None:
    copy = tmp_path / "session_toolset"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / file
    source = target.read_text(encoding="utf-8")
    assert source.count(text) == 1, f"{case}: the text to replace is not in {file} once"
    target.write_text(source.replace(text, bug), encoding="utf-8")
    assert _conform(vector_id, None) == cli.EXIT_OK
    assert _conform(vector_id, tmp_path) == cli.EXIT_FAILED
