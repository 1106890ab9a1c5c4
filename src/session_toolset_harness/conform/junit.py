"""The ``--junit`` report: JUnit XML, the lowest common denominator of CI test dashboards.

Vectors deliberately contain control characters (``"a\\u0007b"``) that XML 1.0 cannot carry even
escaped, so every text is passed through ``xml_safe`` first; ElementTree does the ``<&>"``
escaping. One ``testcase`` per vector, ``classname`` being the id's group.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from session_toolset_harness.conform.report import failure_block
from session_toolset_harness.conform.results import RunResult, Status

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """Replace characters XML 1.0 forbids with a visible ``\\uXXXX`` escape."""
    return _XML_INVALID.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def build(run: RunResult) -> ET.Element:
    """The ``testsuites`` element for a run."""
    counts = run.counts()
    suites = ET.Element("testsuites")
    suite = ET.SubElement(
        suites,
        "testsuite",
        {
            "name": "session-toolset conform",
            "tests": str(len(run.results)),
            "failures": str(counts[Status.FAILED]),
            "errors": str(counts[Status.ERRORED]),
            "skipped": str(counts[Status.SKIPPED]),
            "time": f"{run.seconds:.3f}",
        },
    )
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(
        properties, "property", {"name": "adapter", "value": xml_safe(" ".join(run.adapter))}
    )
    for result in run.results:
        group, _, _ = result.id.rpartition("/")
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": xml_safe(group or "vectors"),
                "name": xml_safe(result.id),
                "file": xml_safe(result.path),
                "time": f"{result.seconds:.3f}",
            },
        )
        message = xml_safe(" ".join(result.reason.split())[:1000])
        if result.status is Status.FAILED:
            failure = ET.SubElement(case, "failure", {"message": message, "type": "mismatch"})
            failure.text = xml_safe(failure_block(result))
        elif result.status is Status.ERRORED:
            error = ET.SubElement(case, "error", {"message": message, "type": "error"})
            error.text = xml_safe(failure_block(result))
        elif result.status is Status.SKIPPED:
            ET.SubElement(case, "skipped", {"message": message})
    if run.adapter_problems:
        ET.SubElement(suite, "system-err").text = xml_safe("\n".join(run.adapter_problems))
    return suites


def write(run: RunResult, path: Path) -> None:
    """Write the XML with a declaration; OSError propagates to the CLI (exit status 2)."""
    tree = ET.ElementTree(build(run))
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
