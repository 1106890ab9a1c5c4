"""The ``--junit`` report: JUnit XML, the lowest common denominator of CI test dashboards.

Vectors deliberately contain control characters (``"a\\u0007b"``) that XML 1.0 cannot carry even
escaped, so every text is passed through ``xml_safe`` first; ElementTree does the ``<&>"``
escaping. One ``testcase`` per vector, ``classname`` being the id's group, ``file`` the vector
file relative to the working directory (the checkout a CI job annotates) or, for the packaged
corpus, relative to the corpus directory (`display_path`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

from session_toolset_harness.conform.report import failure_block
from session_toolset_harness.conform.results import RunResult, Status

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """Replace characters XML 1.0 forbids with a visible ``\\uXXXX`` escape."""
    return _XML_INVALID.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def display_path(path: str, base: Path | None = None) -> str:
    """``path`` relative to ``base`` (default: the working directory) when it lies inside it,
    else relative to the packaged corpus when it lies there, else as given (POSIX slashes)."""
    if not path:
        return path
    candidate = Path(path)
    if not candidate.is_absolute():
        return candidate.as_posix()
    corpus = resources.files("session_toolset_harness") / "vectors"
    for root in (base or Path.cwd(), corpus if isinstance(corpus, Path) else None):
        if root is None:
            continue
        try:
            return candidate.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
    return candidate.as_posix()


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
                "file": xml_safe(display_path(result.path)),
                "time": f"{result.seconds:.3f}",
            },
        )
        message = xml_safe(" ".join(result.reason.split())[:1000])
        if result.status is Status.SKIPPED:
            ET.SubElement(case, "skipped", {"message": message})
        elif result.status is not Status.PASSED:
            tag, kind = (
                ("failure", "mismatch") if result.status is Status.FAILED else ("error",) * 2
            )
            element = ET.SubElement(case, tag, {"message": message, "type": kind})
            element.text = xml_safe(failure_block(result))
    if run.adapter_problems:
        ET.SubElement(suite, "system-err").text = xml_safe("\n".join(run.adapter_problems))
    return suites


def write(run: RunResult, path: Path) -> None:
    """Write the XML with a declaration; OSError propagates to the CLI (exit status 2)."""
    tree = ET.ElementTree(build(run))
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
