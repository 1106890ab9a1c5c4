"""One CLI style across ``check``, ``prove``, ``conform`` and ``explore``: an option two commands
share has one metavar, files are ``FILE`` and counts ``N``; ``-k`` is the same plain substring in
``prove`` and ``conform``; every error a command writes itself is one line
``session-toolset CMD: error: ...`` (argparse's own errors end with the same form)."""

from __future__ import annotations

import argparse
import re

import pytest
from session_toolset_model import keyword
from session_toolset_proofs.cli import _parser as prove_parser
from session_toolset_proofs.report import jobs

from session_toolset_harness import check
from session_toolset_harness.cli import main as harness_main
from session_toolset_harness.conform.cli import build_parser as conform_parser
from session_toolset_harness.explore.cli import build_parser as explore_parser

PARSERS = {
    "check": check._parser(),
    "prove": prove_parser(),
    "conform": conform_parser(),
    "explore": explore_parser(),
}
FILES = ("--json", "--junit", "--summary", "--out", "--skip", "--emit-known-failures")
COUNTS = ("--jobs", "--examples", "--steps", "--seed")


def _metavars(parser: argparse.ArgumentParser) -> dict[str, object]:
    found: dict[str, object] = {}
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or action.nargs == 0:
            continue
        for option in action.option_strings:
            found[option] = action.metavar
    return found


def test_shared_options_have_one_metavar_files_are_FILE_and_counts_N() -> None:
    seen: dict[str, dict[str, object]] = {}
    for command, parser in PARSERS.items():
        for option, metavar in _metavars(parser).items():
            seen.setdefault(option, {})[command] = metavar
    for option, by_command in seen.items():
        assert len(set(map(str, by_command.values()))) == 1, (option, by_command)
        if option in FILES:
            assert set(by_command.values()) == {"FILE"}, (option, by_command)
        if option in COUNTS:
            assert set(by_command.values()) == {"N"}, (option, by_command)
    assert seen["-k"] == {"prove": "PATTERN", "conform": "PATTERN"}


def test_k_is_the_same_plain_substring_in_prove_and_conform(
    capsys: pytest.CaptureFixture[str],
) -> None:
    names = [j.ob.name for j in jobs(["per-tool-pinned"], "gate.") if j.ob is not None]
    assert names and all("gate." in name for name in names)
    assert jobs(["per-tool-pinned"], "^gate") == []  # not a regular expression
    assert keyword.matches("te.s", "gate.soundness") and not keyword.matches("t.s", "gates")
    assert harness_main(["conform", "-k", "^edges", "--quiet"]) == 2
    assert "no vector id contains '^edges'" in capsys.readouterr().err
    assert harness_main(["conform", "-k", "edges/long-literal-", "--quiet"]) == 0


ERROR = re.compile(r"session-toolset( [a-z]+)?: error: \S.*")


@pytest.mark.parametrize(
    "argv",
    [
        ["frobnicate"],
        ["adapter", "extra"],
        ["check", "--no-such-flag"],
        ["check", "--json", "/nonexistent-dir/c.json"],
        ["check", "--summary", "/nonexistent-dir/c.md"],
        ["prove", "--jobs", "0"],
        ["prove", "-k", "no-obligation-is-called-this"],
        ["conform", "--timeout", "0"],
        ["conform", "--merge", "/nonexistent-dir/r.json"],
        ["conform", "--summary", "/nonexistent-dir/s.md"],
        ["explore", "--budget", "weekly"],
        ["explore", "--exclude-tag", "hostile"],
        ["explore", "--merge", "/nonexistent-dir/r.json"],
        ["explore", "--summary", "/nonexistent-dir/s.md"],
    ],
)
def test_every_error_is_one_line_in_one_format(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert harness_main(argv) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    # argparse's own errors (prove) print the usage first; the error line is the last one
    error = lines[-1] if lines[0].startswith("usage:") else lines[0]
    assert ERROR.fullmatch(error), err
    if argv[0] != "frobnicate":  # an unknown command also gets the usage text
        assert error.startswith(f"session-toolset {argv[0]}: error: "), err
        assert len(lines) == 1 or lines[0].startswith("usage:"), err
