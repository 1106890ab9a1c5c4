"""What a trace run prints and writes: violation blocks, the summary line, ``--json``,
``--junit`` (one test case per partition, a failure per violation)."""

from __future__ import annotations

import json
import signal
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Final

from ..conform.jsonio import render
from ..conform.junit import xml_safe
from ..envelope import tool_version
from .complete import Violation
from .run import TraceResult

REPORT_FORMAT: Final = 1
TOOL: Final = "session-toolset trace"


def _where(v: Violation) -> str:
    stream = "" if v.stream is None else f" (stream {render(v.stream, 80)})"
    return f"{v.file}:{v.line}{stream}"


def violation_block(v: Violation) -> str:
    return (
        f"VIOLATION {_where(v)}: {v.op} - {v.section}\n"
        f"  at {v.path}: {v.message}\n"
        f"  expected: {render(v.expected, 400)}\n"
        f"  observed: {render(v.observed, 400)}\n"
    )


def verdict(result: TraceResult) -> str:
    if result.interrupted is not None:
        return f"INCOMPLETE ({signal.Signals(result.interrupted).name})"
    return "consistent" if result.ok else "VIOLATION"


def summary_line(result: TraceResult) -> str:
    c = result.counts
    logs = len(result.files)
    text = (
        f"trace: {verdict(result)} - {logs} log{'s' * (logs != 1)}, {c.lines} lines in "
        f"{len(result.partitions)} partition{'s' * (len(result.partitions) != 1)}, "
        f"{c.checked} checked, {len(result.violations)} violation"
        f"{'s' * (len(result.violations) != 1)}"
    )
    unchecked = []
    if c.before_reset:
        unchecked.append(f"{c.before_reset} before the first reset")
    if c.open:
        unchecked.append(f"{c.open} after a request SPEC.md leaves open")
    if unchecked:
        text += f"; unchecked: {', '.join(unchecked)}"
    if result.stopped:
        text += "; stopped at the first violation (--keep-going lists all)"
    if c.checked == 0 and result.interrupted is None:
        text += "; NOTHING CHECKED (no reset in any partition?)"
    return text + f" ({result.seconds:.2f} s)"


def build_json(result: TraceResult) -> dict[str, Any]:
    c = result.counts
    return {
        "report_format": REPORT_FORMAT,
        "tool": TOOL,
        "version": tool_version(),
        "mode": "complete",
        "ok": result.ok,
        "complete": result.interrupted is None and not result.stopped,
        "interrupted": (
            None if result.interrupted is None else signal.Signals(result.interrupted).name
        ),
        "stopped_at_first_violation": result.stopped,
        "seconds": round(result.seconds, 6),
        "logs": result.files,
        "lines": c.lines,
        "checked": c.checked,
        "unchecked": {"before_reset": c.before_reset, "open": c.open},
        "partitions": [
            {
                "log": p.file,
                "stream": p.stream,
                "lines": p.counts.lines,
                "checked": p.counts.checked,
                "unchecked": {"before_reset": p.counts.before_reset, "open": p.counts.open},
                "violations": p.violations,
            }
            for p in result.partitions
        ],
        "violations": [v.to_json() for v in result.violations],
    }


def write_json(result: TraceResult, path: Path) -> None:
    text = json.dumps(build_json(result), indent=2, ensure_ascii=True)
    path.write_text(text + "\n", encoding="utf-8")


def build_junit(result: TraceResult) -> ET.Element:
    suites = ET.Element("testsuites")
    failing = sum(1 for p in result.partitions if p.violations)
    suite = ET.SubElement(
        suites,
        "testsuite",
        {
            "name": TOOL,
            "tests": str(len(result.partitions) + (result.interrupted is not None)),
            "failures": str(failing),
            "errors": str(int(result.interrupted is not None)),
            "skipped": "0",
            "time": f"{result.seconds:.3f}",
        },
    )
    by_partition: dict[tuple[str, str | None], list[Violation]] = {}
    for v in result.violations:
        by_partition.setdefault((v.file, v.stream), []).append(v)
    for p in result.partitions:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": xml_safe(p.file),
                "name": xml_safe("(unnamed stream)" if p.stream is None else p.stream),
                "time": "0.000",
            },
        )
        found = by_partition.get((p.file, p.stream), [])
        if found:
            first = found[0]
            failure = ET.SubElement(
                case,
                "failure",
                {
                    "message": xml_safe(f"line {first.line}: {first.op}: {first.path}")[:1000],
                    "type": "violation",
                },
            )
            failure.text = xml_safe("\n".join(violation_block(v) for v in found))
    if result.interrupted is not None:  # a partial report says so where CI dashboards look
        case = ET.SubElement(suite, "testcase", {"classname": TOOL, "name": "(run)"})
        ET.SubElement(
            case, "error", {"message": "interrupted", "type": "incomplete"}
        ).text = summary_line(result)
    return suites


def write_junit(result: TraceResult, path: Path) -> None:
    tree = ET.ElementTree(build_junit(result))
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
