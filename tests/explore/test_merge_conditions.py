"""The condition table through ``--shard K/N`` / ``--merge``: shard reports carry it and the merge
unions it (MC/DC's "decides" may come from two evaluations two shards saw)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from session_toolset_model.conditions import ConditionTable

from session_toolset_harness.envelope import envelope
from session_toolset_harness.explore import report
from session_toolset_harness.explore.cli import main

SMALL = ["--budget", "dev", "--examples", "12", "--steps", "8", "--quiet"]


def _read(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return value


def test_shard_reports_carry_the_table_and_merge_to_the_jobs_table(tmp_path: Path) -> None:
    whole, s1, s2 = (tmp_path / f"{n}.json" for n in ("whole", "s1", "s2"))
    assert main([*SMALL, "--seed", "5", "--jobs", "2", "--json", str(whole)]) == 0
    for k, out in ((1, s1), (2, s2)):
        assert main([*SMALL, "--seed", "5", "--shard", f"{k}/2", "--json", str(out)]) == 0
    shards = [_read(p) for p in (s1, s2)]
    assert all(r["conditions"] for r in shards)
    assert shards[0]["conditions"] != shards[1]["conditions"]  # different streams
    merged = report.merge([(s1, shards[0]), (s2, shards[1])])
    assert report.conditions_json(merged.conditions) == _read(whole)["conditions"]


def _shard_report(k: int, table: ConditionTable) -> dict[str, Any]:
    """A ci-budget shard report (only the condition table is under test here)."""
    counts = {"examples": 2, "steps": 1, "divergences": 0, "errors": 0, "steered": 0}
    return {
        **envelope("explore", report.FORMAT_VERSION, "pass", counts),
        "stopped": None,
        "adapter": "reference (in-process)",
        "budget": "ci",
        "exclude_tags": [],
        "timeout": 10.0,
        "seed": 0,
        "jobs": 1,
        "shard": [k, 2],
        "examples": 2,
        "steps_per_example": 1,
        "pipeline": True,
        "steps": 1,
        "wall_seconds": 0.0,
        "cpu_seconds": 0.0,
        "error": None,
        "divergence": None,
        "problems": [],
        "streams": [],
        "coverage": [["hello", "ok", 1]],
        "conditions": report.conditions_json(table),
    }


def _write(tmp_path: Path, name: str, value: dict[str, Any]) -> Path:
    path = tmp_path / name
    report.write(path, value)
    return path


def test_merge_unions_a_decision_two_shards_saw_in_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A conjunction's operands "decide" only over two evaluations; each shard saw one.  The
    merge reports the union (coverage is reported, not judged: the verdict stays pass)."""
    first, second = ConditionTable(), ConditionTable()
    for table, vector in ((first, (True, True)), (second, (False, True))):
        d = table.decision("gate.check: 1", "and", ("a", "b"))
        d.vectors = {vector}
        d.seen = {(0, str(vector[0]).lower()): 1, (1, "true"): 1}
    alone = [t.decision("gate.check: 1", "and", ("a", "b")).covered() for t in (first, second)]
    assert all((0, "decides") not in c for c in alone)
    p1 = _write(tmp_path, "s1.json", _shard_report(1, first))
    p2 = _write(tmp_path, "s2.json", _shard_report(2, second))
    merged = report.merge([(p1, report.read(p1)), (p2, report.read(p2))])
    union = merged.conditions.decision("gate.check: 1", "and", ("a", "b"))
    assert (0, "decides") in union.covered()
    assert merged.verdict == "pass"
    capsys.readouterr()
    assert main(["--merge", str(p1), str(p2), "--quiet"]) == 0
    assert "no divergence" in capsys.readouterr().out


@pytest.mark.parametrize(
    "conditions",
    [
        None,
        [
            {
                "site": "s",
                "kind": "and",
                "labels": ["a", "b"],
                "seen": [[2, "true", 1]],
                "vectors": [],
            }
        ],
        [{"site": "s", "kind": "and", "labels": ["a"], "seen": [], "vectors": [[True, False]]}],
        [{"site": "s", "kind": "and", "labels": ["a"], "seen": [[0, "maybe", 1]], "vectors": []}],
    ],
)
def test_a_malformed_condition_table_is_a_usage_error(
    tmp_path: Path, conditions: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    value = _shard_report(1, ConditionTable()) | {"shard": [1, 1], "conditions": conditions}
    path = _write(tmp_path, "r.json", value)
    assert main(["--merge", str(path)]) == 2
    err = capsys.readouterr().err
    assert "malformed report" in err and len(err.strip().splitlines()) == 1
