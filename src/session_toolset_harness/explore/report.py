"""The ``--json`` report of one exploration, ``--merge`` of several, and the ``--junit`` and
``--summary`` renderings of a report, single or merged.

A report carries the plan, the coverage and condition tables, the verdict and the divergence.
Merging sums coverage, unions the condition tables, checks that every shard of a plan is there
and gives one verdict: any divergence, error or missing shard fails."""

from __future__ import annotations

import json
import signal
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from session_toolset_model.conditions import OUTCOMES, ConditionTable
from session_toolset_model.ops import OPS, outcomes_for
from session_toolset_model.profiles import DEFAULT
from session_toolset_model.reachability import UNREACHABLE

from ..conform.junit import display_path, xml_safe
from ..envelope import envelope
from ..summary import code_block, table
from .parallel import Plan, PlanResult
from .vectorize import describe

FORMAT = "session-toolset explore report"
FORMAT_VERSION = 4
"""4: one engine, no coverage minimum (``min_hits``, ``engine``, ``aimed_examples``,
``swept_examples`` and the ``coverage`` verdict gone), ``counts.examples`` the examples run;
3: the common envelope (`envelope`); 2 added the condition table."""
VERDICTS = ("pass", "divergence", "error", "incomplete")


PROTOCOL_ONLY: Final[dict[str, tuple[str, ...]]] = {
    "forge_grant": ("ok",),
    "catalog_set_generation": ("ok",),
    "authorize_wire": ("ToolAuthorizationError.UnknownTool", "ok"),
    **dict.fromkeys(("hello", "tool_id_parse", "tool_id", "session_id_parse"), ("ok",)),
    "digest": ("ok", "Protocol"),
    "carry_forward_enabled": ("ok",),
    "resolve": ("ok", "ToolAuthorizationError.UnknownTool"),
    "factory_calls": ("ok",),
    "send_line": ("ok", "Protocol"),
}
"""Ops and outcomes outside the model's table that the coverage line counts (identity ops,
digests, resolution, raw lines)."""


def required_pairs() -> list[tuple[str, str]]:
    """The (operation, outcome) pairs the coverage line counts: the model's reachable pairs
    (`session_toolset_model.reachability`) and the protocol-only ones."""
    pairs = [
        (name, code)
        for name, op in OPS.items()
        for code in outcomes_for(op, DEFAULT)
        if (name, code) not in UNREACHABLE
    ]
    return sorted(pairs + [(op, code) for op, codes in PROTOCOL_ONLY.items() for code in codes])


def coverage_table(hits: Counter[tuple[str, str]]) -> str:
    """Hits per (operation, outcome): every counted pair (zeros shown) and everything seen."""
    rows = sorted(set(required_pairs()) | set(hits))
    width = max((len(op) for op, _ in rows), default=10)
    lines = [f"{'operation':<{width}}  {'hits':>7}  outcome"]
    lines += [f"{op:<{width}}  {hits[(op, code)]:>7}  {code}" for op, code in rows]
    return "\n".join(lines)


class ReportError(ValueError):
    """A ``--merge`` input that is not a readable explore report."""


def _counts(
    steps: int, examples: int, divergences: int, errors: int, steered: int
) -> dict[str, int]:
    return {
        "examples": examples,
        "steps": steps,
        "divergences": divergences,
        "errors": errors,
        "steered": steered,
    }


def build(
    plan: Plan, outcome: PlanResult, *, budget: str, adapter: str, vector: Path | None
) -> dict[str, Any]:
    result = outcome.result
    failure = result.failure
    stopped = (
        None
        if outcome.signal is None
        else f"interrupted by {_signal_name(outcome.signal)} after {result.examples} examples"
    )
    if failure is not None:
        verdict = "divergence"
    elif result.error is not None:
        verdict = "error"
    elif stopped is not None:
        verdict = "incomplete"
    else:
        verdict = "pass"
    counts = _counts(
        result.steps,
        result.examples,
        int(failure is not None),
        int(result.error is not None),
        result.steered,
    )
    return {
        **envelope("explore", FORMAT_VERSION, verdict, counts, complete=stopped is None),
        "stopped": stopped,
        "adapter": adapter,
        "budget": budget,
        "exclude_tags": list(plan.exclude_tags),
        "timeout": plan.timeout,
        "seed": plan.seed,
        "jobs": plan.jobs,
        "shard": list(plan.shard),
        "examples": plan.examples,
        "steps_per_example": plan.steps,
        "pipeline": plan.pipeline,
        "steps": result.steps,
        "wall_seconds": round(outcome.wall_seconds, 3),
        "cpu_seconds": round(result.cpu_seconds, 3),
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
            "sequence": describe(failure),
        },
        "problems": [],
        "streams": [
            {
                "stream": r.stream,
                "seed": r.result.seed,
                "examples": r.result.examples,
                "steps": r.result.steps,
                "stopped_early": r.stopped,
            }
            for r in outcome.runs
        ],
        "coverage": [[op, code, hits] for (op, code), hits in sorted(result.coverage.items())],
        "conditions": conditions_json(result.conditions),
    }


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
    if value.get("format_version") != FORMAT_VERSION:
        found = value.get("format_version", value.get("version"))
        raise ReportError(f"{path}: report format {found!r}, expected {FORMAT_VERSION}")
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
    if report["verdict"] not in VERDICTS:
        raise ValueError("verdict")
    int(report["steps"])
    missing = [key for key in _PLAN_KEYS if key not in report]
    if missing:
        raise KeyError(missing[0])
    for key in ("examples", "steered"):
        int(report["counts"][key])
    conditions_from_json(report["conditions"])


@dataclass
class Merged:
    coverage: Counter[tuple[str, str]]
    steps: int
    problems: list[str]
    """Why the merged verdict fails: divergences, errors, missing shards."""
    conditions: ConditionTable
    reports: list[tuple[Path, dict[str, Any]]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    """The plans with shards missing (each also one of the `problems`)."""

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def complete(self) -> bool:
        """Every shard of every plan is there and covers its whole part (none was interrupted)."""
        return not self.missing and all(r.get("complete", True) for _, r in self.reports)

    def divergences(self) -> list[tuple[Path, dict[str, Any]]]:
        return [(p, r["divergence"]) for p, r in self.reports if r["verdict"] == "divergence"]

    @property
    def verdict(self) -> str:
        if self.divergences():
            return "divergence"
        if not self.complete:
            return "incomplete"
        if self.problems:
            return "error"
        return "pass"

    def to_json(self) -> dict[str, Any]:
        """The merged run as one explore report (shard 1/1; ``merged_from`` names its inputs)."""
        first = self.reports[0][1]
        found = self.divergences()
        divergence = None
        if found:
            divergence = {**found[0][1], "report": str(found[0][0])}
        errors = sum(r["verdict"] == "error" for _, r in self.reports)
        counts = _counts(
            self.steps,
            sum(int(r["counts"]["examples"]) for _, r in self.reports),
            len(found),
            errors,
            sum(int(r["counts"]["steered"]) for _, r in self.reports),
        )
        return {
            **envelope("explore", FORMAT_VERSION, self.verdict, counts, complete=self.complete),
            "stopped": "; ".join(
                [*(r["stopped"] for _, r in self.reports if r.get("stopped")), *self.missing]
            )
            or None,
            **{key: first[key] for key in _PLAN_KEYS},
            "shard": [1, 1],
            "merged_from": [str(p) for p, _ in self.reports],
            "steps": self.steps,
            "wall_seconds": max(float(r["wall_seconds"]) for _, r in self.reports),
            "cpu_seconds": round(sum(float(r["cpu_seconds"]) for _, r in self.reports), 3),
            "error": next((r["error"] for _, r in self.reports if r["error"]), None),
            "divergence": divergence,
            "problems": list(self.problems),
            "streams": [s for _, r in self.reports for s in r["streams"]],
            "coverage": [[op, code, hits] for (op, code), hits in sorted(self.coverage.items())],
            "conditions": conditions_json(self.conditions),
        }


_PLAN_KEYS = (
    "adapter",
    "budget",
    "exclude_tags",
    "timeout",
    "seed",
    "jobs",
    "examples",
    "steps_per_example",
    "pipeline",
)
"""Plan fields a merged report takes from its first input (the shards of one plan agree)."""


def plan_of(report: dict[str, Any]) -> tuple[Any, ...]:
    """What makes reports the shards of one plan: adapter, seed, jobs, budget, shard count."""
    return (
        report["adapter"],
        report["seed"],
        report["jobs"],
        report["examples"],
        report["steps_per_example"],
        report["shard"][1],
    )


def shard_of(report: dict[str, Any]) -> tuple[Any, ...]:
    """One shard of one plan: two reports with the same are the same run counted twice."""
    return (*plan_of(report), report["shard"][0])


def merge(reports: list[tuple[Path, dict[str, Any]]]) -> Merged:
    """The reports as one run; the caller has refused a shard given twice
    (``conform.merge.given_twice`` with `shard_of`)."""
    hits: Counter[tuple[str, str]] = Counter()
    conditions = ConditionTable()
    problems: list[str] = []
    missing: list[str] = []
    steps = 0
    plans: dict[tuple[Any, ...], set[int]] = {}
    for path, report in reports:
        for op, code, count in report["coverage"]:
            hits[(op, code)] += count
        conditions.merge(conditions_from_json(report["conditions"]))
        steps += int(report["steps"])
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
        plans.setdefault(plan_of(report), set()).add(int(report["shard"][0]))
    for (_adapter, seed, jobs, _e, _s, n), shards in sorted(plans.items(), key=str):
        absent = [f"{k}/{n}" for k in range(1, n + 1) if k not in shards]
        if absent:
            missing.append(f"seed {seed}, --jobs {jobs}: shard(s) {', '.join(absent)} missing")
    problems += missing
    return Merged(hits, steps, problems, conditions, list(reports), missing)


def _divergence_text(divergence: dict[str, Any]) -> str:
    text = str(divergence.get("sequence") or divergence.get("reason"))
    if divergence.get("vector"):
        text += f"\nvector: {divergence['vector']} "
        text += f"(replay: session-toolset conform --vectors {divergence['vector']})"
    return text


def _diverged_in(divergence: dict[str, Any], stream: dict[str, Any]) -> bool:
    """The divergence was found by ``stream`` (a single-stream run names no stream)."""
    if divergence.get("stream") is None:
        return bool(divergence.get("seed") == stream["seed"])
    return bool(divergence["stream"] == stream["stream"])


def junit(report: dict[str, Any]) -> ET.Element:
    """The ``--junit`` report: one testcase per seed stream (the diverging one fails, carrying
    the shrunk sequence; one whose run stopped on an error is an error)."""
    suites = ET.Element("testsuites")
    suite = ET.SubElement(suites, "testsuite", {"name": "session-toolset explore"})
    divergence = report["divergence"]
    failures = errors = 0
    for stream in report["streams"]:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": "explore",
                "name": f"stream {stream['stream']} (seed {stream['seed']})",
                "time": "0",
            },
        )
        if divergence is not None and _diverged_in(divergence, stream):
            failures += 1
            if divergence.get("vector"):
                case.set("file", xml_safe(display_path(str(divergence["vector"]))))
            message = xml_safe(" ".join(str(divergence["reason"]).split())[:1000])
            failed = ET.SubElement(case, "failure", {"message": message, "type": "divergence"})
            failed.text = xml_safe(_divergence_text(divergence))
    if report["verdict"] == "error":
        errors += 1
        case = ET.SubElement(suite, "testcase", {"classname": "explore", "name": "run"})
        message = str(report["error"] or "; ".join(report["problems"]))
        error = ET.SubElement(case, "error", {"message": xml_safe(message[:1000])})
        error.text = xml_safe("\n".join([message, *report["problems"]]))
    if report["verdict"] == "incomplete":  # interrupted: the streams above ran only partly
        errors += 1
        case = ET.SubElement(suite, "testcase", {"classname": "explore", "name": "run"})
        ET.SubElement(case, "error", {"message": xml_safe(f"incomplete: {report['stopped']}")})
    if divergence is not None and not failures:  # a divergence of a stream not listed
        failures += 1
        case = ET.SubElement(suite, "testcase", {"classname": "explore", "name": "divergence"})
        failed = ET.SubElement(case, "failure", {"message": xml_safe(str(divergence["reason"]))})
        failed.text = xml_safe(_divergence_text(divergence))
    suite.set("tests", str(len(suite.findall("testcase"))))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("time", f"{float(report['wall_seconds']):.3f}")
    return suites


def write_junit(path: Path, report: dict[str, Any]) -> None:
    tree = ET.ElementTree(junit(report))
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)


def markdown(report: dict[str, Any]) -> str:
    """The ``--summary`` text: verdict, hits per operation, the divergence or first problem."""
    verdict = "passed" if report["verdict"] == "pass" else f"**{report['verdict'].upper()}**"
    per_op: dict[str, list[int]] = {}
    for op, code, hits in report["coverage"]:
        row = per_op.setdefault(op, [0, 0, 0])
        row[0 if code == "ok" else 1] += hits
        row[2] += 1
    counts = report["counts"]
    steered = (
        f"; {counts['steered']} requests steered off declared-difference literals"
        if report["exclude_tags"]
        else ""
    )
    parts = [
        f"## session-toolset explore: {verdict}\n",
        f"adapter `{report['adapter']}`, budget {report['budget']}, seed {report['seed']}: "
        f"{counts['examples']} examples, {counts['steps']} steps{steered}\n",
        table(
            ["operation", "ok replies", "rejections", "outcomes seen"],
            [[op, *row] for op, row in sorted(per_op.items())],
        ),
    ]
    divergence = report["divergence"]
    if divergence is not None:
        parts.append(f"### Divergence (seed {divergence.get('seed')})\n")
        parts.append(code_block(_divergence_text(divergence)))
    problems = list(report["problems"]) or ([report["error"]] if report["error"] else [])
    if problems:
        more = f" ({len(problems) - 1} more in the JSON report)" if len(problems) > 1 else ""
        parts.append(f"### First problem{more}\n")
        parts.append(code_block(str(problems[0])))
    return "\n".join(parts)


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
