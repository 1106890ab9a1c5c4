"""The ``session-toolset`` console script: dispatch, usage texts and exit codes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from session_toolset_harness.cli import COMMANDS, main


def _run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "session_toolset_harness.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_no_arguments_is_a_usage_error_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "usage: session-toolset COMMAND" in captured.err


def test_help_lists_every_command_and_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in COMMANDS:
        assert f"  {command} " in out


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import session_toolset

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"session-toolset {session_toolset.__version__}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_its_own_help(command: str) -> None:
    result = _run(command, "--help")
    assert result.returncode == 0, result.stderr
    assert f"session-toolset {command}" in result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["check", "prove", "conform", "explore"])
def test_bad_flags_exit_2_without_traceback(command: str) -> None:
    result = _run(command, "--no-such-flag")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip() != ""


def test_adapter_subcommand_serves_the_protocol() -> None:
    result = _run("adapter", stdin='{"op":"hello"}\nnot json\n')
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    assert '"protocol":1' in lines[0]
    assert '"error":"Protocol"' in lines[1]


def test_adapter_subcommand_refuses_arguments() -> None:
    result = _run("adapter", "extra")
    assert result.returncode == 2
    assert "takes only --record FILE" in result.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--jobs", "0"], "must be at least 1"),
        (["-k", "no-obligation-is-called-this"], "no obligation name contains"),
        (["-k", "^invariant.init$"], "no obligation name contains"),  # not a regex: a substring
        (["-k", "gate.soundness", "--json", "/nonexistent-dir/r.json"], "cannot write"),
    ],
)
def test_prove_input_errors_exit_2_with_one_clear_line(args: list[str], needle: str) -> None:
    result = _run("prove", *args)
    assert result.returncode == 2
    assert needle in result.stderr
    assert "Traceback" not in result.stderr


def test_prove_quiet_prints_only_the_summary_when_all_is_as_expected() -> None:
    result = _run("prove", "--quiet", "-k", "gate.soundness")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().splitlines() == [result.stdout.strip()]
    assert "as expected, 0 not" in result.stdout
