"""The generated vector corpus: files match the builder, every vector passes against the reference
adapter, and every reachable error code and every PROTOCOL.md op is exercised."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from session_toolset import errors
from session_toolset.adapter import World, handle_line
from session_toolset.adapter.ops import HANDLERS
from session_toolset_harness.conform.checks import op_of
from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.conform.vectors import read_send
from session_toolset_harness.corpus import codes, derived, spec
from session_toolset_harness.corpus.__main__ import main as corpus_main
from session_toolset_harness.corpus.build import DEFAULT_OUT, FOREIGN_DIRS, all_vectors, check
from session_toolset_harness.corpus.replay import Handle, run_all, run_vector

pytestmark = pytest.mark.spec("all")

Obj = dict[str, Any]
REFERENCE_DIGESTS = DEFAULT_OUT.parent / "reference" / "digest.json"


def reference_handle() -> Handle:
    world = World()

    def handle(line: bytes) -> Obj:
        return handle_line(world, line)

    return handle


def corpus_files() -> list[Path]:
    """The hand-written vectors' files (not the recorded, model-generated or derived ones)."""
    return sorted(
        p
        for p in DEFAULT_OUT.rglob("*.json")
        if p.relative_to(DEFAULT_OUT).parts[0] not in FOREIGN_DIRS | set(derived.GROUPS)
    )


def documents() -> list[Obj]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in corpus_files()]


def all_documents() -> list[Obj]:
    """The generated corpus plus the recorded walkthroughs (everything the runner runs)."""
    found: list[Obj] = []
    for path in sorted(DEFAULT_OUT.rglob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(document, dict) and "steps" in document:
            found.append(document)
    return found


# --- (a) the files are what the builder writes ---------------------------------------------------


def test_files_match_the_builder() -> None:
    assert check() == []
    assert corpus_main(["check"]) == 0


def test_check_command_notices_a_hand_edit(tmp_path: Path) -> None:
    out = tmp_path / "vectors"
    assert corpus_main(["build", "--out", str(out)]) == 0
    assert corpus_main(["check", "--out", str(out)]) == 0
    target = out / "gate" / "coherent-imposter.json"
    target.write_text(target.read_text(encoding="utf-8").replace('"ok": false', '"ok": true', 1))
    (out / "gate" / "stray.json").write_text("{}\n", encoding="utf-8")
    problems = check(out)
    assert any("gate/coherent-imposter.json" in p for p in problems)
    assert any("gate/stray.json" in p for p in problems)
    assert corpus_main(["check", "--out", str(out)]) == 1
    assert corpus_main(["build", "--out", str(out)]) == 0
    assert check(out) == []


def test_build_is_deterministic(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    corpus_main(["build", "--out", str(first)])
    corpus_main(["build", "--out", str(second)])
    for path in first.rglob("*.json"):
        text = path.read_text(encoding="utf-8")
        assert text.endswith("}\n")
        assert text == (second / path.relative_to(first)).read_text(encoding="utf-8")


def test_module_command_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "session_toolset_harness.corpus", "check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


# --- vector hygiene ----------------------------------------------------------------------------

_ID = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


def _keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_vector_rules() -> None:
    docs = documents()
    assert len(docs) == len(all_vectors())
    for doc, path in zip(docs, corpus_files(), strict=True):
        assert _ID.match(doc["id"]), doc["id"]
        assert path.relative_to(DEFAULT_OUT).as_posix() == f"{doc['id']}.json"
        assert doc["id"].split("/")[0] not in FOREIGN_DIRS
        steps = doc["steps"]
        assert steps[0] == {"send": {"op": "hello"}, "expect": {"ok": True, "protocol": 1}}
        assert steps[1] == {"send": {"op": "reset"}, "expect": {"ok": True}}
        for step in steps:
            # never wording, never what SPEC.md leaves open
            assert not {"message", "implementation"} & set(step["expect"]), doc["id"]
            assert isinstance(step["expect"].get("ok"), bool)


def test_runner_validates_the_corpus() -> None:
    assert conform_main(["--validate", "--quiet", "--vectors", str(DEFAULT_OUT)]) == 0


# --- (b) the reference adapter passes every vector -----------------------------------------------


def test_reference_passes_every_vector() -> None:
    failures = run_all(all_documents(), reference_handle)
    assert failures == []


def test_replay_detects_a_wrong_reply() -> None:
    doc = all_vectors()[0].to_json()

    def liar() -> Callable[[bytes], Obj]:
        return lambda line: {"ok": True, "protocol": 1.0}

    failure = run_vector(doc, liar())
    assert failure is not None and failure.step == 0


# --- (c) coverage ------------------------------------------------------------------------------


def _hits() -> tuple[set[str], set[str]]:
    sent_ops: set[str] = set()
    expected_codes: set[str] = set()
    for doc in documents():
        for step in doc["steps"]:
            op = op_of(read_send(step))  # a send_line / send_hex step names the op its JSON holds
            if op in HANDLERS:
                sent_ops.add(op)
            if step["expect"].get("ok") is False:
                expected_codes.add(step["expect"]["error"])
    return sent_ops, expected_codes


def _implementation_codes() -> set[str]:
    """Every code the concrete error classes can produce, expanding the wrapping variants."""
    leaves: dict[str, set[str]] = {}
    for value in vars(errors).values():
        if (
            isinstance(value, type)
            and issubclass(value, errors.SessionToolsetError)
            and value.variant
            and not issubclass(value, errors._Wrapping)
        ):
            leaves.setdefault(value.family, set()).add(value.variant)
    bulk = {f"Grant.{v}" for v in leaves["ActivationError"]} | leaves["BulkActivationError"]
    leaves["BulkActivationError"] = bulk
    host = leaves["HostActivationError"]
    host |= {f"Issuance.{v}" for v in leaves["GrantIssuanceError"]}
    host |= {f"Bulk.{v}" for v in bulk}
    found = {f"{family}.{variant}" for family, variants in leaves.items() for variant in variants}
    return found | {errors.CatalogGenerationOverflow.family, "Protocol"}


def test_code_lists_agree() -> None:
    assert set(codes.ALL_CODES) == _implementation_codes()


def test_every_reachable_code_is_hit() -> None:
    _, hit = _hits()
    missing = [c for c in codes.REACHABLE if c not in hit]
    assert missing == []
    assert not hit & set(codes.UNREACHABLE)
    assert hit <= set(codes.ALL_CODES)


def test_every_op_is_sent() -> None:
    sent, _ = _hits()
    assert set(codes.OPS) == set(HANDLERS)
    assert set(codes.OPS) <= sent


def test_runner_sees_full_coverage(capsys: pytest.CaptureFixture[str]) -> None:
    status = conform_main(["--require-full-coverage", "--quiet", "--vectors", str(DEFAULT_OUT)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "known reachable codes at zero: 0 of" in out


# --- the builder's own SPEC.md renderings ---------------------------------------------------------


def test_builder_digest_matches_the_recorded_original() -> None:
    table = json.loads(REFERENCE_DIGESTS.read_text(encoding="utf-8"))

    def parse_int(text: str) -> int | float:
        return -0.0 if text == "-0" else int(text)  # SPEC.md 1.4: '-0' is the double -0.0

    for row in table["rows"]:
        value = json.loads(row["schema_json"], parse_int=parse_int)
        assert spec.digest(value) == row["digest"], row["label"]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1, "1"),
        (1.0, "1.0"),
        (-0.0, "-0.0"),
        (1e16, "1e16"),
        (1e15, "1000000000000000.0"),
        (0.00001, "0.00001"),
        (1e-7, "1e-7"),
        (2**64, "1.8446744073709552e19"),
        (2**64 - 1, "18446744073709551615"),
        (-(2**63) - 1, "-9.223372036854776e18"),
    ],
)
def test_builder_number_text(value: int | float, text: str) -> None:
    assert spec.number_text(value) == text


def test_builder_wire_bound() -> None:
    assert spec.bound_wire("a" + "\u00e9" * 100) == "a" + "\u00e9" * 63
    assert len(spec.bound_wire("\U0001f600" * 40).encode()) == 128
    assert spec.bound_wire("ab" + "\U0001f600" * 40) == "ab" + "\U0001f600" * 31
