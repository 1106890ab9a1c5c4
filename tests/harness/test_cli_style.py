"""One CLI style across ``check``, ``prove``, ``conform`` and ``explore``: an option two commands
share has one metavar, files are ``FILE`` and counts ``N``; ``-k`` is the same plain substring in
``prove`` and ``conform``; every error is one line
``session-toolset CMD: error: ...``, ending in ``(see --help)`` exactly when the command line
itself was refused, in every subcommand."""

from __future__ import annotations

import argparse
import re

import pytest
from session_toolset_model import keyword
from session_toolset_proofs.cli import _parser as prove_parser
from session_toolset_proofs.report import jobs

from session_toolset_harness import check
from session_toolset_harness.cli import COMMANDS
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
HINT = " (see --help)"
"""Ends every command-line error (a flag or value argparse refuses) and no other error."""

BAD_FLAGS: dict[str, list[list[str]]] = {
    "adapter": [["--bogus"]],
    "check": [["--bogus"], ["--quiet", "--verbose"]],
    "prove": [["--bogus"], ["--jobs", "0"]],
    "conform": [["--bogus"], ["--timeout", "0"]],
    "explore": [["--bogus"], ["--jobs", "0"], ["--budget", "weekly"]],
    "trace": [["log.jsonl", "--bogus"], ["log.jsonl", "--jobs", "0"]],
}
"""Per subcommand, command lines argparse refuses."""

BAD_INPUT: dict[str, list[list[str]]] = {
    "adapter": [["--record", "/nonexistent-dir/t.jsonl"]],
    "check": [["--json", "/nonexistent-dir/c.json"], ["--summary", "/nonexistent-dir/c.md"]],
    "prove": [["--junit", "/nonexistent-dir/p.xml"], ["-k", "no-obligation-is-called-this"]],
    "conform": [["--merge", "/nonexistent-dir/r.json"], ["--summary", "/nonexistent-dir/s.md"]],
    "explore": [["--merge", "/nonexistent-dir/r.json"], ["--summary", "/nonexistent-dir/s.md"]],
    "trace": [["log.jsonl", "--json", "/nonexistent-dir/t.json"]],
}
"""Per subcommand, well-formed command lines naming a file or a value that cannot be used."""


def test_every_subcommand_is_covered() -> None:
    assert set(BAD_FLAGS) == set(BAD_INPUT) == set(COMMANDS)


def _one_error_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert harness_main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    line = err.rstrip("\n")
    assert ERROR.fullmatch(line), err
    return line


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        ([command, *flags], table is BAD_FLAGS)
        for table in (BAD_FLAGS, BAD_INPUT)
        for command, cases in table.items()
        for flags in cases
    ],
)
def test_an_error_is_one_line_with_the_help_hint_only_for_the_command_line(
    argv: list[str], hint: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _one_error_line(argv, capsys)
    assert line.startswith(f"session-toolset {argv[0]}: error: "), line
    assert line.endswith(HINT) if hint else HINT not in line, line


def test_an_unknown_command_is_one_line_with_the_help_hint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = _one_error_line(["frobnicate"], capsys)
    assert line == "session-toolset: error: unknown command 'frobnicate'" + HINT
