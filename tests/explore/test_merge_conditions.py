"""The condition table through ``--shard K/N`` / ``--merge``: shard reports carry it, the merge
unions it (MC/DC's "decides" may come from two evaluations two shards saw) and applies the
profile's condition gate to the merged verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from session_toolset_model.conditions import ConditionTable, Decision, RecordingAlgebra
from session_toolset_model.world import World

from session_toolset_harness.corpus import coverage as condition_gate
from session_toolset_harness.envelope import envelope
from session_toolset_harness.explore import coverage, report
from session_toolset_harness.explore.cli import main
from session_toolset_harness.independent import replay

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


def _corpus() -> ConditionTable:
    """Every reachable outcome, seen (`test_conditions`): the independent corpus's table."""
    table = ConditionTable()
    replay(None, world_factory=lambda: World(alg=RecordingAlgebra(table)))
    assert condition_gate.missing(table) == []
    return table


def _split(table: ConditionTable) -> tuple[ConditionTable, ConditionTable, Decision]:
    """Decisions dealt alternately to two shards; one conjunction whose operands decide is cut
    across both: its all-true evaluation in the first, every other evaluation in the second."""
    first, second = ConditionTable(), ConditionTable()
    decisions = sorted(table.decisions.values(), key=lambda d: (d.site, d.kind, len(d.labels)))
    cut = next(
        d
        for d in decisions
        if d.kind == "and"
        and len(d.labels) >= 2
        and all((i, "decides") in d.covered() for i in range(len(d.labels)))
    )
    for n, d in enumerate(decisions):
        if d is cut:
            reference = (True,) * len(d.labels)
            a = first.decision(d.site, d.kind, d.labels)
            a.vectors = {reference}
            b = second.decision(d.site, d.kind, d.labels)
            b.vectors = d.vectors - {reference}
            b.seen = dict(d.seen)
            continue
        into = first if n % 2 else second
        copy = into.decision(d.site, d.kind, d.labels)
        copy.seen, copy.vectors = dict(d.seen), set(d.vectors)
    return first, second, cut


def _shard_report(k: int, table: ConditionTable) -> dict[str, Any]:
    """A ci-profile shard report whose op coverage meets the minimum (only the condition table
    is under test here)."""
    counts = {"examples": 2, "steps": 1, "divergences": 0, "errors": 0, "steered": 0}
    return {
        **envelope("explore", report.FORMAT_VERSION, "pass", counts),
        "adapter": "reference (in-process)",
        "budget": "ci",
        "exclude_tags": [],
        "timeout": 10.0,
        "seed": 0,
        "jobs": 1,
        "shard": [k, 2],
        "examples": 2,
        "steps_per_example": 1,
        "min_hits": 1,
        "pipeline": True,
        "engine": "prng",
        "steps": 1,
        "aimed_examples": 0,
        "swept_examples": 0,
        "wall_seconds": 0.0,
        "cpu_seconds": 0.0,
        "verdict": "pass",
        "error": None,
        "divergence": None,
        "problems": [],
        "streams": [],
        "coverage": [
            *([op, code, 1] for op, code in coverage.required_pairs()),
            *(["tool_id_parse", code, 1] for code in coverage.IDENTITY_CODES),
        ],
        "conditions": report.conditions_json(table),
    }


def _write(tmp_path: Path, name: str, value: dict[str, Any]) -> Path:
    path = tmp_path / name
    report.write(path, value)
    return path


def test_merge_applies_the_condition_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second, cut = _split(_corpus())
    for alone in (first, second):  # neither shard alone sees the cut decision's "decides"
        assert any(k.startswith(cut.site) for k in condition_gate.missing(alone))
    p1 = _write(tmp_path, "s1.json", _shard_report(1, first))
    p2 = _write(tmp_path, "s2.json", _shard_report(2, second))
    capsys.readouterr()
    assert main(["--merge", str(p1), str(p2), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "(100.0%)" in out and "no divergence" in out

    # one outcome no shard saw: the second shard loses the only "true" of a check it holds
    held = next(
        d
        for d in second.decisions.values()
        if d.kind == "checks" and d.seen.get((0, "true"), 0) > 0 and d.site != cut.site
    )
    del held.seen[(0, "true")]
    p2 = _write(tmp_path, "s2.json", _shard_report(2, second))
    assert main(["--merge", str(p1), str(p2), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"{held.site} | checks #1 {held.labels[0]} | true" in err
    assert "1 reachable condition outcomes never seen" in err


def test_a_profile_without_a_minimum_merges_without_the_gate(tmp_path: Path) -> None:
    first, second, _cut = _split(_corpus())
    second.decisions.clear()  # half the table missing
    dev = [_shard_report(k, t) | {"min_hits": 0} for k, t in ((1, first), (2, second))]
    paths = [_write(tmp_path, f"s{k}.json", r) for k, r in zip((1, 2), dev, strict=True)]
    assert main(["--merge", *map(str, paths), "--quiet"]) == 0


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


def test_merge_sums_the_sweep_and_aimed_examples_of_the_shards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every shard runs the edge sweep (and its own aimed examples): the merged line says how
    many in all."""
    paths = [tmp_path / f"s{k}.json" for k in (1, 2)]
    for k, out in enumerate(paths, 1):
        assert main([*SMALL, "--seed", "5", "--shard", f"{k}/2", "--json", str(out)]) == 0
    first, second = (_read(p) for p in paths)
    first.update(swept_examples=48, aimed_examples=3)
    second.update(swept_examples=47, aimed_examples=0)
    for path, value in zip(paths, (first, second), strict=True):
        path.write_text(json.dumps(value), encoding="utf-8")
    merged = report.merge([(paths[0], first), (paths[1], second)])
    assert (merged.swept, merged.aimed) == (95, 3)
    capsys.readouterr()
    assert main(["--merge", *map(str, paths), "--quiet"]) == 0
    assert "; 95 edge-sweep examples; 3 aimed examples" in capsys.readouterr().out
