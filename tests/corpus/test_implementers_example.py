"""The minimal adapter docs/implementers.md points to really works through the runner.

It runs on every vector its five ops can pass, computed from the corpus (``example_scope``), so
a new vector those ops reach — a raw malformed line, a number edge — is one it must pass too.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from corpus.example_probes import PROBES, assert_like_reference
from corpus.example_scope import ROOT, in_scope_paths, step_vectors
from session_toolset_harness.conform.cli import main as conform_main

EXAMPLE = ROOT / "docs" / "examples" / "adapter-minimal.py"


def example_script(directory: Path) -> Path:
    """The Python adapter the guide points to, copied as a newcomer would copy it."""
    script = directory / "example_adapter.py"
    script.write_bytes(EXAMPLE.read_bytes())
    return script


def test_example_adapter_passes_every_vector_its_ops_reach(tmp_path: Path) -> None:
    script = example_script(tmp_path)
    adapter = shlex.join([sys.executable, str(script)])
    paths = in_scope_paths()
    assert len(paths) >= 18  # 18 when this test was written; the corpus only grows
    assert conform_main(["--quiet", "--adapter", adapter, "--vectors", *paths]) == 0


def test_example_adapter_passes_every_step_its_ops_reach(tmp_path: Path) -> None:
    adapter = shlex.join([sys.executable, str(example_script(tmp_path))])
    paths = step_vectors(tmp_path)
    assert conform_main(["--quiet", "--adapter", adapter, "--vectors", *paths]) == 0


def test_example_adapter_answers_every_probe_line_as_the_reference_adapter_does(
    tmp_path: Path,
) -> None:
    script = example_script(tmp_path)
    done = subprocess.run(
        [sys.executable, str(script)],
        input=b"".join(line + b"\n" for line in PROBES),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    replies = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert_like_reference(PROBES, replies)


def test_example_reader_deviates_from_spec_on_none_of_the_json_probes() -> None:
    tools = ROOT / "tools" / "json_probes"
    reader = [sys.executable, str(tools / "py_probe.py"), "example"]
    command = [str(tools / "probes.py"), "--", *reader]
    done = subprocess.run(
        [sys.executable, *command], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]
    assert "0 deviations" in done.stdout
