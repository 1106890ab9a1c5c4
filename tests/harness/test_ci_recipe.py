"""docs/ci.md's recipe works as written: the shell commands of its GitHub Actions workflow are
extracted from the doc and run, shard by shard and then the merge, against the reference adapter
with a small exploration budget; its GitLab pipeline must run the same commands."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "ci.md"
SHELL = ("session-toolset ", "mkdir ", "export ", "test -z ")
SMALL_BUDGET = "--budget dev --examples 4 --steps 5"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def commands(block: str) -> list[str]:
    """The shell commands of a YAML block: ``run:`` bodies and ``script:`` items, with their
    line continuations joined."""
    joined = re.sub(r"\\\n\s*", "", block)
    found = []
    for line in joined.splitlines():
        text = line.strip().removeprefix("- ").strip()
        if text.startswith(SHELL):
            found.append(text)
    return found


def _normal(command: str) -> str:
    """A command as both recipes must spell it (GitLab's own failure bookkeeping removed)."""
    return " ".join(command.removesuffix(" || failed=1").split())


def test_the_doc_has_both_recipes_and_stays_short() -> None:
    assert len(_blocks("yaml")) == 2
    assert len(DOC.read_text(encoding="utf-8").split()) <= 1000


def test_the_gitlab_pipeline_runs_the_github_workflow_s_commands() -> None:
    github, gitlab = (commands(block) for block in _blocks("yaml"))
    ours = [_normal(c) for c in github if c.startswith("session-toolset")]
    theirs = [_normal(c) for c in gitlab if c.startswith("session-toolset")]
    assert len(ours) == 4 and ours == theirs
    assert [c for c in gitlab if c.startswith("export")] == [
        'export K="$CI_NODE_INDEX" N="$CI_NODE_TOTAL" SEED="$CI_PIPELINE_IID"'
    ]


def _run(script: list[str], env: dict[str, str], cwd: Path) -> None:
    text = "set -e\n" + "\n".join(c.replace("--budget ci", SMALL_BUDGET) for c in script)
    done = subprocess.run(
        ["bash", "-c", text], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_the_github_workflow_s_commands_run_and_publish_the_reports(tmp_path: Path) -> None:
    if not Path("/bin/bash").exists():
        pytest.skip("needs bash")
    github = commands(_blocks("yaml")[0])
    summary = tmp_path / "step-summary.md"
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "ADAPTER": shlex.join([sys.executable, "-m", "session_toolset.adapter"]),
        "N": "2",
        "SEED": "7",
    }
    env.pop("GITHUB_STEP_SUMMARY", None)
    for k in ("1", "2"):
        _run([c for c in github if "--merge" not in c], {**env, "K": k}, tmp_path)
    _run(
        [c for c in github if "--merge" in c],
        {**env, "GITHUB_STEP_SUMMARY": str(summary)},
        tmp_path,
    )
    for name in ("conform", "explore"):
        report = json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))
        assert report["verdict"] == "pass" and report["shard"] == [1, 1]
        assert (tmp_path / f"{name}.xml").read_text(encoding="utf-8").startswith("<?xml")
        assert f"## session-toolset {name}: passed" in (tmp_path / f"{name}.md").read_text()
    conform = json.loads((tmp_path / "conform.json").read_text(encoding="utf-8"))
    assert conform["counts"]["passed"] > 100 and conform["counts"]["failed"] == 0
    published = summary.read_text(encoding="utf-8")
    assert "## session-toolset conform: passed" in published
    assert "## session-toolset explore: passed" in published
