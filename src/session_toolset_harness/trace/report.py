"""What a trace run prints and writes: violation blocks (partial mode: unexplained windows,
undecided partitions, explanations and what the check cannot conclude), the summary line,
``--json`` (the common envelope, `envelope.envelope`), ``--junit`` (one test case per partition,
a failure per violation, an error per undecided partition)."""

from __future__ import annotations

import json
import math
import signal
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from ..conform.jsonio import render
from ..conform.junit import xml_safe
from ..envelope import envelope
from .complete import Violation
from .partitions import PartitionResult
from .run import Explanation, PartialSettings, TraceResult, Undecided, Unexplained

FORMAT_VERSION: Final = 3
"""3: an interrupted run's verdict is ``incomplete`` and ``stopped`` says why, as in every other
report."""
TOOL: Final = "session-toolset trace"


def _partition(file: str, stream: str | None) -> str:
    return file + ("" if stream is None else f" (stream {render(stream, 80)})")


def _where(v: Violation | Unexplained) -> str:
    stream = "" if v.stream is None else f" (stream {render(v.stream, 80)})"
    return f"{v.file}:{v.line}{stream}"


def _no_history(settings: PartialSettings | None) -> str:
    if settings is not None and settings.max_hidden is None:
        return "no hidden history (of any length) between recorded lines"
    k = "?" if settings is None else settings.max_hidden
    return f"no hidden history of at most {k} operation{'s' * (k != 1)} between recorded lines"


def violation_block(
    v: Violation | Unexplained, settings: PartialSettings | None = None, *, hint: bool = False
) -> str:
    """``hint``: the bound was ``--max-hidden``'s default, so say how to raise it."""
    if isinstance(v, Unexplained):
        lines = "line " if v.first_line == v.line else f"lines {v.first_line}-"
        return (
            f"VIOLATION {_where(v)}: {v.op} - {_no_history(settings)} explains it\n"
            f"  shortest unexplained window: {lines}{v.line}\n"
            f"  observed: {render(v.observed, 400)}\n"
        ) + (
            "  hint: --max-hidden was left at its default; if more unrecorded operations ran "
            "between two recorded lines (a setup, say), raise it\n"
        ) * hint
    return (
        f"VIOLATION {_where(v)}: {v.op} - {v.section}\n"
        f"  at {v.path}: {v.message}\n"
        f"  expected: {render(v.expected, 400)}\n"
        f"  observed: {render(v.observed, 400)}\n"
    )


def undecided_block(u: Undecided) -> str:
    return f"UNDECIDED {_partition(u.file, u.stream)}: {u.reason}\n"


def explanation_block(e: Explanation) -> str:
    n = len(e.steps)
    text = f"EXPLANATION {_partition(e.file, e.stream)}: {n} hidden step{'s' * (n != 1)}\n"
    for step in e.steps:
        digest = "" if "digest" not in step else f" with digest {step['digest']}"
        text += f"  after line {step['after_line']}: {render(step['request'], 400)}{digest}\n"
    return text


def limits_block(result: TraceResult) -> str:
    """What a partial check cannot conclude (empty in complete mode)."""
    if result.partial is None:
        return ""
    return "A partial check cannot conclude:\n" + "".join(
        f"  - {limit}\n" for limit in result.partial.limits
    )


def verdict(result: TraceResult) -> str:
    if result.interrupted is not None:
        return f"INCOMPLETE ({signal.Signals(result.interrupted).name})"
    if result.unreadable is not None:
        return "INCOMPLETE (unusable line)"
    if result.violations:
        return "VIOLATION"
    return "UNDECIDED" if result.undecided else "consistent"


def json_verdict(result: TraceResult) -> str:
    if result.interrupted is not None:
        return "incomplete"
    if result.unreadable is not None:
        return "unreadable"
    if result.violations:
        return "violation"
    return "undecided" if result.undecided else "pass"


def stopped(result: TraceResult) -> str | None:
    """Why the run ended before its end (an interruption, an unusable line), or None."""
    if result.interrupted is not None:
        name = signal.Signals(result.interrupted).name
        return f"interrupted by {name} after {result.counts.lines} lines"
    if result.unreadable is not None:
        return f"unusable line: {result.unreadable}"
    return None


def summary_line(result: TraceResult) -> str:
    c = result.counts
    logs = len(result.files)
    text = (
        f"trace: {verdict(result)} - {logs} log{'s' * (logs != 1)}, {c.lines} lines in "
        f"{len(result.partitions)} partition{'s' * (len(result.partitions) != 1)}, "
        f"{c.checked} checked, {len(result.violations)} violation"
        f"{'s' * (len(result.violations) != 1)}"
    )
    if result.undecided:
        text += f", {len(result.undecided)} undecided"
    if result.partial is not None:
        k = result.partial.max_hidden
        many = "any number of" if k is None else f"at most {k}"
        text += f"; partial: {many} unrecorded {','.join(result.partial.unrecorded)} per gap"
    unchecked = []
    if c.before_reset:
        unchecked.append(f"{c.before_reset} before the first reset")
    if c.open:
        unchecked.append(f"{c.open} after a request SPEC.md leaves open")
    if unchecked:
        text += f"; unchecked: {', '.join(unchecked)}"
    if result.stopped:
        text += "; stopped at the first violation (--keep-going lists all)"
    if c.checked == 0 and result.interrupted is None and result.unreadable is None:
        text += "; NOTHING CHECKED" + (" (no reset in any partition?)" * (result.partial is None))
    return text + f" ({result.seconds:.2f} s)"


_PARTITIONS: Final = "\0partitions\0"
"""Where `write_json` writes the partitions, one at a time."""


Found = tuple[dict[tuple[str, str | None], str], dict[tuple[str, str | None], Any]] | None
"""Partial mode's undecided reasons and explanations by partition (None in complete mode)."""


def _found(result: TraceResult) -> Found:
    if result.partial is None:
        return None
    undecided = {(u.file, u.stream): u.reason for u in result.undecided}
    return undecided, {(e.file, e.stream): list(e.steps) for e in result.explanations}


def _partition_json(p: PartitionResult, found: Found) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "log": p.file,
        "stream": p.stream,
        "lines": p.counts.lines,
        "checked": p.counts.checked,
        "unchecked": {"before_reset": p.counts.before_reset, "open": p.counts.open},
        "violations": p.violations,
    }
    if found is not None:
        entry["undecided"] = found[0].get((p.file, p.stream))
        entry["explanation"] = found[1].get((p.file, p.stream))
    return entry


def build_json(result: TraceResult, *, partitions: bool = True) -> dict[str, Any]:
    """The report (``partitions=False``: a placeholder where the partitions go)."""
    c = result.counts
    counts = {
        "lines": c.lines,
        "checked": c.checked,
        "unchecked_before_reset": c.before_reset,
        "unchecked_open": c.open,
        "partitions": len(result.partitions),
        "violations": len(result.violations),
        "undecided": len(result.undecided),
    }
    settings = result.partial
    listed: Any = _PARTITIONS
    if partitions:
        found = _found(result)
        listed = [_partition_json(p, found) for p in result.partitions]
    return {
        **envelope(
            "trace",
            FORMAT_VERSION,
            json_verdict(result),
            counts,
            complete=result.interrupted is None and result.unreadable is None,
        ),
        "mode": "complete" if settings is None else "partial",
        "partial": None
        if settings is None
        else {
            "unrecorded": list(settings.unrecorded),
            "max_hidden": settings.max_hidden,
            "window": settings.window,
            "limits": list(settings.limits),
        },
        "stopped": stopped(result),
        "unreadable": result.unreadable,
        "stopped_at_first_violation": result.stopped,
        "seconds": round(result.seconds, 6),
        "logs": result.files,
        "partitions": listed,
        "violations": [v.to_json() for v in result.violations],
    }


def _json_safe(value: Any) -> Any:
    """``value`` with every non-finite number (an observed ``1e400`` reads as infinity) as the
    string ``"Infinity"``, ``"-Infinity"`` or ``"NaN"``: JSON has no such number."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value


def _dumps(value: Any) -> str:
    return json.dumps(_json_safe(value), indent=2, ensure_ascii=True, allow_nan=False)


def write_json(result: TraceResult, path: Path) -> None:
    """`build_json` written with the partitions one at a time: however many there are, only
    one is in memory."""
    before, _, after = _dumps(build_json(result, partitions=False)).partition(_dumps(_PARTITIONS))
    with path.open("w", encoding="utf-8") as out:
        out.write(before + "[")
        found = _found(result)
        for n, part in enumerate(result.partitions):
            out.write(
                "," * (n > 0) + "\n" + textwrap.indent(_dumps(_partition_json(part, found)), "    ")
            )
        out.write(("\n  ]" if len(result.partitions) else "]") + after + "\n")


def _failure_message(v: Violation | Unexplained, settings: PartialSettings | None) -> str:
    if isinstance(v, Unexplained):
        return f"lines {v.first_line}-{v.line}: {v.op}: {_no_history(settings)} explains them"
    return f"line {v.line}: {v.op}: {v.path}"


_CASES: Final = "partitions"
"""Where `write_junit` writes the partitions' test cases, one at a time."""


def build_junit(result: TraceResult) -> ET.Element:
    """The report, with a comment where the partitions' test cases go (`write_junit`)."""
    suites = ET.Element("testsuites")
    failing = sum(1 for p in result.partitions if p.violations)
    incomplete = result.interrupted is not None or result.unreadable is not None
    errors = len(result.undecided) + incomplete
    suite = ET.SubElement(
        suites,
        "testsuite",
        {
            "name": TOOL,
            "tests": str(len(result.partitions) + incomplete),
            "failures": str(failing),
            "errors": str(errors),
            "skipped": "0",
            "time": f"{result.seconds:.3f}",
        },
    )
    suite.append(ET.Comment(_CASES))
    if incomplete:  # a partial report says so where CI dashboards look
        case = ET.SubElement(suite, "testcase", {"classname": TOOL, "name": "(run)"})
        why = "interrupted" if result.unreadable is None else xml_safe(result.unreadable)[:1000]
        ET.SubElement(case, "error", {"message": why, "type": "incomplete"}).text = xml_safe(
            summary_line(result)
        )
    return suites


def _cases(result: TraceResult) -> Iterator[ET.Element]:
    """One test case per partition: a failure per violation, an error if undecided."""
    by_partition: dict[tuple[str, str | None], list[Violation | Unexplained]] = {}
    for v in result.violations:
        by_partition.setdefault((v.file, v.stream), []).append(v)
    undecided = {(u.file, u.stream): u for u in result.undecided}
    for p in result.partitions:
        case = ET.Element(
            "testcase",
            {
                "classname": xml_safe(p.file),
                "name": xml_safe("(unnamed stream)" if p.stream is None else p.stream),
                "time": "0.000",
            },
        )
        found = by_partition.get((p.file, p.stream), [])
        if found:
            failure = ET.SubElement(
                case,
                "failure",
                {
                    "message": xml_safe(_failure_message(found[0], result.partial))[:1000],
                    "type": "violation",
                },
            )
            failure.text = xml_safe("\n".join(violation_block(v, result.partial) for v in found))
        elif (p.file, p.stream) in undecided:  # never a pass
            u = undecided[(p.file, p.stream)]
            ET.SubElement(
                case, "error", {"message": xml_safe(u.reason)[:1000], "type": "undecided"}
            ).text = xml_safe(undecided_block(u) + limits_block(result))
        yield case


def write_junit(result: TraceResult, path: Path) -> None:
    """`build_junit` written with the test cases one at a time: however many partitions there
    are, only one is in memory."""
    suites = build_junit(result)
    ET.indent(suites)
    text = ET.tostring(suites, encoding="unicode")
    before, _, after = text.partition(f"<!--{_CASES}-->")
    with path.open("w", encoding="utf-8") as out:
        out.write("<?xml version='1.0' encoding='utf-8'?>\n" + before.rstrip(" "))
        for case in _cases(result):
            ET.indent(case, level=2)
            out.write("    " + ET.tostring(case, encoding="unicode").rstrip() + "\n")
        out.write(after.removeprefix("\n"))
