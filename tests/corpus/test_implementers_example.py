"""The minimal adapter printed in docs/implementers.md really works through the runner."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.corpus.build import DEFAULT_OUT

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "implementers.md"
VECTORS = [
    "identity/session-id-rules",
    "identity/session-id-control-characters",
    "identity/tool-id-parse-order",
    "identity/tool-id-parse-verbatim",
    "identity/tool-id-segment-limits",
    "digest/key-order",
    "digest/int-vs-double",
    "digest/negative-zero",
    "digest/float-layout",
    "digest/unicode-keys",
    "digest/integer-range",
]


def test_example_adapter_passes_its_vectors(tmp_path: Path) -> None:
    found = re.search(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert found is not None
    script = tmp_path / "example_adapter.py"
    script.write_text(found.group(1), encoding="utf-8")
    adapter = shlex.join([sys.executable, str(script)])
    paths = [str(DEFAULT_OUT / f"{vid}.json") for vid in VECTORS]
    assert conform_main(["--quiet", "--adapter", adapter, "--vectors", *paths]) == 0
