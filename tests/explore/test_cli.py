"""``session-toolset explore`` exit codes, output, and the failure vector it writes (replayed
with the conformance runner: fails against the broken adapter, passes against the reference)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.explore.cli import main

from .conftest import miniature, miniature_command


def test_clean_run_exits_0_and_is_concise(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--examples", "10", "--steps", "10", "--seed", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3, lines  # the run, the condition summary, the verdict
    assert "seed 5" in lines[0] and "steps/s" in lines[0]
    assert lines[1].startswith("coverage: ") and "condition outcomes" in lines[1]
    assert lines[2] == "explore: no divergence"


def test_verbose_adds_the_coverage_and_condition_tables(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--examples", "10", "--steps", "10", "--seed", "5", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "catalog_insert" in out and len(out.splitlines()) > 100


@pytest.mark.parametrize(
    "argv",
    [
        ["--examples", "0"],
        ["--steps", "many"],
        ["--seed", "-1"],
        ["--budget", "weekly"],
        ["--profile", "weekly"],
        ["--exclude-tag", "digest"],
        ["--timeout", "0"],
        ["--quiet", "--verbose"],
        ["--json", "/nonexistent-dir/r.json"],
        ["--junit", "/nonexistent-dir/r.xml"],
        ["--out", "/nonexistent-dir/f.json"],
        ["--frobnicate"],
        ["--adapter", ""],
        ["--adapter", "/nonexistent/adapter-binary"],
        ["--adapter", "'unbalanced"],
        ["--jobs", "0"],
        ["--jobs", "two"],
        ["--shard", "3/2"],
        ["--shard", "0/2"],
        ["--shard", "half"],
        ["--examples", "3", "--jobs", "4"],
    ],
)
def test_usage_errors_exit_2_without_traceback(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("session-toolset explore: error: ")
    assert err.count("\n") == 1, err


def test_profile_is_the_deprecated_spelling_of_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    argv = ["--examples", "3", "--steps", "3", "--seed", "1", "--json", str(report)]
    assert main(["--profile", "dev", *argv]) == 0
    err = capsys.readouterr().err
    assert err == "session-toolset explore: warning: --profile is deprecated; use --budget dev\n"
    assert json.loads(report.read_text(encoding="utf-8"))["budget"] == "dev"


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "--adapter" in capsys.readouterr().out


def test_divergence_in_process_writes_a_replayable_vector(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "failure.json"
    with miniature("mini_revoke_core_allowed").patch():
        assert main(["--seed", "0", "--examples", "300", "--out", str(out), "--quiet"]) == 1
    assert "revoke" in capsys.readouterr().out
    vector = json.loads(out.read_text(encoding="utf-8"))
    assert [s["send"]["op"] for s in vector["steps"][:2]] == ["hello", "reset"]
    assert any(s["send"]["op"] == "revoke" for s in vector["steps"])
    assert len(vector["steps"]) <= 12  # shrunk: digests, a core set, the revoke
    # conform runs adapters as child processes: the reference passes, the miniature fails.
    assert conform_main(["--vectors", str(out)]) == 0
    assert (
        conform_main(
            ["--vectors", str(out), "--adapter", miniature_command("mini_revoke_core_allowed")]
        )
        == 1
    )


def test_divergence_through_an_external_adapter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "failure.json"
    command = miniature_command("mini_stale_grant_accepted")
    code = main(
        ["--adapter", command, "--seed", "0", "--examples", "200", "--out", str(out), "--no-shrink"]
    )
    printed = capsys.readouterr().out
    assert code == 1
    assert "minimal failing sequence" in printed and "<-- differs" in printed
    assert conform_main(["--vectors", str(out), "--adapter", command]) == 1
    assert conform_main(["--vectors", str(out)]) == 0


def test_digest_preflight_divergence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "failure.json"
    with miniature("mini_digest_insertion_order").patch():
        assert main(["--seed", "0", "--out", str(out), "--quiet"]) == 1
    assert "the original's is" in capsys.readouterr().out
    assert conform_main(["--vectors", str(out)]) == 0
    assert (
        conform_main(
            ["--vectors", str(out), "--adapter", miniature_command("mini_digest_insertion_order")]
        )
        == 1
    )


@pytest.mark.parametrize("engine", ["prng", "hypothesis"])
def test_the_removed_engine_flag_is_one_line_naming_why(
    engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--engine", engine, "--examples", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "session-toolset explore: error: --engine was removed: explore has one engine, its "
        "seeded generators (drop the flag)"
    ]
