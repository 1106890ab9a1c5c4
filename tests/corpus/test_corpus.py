"""The hand-written vector corpus: each file is a compact vector in the canonical layout that
expands, every vector passes against the reference adapter, and every reachable error code and
every PROTOCOL.md op is exercised."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from corpus.replay import Handle, run_all, run_vector
from session_toolset import errors
from session_toolset.adapter import World, handle_line
from session_toolset.adapter.ops import HANDLERS
from session_toolset_harness.conform import codes, compact
from session_toolset_harness.conform.checks import op_of
from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.conform.schemas import request_ops
from session_toolset_harness.conform.vectors import documents as vector_documents
from session_toolset_harness.conform.vectors import read_send
from session_toolset_harness.corpus import build, derived
from session_toolset_harness.corpus.__main__ import main as corpus_main
from session_toolset_harness.corpus.build import (
    DEFAULT_OUT,
    FOREIGN_DIRS,
    SETUPS,
    check,
    hand_written,
    render,
)

pytestmark = pytest.mark.spec("all")

Obj = dict[str, Any]


def reference_handle() -> Handle:
    world = World()

    def handle(line: bytes) -> Obj:
        return handle_line(world, line)

    return handle


def compact_documents() -> list[Obj]:
    """The hand-written vectors as written (compact)."""
    return [json.loads(p.read_text(encoding="utf-8")) for p in hand_written()]


def documents() -> list[Obj]:
    """The hand-written vectors, expanded."""
    return [compact.expand(d) for d in compact_documents()]


def all_documents() -> list[Obj]:
    """Everything the runner runs from the packaged corpus, expanded."""
    return vector_documents(DEFAULT_OUT)


# --- (a) the files are compact vectors in the canonical layout ------------------------------------


def test_files_are_canonical_compact_vectors() -> None:
    assert check() == []
    assert corpus_main(["check"]) == 0


def _copy(tmp_path: Path) -> Path:
    """A copy of the hand-written vectors and the builder's derived groups."""
    out = tmp_path / "vectors"
    owned = [p for group in derived.GROUPS for p in (DEFAULT_OUT / group).rglob("*.json")]
    for path in [*hand_written(), *owned]:
        target = out / path.relative_to(DEFAULT_OUT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return out


def test_check_notices_each_kind_of_problem_and_build_fixes_the_layout(tmp_path: Path) -> None:
    out = _copy(tmp_path)
    assert check(out) == []
    target = out / "gate" / "coherent-imposter.json"
    document = json.loads(target.read_text(encoding="utf-8"))
    target.write_text(json.dumps(document), encoding="utf-8")  # one line: not the layout
    assert check(out) == ["not in the canonical layout: gate/coherent-imposter.json"]
    assert corpus_main(["check", "--out", str(out)]) == 1
    assert corpus_main(["build", "--out", str(out)]) == 0
    assert check(out) == []
    assert target.read_text(encoding="utf-8") == render(document)
    typo = dict(document, steps=[{**document["steps"][0], "expekt": {"ok": True}}])
    target.write_text(json.dumps(typo), encoding="utf-8")
    assert corpus_main(["build", "--out", str(out)]) == 0  # lays it out, loses nothing
    assert json.loads(target.read_text(encoding="utf-8")) == typo
    assert check(out) == ["unknown keys: gate/coherent-imposter.json"]
    target.write_text(render(document), encoding="utf-8")
    unknown = dict(document, setup=["standard-catalog", "no-such-setup"])
    (out / "gate" / "unknown-setup.json").write_text(render(unknown), encoding="utf-8")
    (out / "gate" / "expanded.json").write_text(compact.render_expanded(compact.expand(document)))
    (out / "gate" / "broken.json").write_text("{", encoding="utf-8")
    problems = check(out)
    assert problems[0].startswith("unreadable: gate/broken.json")
    assert problems[1:] == [
        "not a compact vector (no setup): gate/expanded.json",
        "id 'gate/coherent-imposter' does not match the path: gate/unknown-setup.json",
        "does not expand: gate/unknown-setup.json: $.setup[1]: unknown setup "
        "'no-such-setup' (known: " + ", ".join(compact.setups()) + ")",
    ]


def test_check_reads_every_setup_step_like_a_vector_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    setups = json.loads(SETUPS.read_text(encoding="utf-8"))
    setups["set-h"]["steps"].append({"send": {"op": "tool_id_parse"}, "expect": {"ok": True}})
    setups["populated"]["steps"].append({"send": {"op": "hello", "x": {"$repeat": "a"}}})
    last = len(setups["populated"]["steps"]) - 1
    copy = tmp_path / "setups.json"
    copy.write_text(json.dumps(setups), encoding="utf-8")
    monkeypatch.setattr(build, "SETUPS", copy)
    assert check() == [
        "not in the canonical layout: setups.json",
        "setups.json: setup 'set-h': $.steps[1].send: 'raw' is a required property",
        f"setups.json: setup 'populated': $.steps[{last}].send.x: write "
        '{"$repeat": TEXT, "times": N} or {"$concat": [PART, ...]} '
        "(a request holding such an object literally needs send_line)",
    ]
    copy.write_text('{"set-h": {"steps": []}}', encoding="utf-8")
    assert check() == [
        'setups.json: each setup must be {"description": TEXT, "steps": [STEP, ...]}'
    ]


def test_layout_is_one_step_per_line() -> None:
    text = (DEFAULT_OUT / "gate" / "digest-drift.json").read_text(encoding="utf-8")
    document = json.loads(text)
    step_lines = [line for line in text.splitlines() if line.startswith("    {")]
    assert len(step_lines) == len(document["steps"])
    assert list(document) == ["protocol", "id", "description", "tags", "setup", "steps"]


def test_every_setup_is_used_and_named_as_the_schema_allows() -> None:
    used = {
        name
        for d in compact_documents()
        for name in ([d["setup"]] if isinstance(d["setup"], str) else d["setup"])
    }
    assert used == set(compact.setups())
    assert all(re.fullmatch(r"[a-z0-9][a-z0-9-]*", name) for name in used)


def test_expand_writes_what_the_runner_runs(tmp_path: Path) -> None:
    out = tmp_path / "expanded"
    assert corpus_main(["expand", str(out)]) == 0
    expanded = vector_documents(out)
    assert expanded == all_documents()
    for path in hand_written(out):
        document = json.loads(path.read_text(encoding="utf-8"))
        assert "setup" not in document
        assert path.read_text(encoding="utf-8") == compact.render_expanded(document)
    for directory in FOREIGN_DIRS:  # derived vectors are already expanded: copied byte for byte
        for path in (DEFAULT_OUT / directory).rglob("*.json"):
            assert (out / path.relative_to(DEFAULT_OUT)).read_bytes() == path.read_bytes()
    expanded_gate = [str(out / "gate"), str(out / "hostile")]  # the expanded form validates
    assert conform_main(["--validate", "--quiet", "--vectors", *expanded_gate]) == 0


def test_corpus_commands_refuse_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert corpus_main(["check", "--out", str(tmp_path / "nope")]) == 2
    assert corpus_main(["expand", str(tmp_path / "o"), "--from", str(tmp_path / "nope")]) == 2
    bad = tmp_path / "bad" / "g"
    bad.mkdir(parents=True)
    (bad / "v.json").write_text(
        json.dumps({"protocol": 1, "id": "g/v", "description": "", "tags": [], "setup": "x"})
    )
    assert corpus_main(["expand", str(tmp_path / "o"), "--from", str(bad.parent)]) == 2
    err = capsys.readouterr().err
    assert "python -m session_toolset_harness.corpus expand: error: " in err
    assert "unknown setup 'x'" in err


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
    assert len(docs) == len(hand_written()) > 100
    for doc, path in zip(docs, hand_written(), strict=True):
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
    doc = documents()[0]

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
    assert set(codes.KNOWN_CODES) == _implementation_codes()


def test_every_reachable_code_is_hit() -> None:
    _, hit = _hits()
    missing = [c for c in codes.REACHABLE_CODES if c not in hit]
    assert missing == []
    assert not hit & set(codes.UNREACHABLE)
    assert hit <= set(codes.KNOWN_CODES)


def test_every_op_is_sent() -> None:
    sent, _ = _hits()
    assert set(request_ops()) == set(HANDLERS)
    assert set(request_ops()) <= sent


def test_runner_sees_full_coverage(capsys: pytest.CaptureFixture[str]) -> None:
    status = conform_main(["--require-full-coverage", "--quiet", "--vectors", str(DEFAULT_OUT)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "known reachable codes at zero: 0 of" in out
