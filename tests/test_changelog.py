"""tools/changelog.py: CHANGELOG.md's release sections from changelog.d's fragments."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("changelog_tool", REPO / "tools" / "changelog.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["changelog_tool"] = module
    spec.loader.exec_module(module)
    return module


changelog = _tool()


def _build(tmp_path: Path, *extra: str) -> int:
    code: int = changelog.main(
        [
            "0.2.0",
            "--directory",
            str(tmp_path / "changelog.d"),
            "--changelog",
            str(tmp_path / "CHANGELOG.md"),
            "--date",
            "2026-12-03",
            *extra,
        ]
    )
    return code


def _fragments(tmp_path: Path, files: dict[str, str]) -> None:
    directory = tmp_path / "changelog.d"
    directory.mkdir(exist_ok=True)
    (directory / "README.md").write_text("how to name fragments\n")
    for name, text in files.items():
        (directory / name).write_text(text)


def test_every_fragment_in_the_tree_has_a_name_the_tool_reads() -> None:
    for fragment in changelog.fragments(REPO / "changelog.d"):
        assert fragment.kind in changelog.KINDS


def test_a_release_lists_kinds_in_order_and_issues_by_number(tmp_path: Path) -> None:
    _fragments(
        tmp_path,
        {
            "10.fix.b.md": "Second fix\nover two lines.\n",
            "9.fix.md": "First fix.\n",
            "12.feature.md": "A feature.\n\nIts second paragraph.\n",
        },
    )
    (tmp_path / "CHANGELOG.md").write_text("# Changelog\n\n## 0.1.0 (2026-01-01)\n\nold\n")
    assert _build(tmp_path) == 0
    assert (tmp_path / "CHANGELOG.md").read_text() == (
        "# Changelog\n\n"
        "## 0.2.0 (2026-12-03)\n\n"
        "### Features\n\n"
        "- A feature.\n\n  Its second paragraph. (issue 12)\n\n"
        "### Fixes\n\n"
        "- First fix. (issue 9)\n"
        "- Second fix\n  over two lines. (issue 10)\n\n"
        "## 0.1.0 (2026-01-01)\n\nold\n"
    )
    assert [p.name for p in (tmp_path / "changelog.d").iterdir()] == ["README.md"]


def test_a_second_build_of_the_same_version_adds_the_new_fragments(tmp_path: Path) -> None:
    _fragments(tmp_path, {"10.fix.md": "Ten.\n", "11.feature.md": "Eleven.\n"})
    assert _build(tmp_path) == 0
    _fragments(tmp_path, {"9.fix.md": "Nine.\n", "13.doc.md": "Thirteen.\n"})
    assert _build(tmp_path) == 0
    text = (tmp_path / "CHANGELOG.md").read_text()
    assert text.count("## 0.2.0") == 1
    assert text == (
        "# Changelog\n\n## 0.2.0 (2026-12-03)\n\n"
        "### Features\n\n- Eleven. (issue 11)\n\n"
        "### Fixes\n\n- Nine. (issue 9)\n- Ten. (issue 10)\n\n"
        "### Documentation\n\n- Thirteen. (issue 13)\n"
    )


def test_draft_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fragments(tmp_path, {"10.fix.md": "Ten.\n"})
    assert _build(tmp_path, "--draft") == 0
    assert "- Ten. (issue 10)" in capsys.readouterr().out
    assert not (tmp_path / "CHANGELOG.md").exists()
    assert (tmp_path / "changelog.d" / "10.fix.md").exists()


@pytest.mark.parametrize("name", ["10.misc.md", "fix.md", "10.fix.a.b.md"])
def test_a_fragment_with_an_unknown_name_is_one_line_and_exit_2(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _fragments(tmp_path, {"10.fix.md": "Ten.\n", name: "x\n"})
    assert _build(tmp_path) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"changelog: error: {name}: ")
    assert (tmp_path / "changelog.d" / "10.fix.md").exists()  # nothing consumed
