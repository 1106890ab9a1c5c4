"""The ``--json`` report of one exploration (one machine, one shard) and ``--merge`` of several.

A report carries the plan (seed, jobs, shard, budget, profile minimum), the coverage table, the
condition table (per decision of the model: the condition outcomes seen with their counts, and
the operand vectors of a conjunction or disjunction, from which MC/DC's "decides alone" is
resolved), the verdict and, on a divergence, its reason, whether it reproduced on replay
(``flaky``: what replaying gave, else null) and the vector file written.  Merging
sums the coverage tables, unions the condition tables (so an outcome decided by two
evaluations that two shards saw counts, exactly as `--jobs` merges its workers), checks that the
shards of one plan are all there exactly once, and gives one verdict: any divergence or error
fails, and so does a minimum unmet by the merged tables - the op-coverage minimum and, for a
profile with one, the condition gate (`condition_gate`: every outcome not proved unreachable).
"""

from __future__ import annotations

import json
import signal
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from session_toolset_model.conditions import OUTCOMES, ConditionTable

from . import condition_gate, coverage
from .parallel import Plan, PlanResult

FORMAT = "session-toolset explore report"
VERSION = 2
"""2: the condition table (version 1 reports had none, so cannot be judged by the gate)."""


class ReportError(ValueError):
    """A ``--merge`` input that is not a readable explore report."""


def build(
    plan: Plan, outcome: PlanResult, *, profile: str, adapter: str, vector: Path | None
) -> dict[str, Any]:
    result = outcome.result
    failure = result.failure
    stopped = None if outcome.signal is None else f"interrupted by {_signal_name(outcome.signal)}"
    if failure is not None:
        verdict = "divergence"
    elif result.error is not None:
        verdict = "error"
    elif stopped is not None:
        verdict = "incomplete"
    elif plan.shard[1] == 1 and plan.min_hits and _short(result.coverage, result.conditions, plan):
        verdict = "coverage"
    else:
        verdict = "pass"
    return {
        "format": FORMAT,
        "version": VERSION,
        "adapter": adapter,
        "profile": profile,
        "seed": plan.seed,
        "jobs": plan.jobs,
        "shard": list(plan.shard),
        "examples": plan.examples,
        "steps_per_example": plan.steps,
        "min_hits": plan.min_hits,
        "pipeline": plan.pipeline,
        "engine": plan.engine,
        "steps": result.steps,
        "aimed_examples": result.aimed,
        "swept_examples": result.swept,
        "wall_seconds": round(outcome.wall_seconds, 3),
        "cpu_seconds": round(result.cpu_seconds, 3),
        "verdict": verdict,
        "complete": stopped is None,
        "stopped": stopped,
        "error": result.error,
        "divergence": None
        if failure is None
        else {
            "kind": failure.kind,
            "reason": failure.reason,
            "seed": result.seed,
            "stream": outcome.failing_stream,
            "steps": len(failure.steps),
            "flaky": failure.flaky,
            "literal": failure.literal,
            "vector": None if vector is None else str(vector),
        },
        "streams": [
            {
                "stream": r.stream,
                "seed": r.seed,
                "examples": r.examples,
                "steps": r.steps,
                "stopped_early": r.stopped,
            }
            for r in outcome.runs
        ],
        "coverage": [[op, code, hits] for (op, code), hits in sorted(result.coverage.items())],
        "conditions": conditions_json(result.conditions),
    }


def _short(hits: Counter[tuple[str, str]], table: ConditionTable, plan: Plan) -> bool:
    return bool(coverage.missing(hits, plan.min_hits) or condition_gate.missing(table))


def conditions_json(table: ConditionTable) -> list[dict[str, Any]]:
    """The condition table as JSON: one object per decision (site, kind, condition labels),
    ``seen`` as ``[condition index, outcome, count]`` rows and ``vectors`` the operand truth
    vectors seen (and/or only)."""
    return [
        {
            "site": d.site,
            "kind": d.kind,
            "labels": list(d.labels),
            "seen": [[i, outcome, n] for (i, outcome), n in sorted(d.seen.items())],
            "vectors": sorted([list(v) for v in d.vectors]),
        }
        for d in sorted(table.decisions.values(), key=lambda d: (d.site, d.kind, len(d.labels)))
    ]


def conditions_from_json(rows: Any) -> ConditionTable:
    """The inverse of `conditions_json`; ``ValueError`` on anything else."""
    table = ConditionTable()
    if not isinstance(rows, list):
        raise ValueError("conditions")
    for row in rows:
        site, kind, labels = row["site"], row["kind"], row["labels"]
        if not (isinstance(site, str) and isinstance(kind, str) and isinstance(labels, list)):
            raise ValueError("condition decision")
        if not labels or not all(isinstance(x, str) for x in labels):
            raise ValueError("condition labels")
        d = table.decision(site, kind, tuple(labels))
        for index, outcome, count in row["seen"]:
            valid = isinstance(index, int) and 0 <= index < len(labels) and outcome in OUTCOMES
            if not (valid and isinstance(count, int) and count >= 0):
                raise ValueError("condition outcome row")
            d.seen[(index, outcome)] = d.seen.get((index, outcome), 0) + count
        for vector in row["vectors"]:
            if not (
                isinstance(vector, list)
                and len(vector) == len(labels)
                and all(isinstance(x, bool) for x in vector)
            ):
                raise ValueError("condition vector")
            d.vectors.add(tuple(vector))
    return table


def write(path: Path, report: dict[str, Any]) -> None:
    path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


def read(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise ReportError(f"cannot read {path}: {err}") from None
    except json.JSONDecodeError as err:
        raise ReportError(f"{path} is not JSON: {err}") from None
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise ReportError(f"{path} is not an explore report (written by explore --json)")
    if value.get("version") != VERSION:
        raise ReportError(f"{path}: report version {value.get('version')!r}, expected {VERSION}")
    try:
        _check_shape(value)
    except (TypeError, ValueError, KeyError) as err:
        raise ReportError(f"{path}: malformed report ({err})") from None
    return value


def _check_shape(report: dict[str, Any]) -> None:
    k, n = report["shard"]
    if not (isinstance(k, int) and isinstance(n, int) and 1 <= k <= n):
        raise ValueError("shard")
    for op, code, hits in report["coverage"]:
        if not (isinstance(op, str) and isinstance(code, str) and isinstance(hits, int)):
            raise ValueError("coverage row")
    if report["verdict"] not in ("pass", "divergence", "error", "coverage", "incomplete"):
        raise ValueError("verdict")
    int(report["steps"])
    int(report["min_hits"])
    conditions_from_json(report["conditions"])


@dataclass
class Merged:
    coverage: Counter[tuple[str, str]]
    steps: int
    problems: list[str]
    """Why the merged verdict fails: divergences, errors, missing or repeated shards."""
    short: list[tuple[tuple[str, str], int]]
    min_hits: int
    conditions: ConditionTable
    unseen: list[str]
    """Condition outcomes the merged table misses (judged when the profile has a minimum)."""
    swept: int = 0
    """Edge-sweep examples over the reports (each shard sweeps: `edge_sweep` is per stream)."""
    aimed: int = 0
    """Aimed examples over the reports."""

    @property
    def ok(self) -> bool:
        return not self.problems and not self.short and not self.unseen


def merge(reports: list[tuple[Path, dict[str, Any]]]) -> Merged:
    hits: Counter[tuple[str, str]] = Counter()
    conditions = ConditionTable()
    problems: list[str] = []
    steps = swept = aimed = 0
    plans: dict[tuple[Any, ...], list[int]] = {}
    for path, report in reports:
        for op, code, count in report["coverage"]:
            hits[(op, code)] += count
        conditions.merge(conditions_from_json(report["conditions"]))
        steps += int(report["steps"])
        swept += int(report.get("swept_examples", 0))  # absent from reports before the sweep
        aimed += int(report.get("aimed_examples", 0))
        if report["verdict"] == "divergence":
            found = report["divergence"] or {}
            problems.append(
                f"{path}: {'flaky ' if found.get('flaky') else ''}divergence "
                f"(seed {found.get('seed')}): {found.get('reason')}"
                + (f"; vector {found['vector']}" if found.get("vector") else "")
            )
        elif report["verdict"] == "error":
            problems.append(f"{path}: error: {report.get('error')}")
        elif report["verdict"] == "incomplete":
            problems.append(f"{path}: incomplete ({report.get('stopped')})")
        key = (
            report["adapter"],
            report["seed"],
            report["jobs"],
            report["examples"],
            report["steps_per_example"],
            report["shard"][1],
            report.get("engine", "hypothesis"),  # absent from reports before --engine
        )
        plans.setdefault(key, []).append(int(report["shard"][0]))
    for (_adapter, seed, jobs, _e, _s, n, engine), shards in sorted(plans.items(), key=str):
        counts = Counter(shards)
        missing = [k for k in range(1, n + 1) if k not in counts]
        repeated = sorted(k for k, c in counts.items() if c > 1)
        # The engine is named: shards of two engines are two plans, each missing its shards.
        label = f"seed {seed}, --jobs {jobs}, engine {engine}, {n} shards"
        if missing:
            problems.append(f"{label}: shard(s) {', '.join(f'{k}/{n}' for k in missing)} missing")
        if repeated:
            problems.append(
                f"{label}: shard(s) {', '.join(f'{k}/{n}' for k in repeated)} given more than once"
            )
    minimum = max((int(r["min_hits"]) for _, r in reports), default=0)
    short = coverage.missing(hits, minimum) if minimum else []
    unseen = condition_gate.missing(conditions) if minimum else []
    return Merged(hits, steps, problems, short, minimum, conditions, unseen, swept, aimed)


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
