"""Counterexamples as PROTOCOL.md vectors: valid vector files, passed by the reference
implementation, and each one answered differently by the variant that produced it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from session_toolset_model.enumerate import SCHEMAS, Action, insert, new_set, upsert
from session_toolset_model.profiles import DEFAULT, Variant
from session_toolset_model.world.digest import schema_digest
from session_toolset_proofs.cli import main
from session_toolset_proofs.mutants import MUTANTS
from session_toolset_proofs.obligations import EXPECTED_PROFILE_REFUTATIONS, OBLIGATIONS
from session_toolset_proofs.report import Report, counterexample_vectors, report_variants
from session_toolset_proofs.vectors import World, replay, vector, write

from session_toolset.adapter import World as AdapterWorld
from session_toolset.adapter import handle_line
from session_toolset_harness.conform.matcher import first_difference
from session_toolset_harness.conform.validate import validate_all
from session_toolset_harness.conform.vectors import discover

pytestmark = pytest.mark.spec("6")

Emitted = tuple[Path, list[dict[str, Any]], list[Variant]]


@pytest.fixture(scope="module")
def emitted(all_profiles_report: Report, tmp_path_factory: pytest.TempPathFactory) -> Emitted:
    docs = counterexample_vectors(all_profiles_report)
    directory = tmp_path_factory.mktemp("model-cex")
    write(docs, directory)
    return directory, docs, report_variants(all_profiles_report)


def _reference_replies(doc: dict[str, Any]) -> list[Any]:
    world = AdapterWorld()
    return [handle_line(world, json.dumps(step["send"]).encode()) for step in doc["steps"]]


def test_one_vector_per_counterexample(emitted: Emitted) -> None:
    directory, docs, _ = emitted
    # the Z3 interpretation's own mutants leave the concrete oracle unchanged: no vector
    concrete = [ob for ob in OBLIGATIONS if ob.kind != "interpretation"]
    mutant_refutations = sum(len(ob.refuted_by) for ob in concrete)
    profile_refutations = sum(len(v) for v in EXPECTED_PROFILE_REFUTATIONS.values())
    assert len(docs) == mutant_refutations + profile_refutations
    files = sorted(p.name for p in directory.glob("*.json"))
    assert files == sorted(d["id"].split("/", 1)[1] + ".json" for d in docs)
    z3_only = {m for m in MUTANTS if m.startswith("z3_")}
    variants = {d["id"].split("--", 1)[1] for d in docs}
    assert variants == set(MUTANTS) - z3_only | set(EXPECTED_PROFILE_REFUTATIONS)


def test_profile_refutations_are_among_the_vectors(emitted: Emitted) -> None:
    ids = {d["id"] for d in emitted[1]}
    assert "model-cex/gate.soundness--per-tool-digest" in ids
    assert "model-cex/gate.exactness--generation-strict" in ids


def test_every_vector_is_valid(emitted: Emitted) -> None:
    verdicts = validate_all(discover([emitted[0]]))
    assert len(verdicts) == len(emitted[1])
    assert all(v.valid for v in verdicts), [(v.path, v.problems) for v in verdicts if not v.valid]


def test_every_vector_starts_hello_reset_and_observes(emitted: Emitted) -> None:
    for doc in emitted[1]:
        ops = [s["send"]["op"] for s in doc["steps"]]
        assert ops[:2] == ["hello", "reset"]
        assert "catalog_state" in ops and "snapshot" in ops and "factory_calls" in ops
        assert "model-cex" in doc["tags"]
        assert all("message" not in s["expect"] for s in doc["steps"])


def test_the_reference_implementation_passes_every_vector(emitted: Emitted) -> None:
    failures = []
    for doc in emitted[1]:
        for step, reply in zip(doc["steps"], _reference_replies(doc), strict=True):
            diff = first_difference(step["expect"], reply)
            if diff is not None:
                failures.append((doc["id"], step["send"], diff))
                break
    assert not failures, failures[:3]


def test_each_vector_discriminates_the_variant_that_produced_it(emitted: Emitted) -> None:
    _, docs, variants = emitted
    blind = [d["id"] for d, v in zip(docs, variants, strict=True) if not replay(d, v)]
    assert not blind
    # the default profile's own oracle meets every expectation (they come from it)
    assert all(replay(d, DEFAULT) == [] for d in docs)


def test_replay_against_the_variant_sees_the_refutation_itself() -> None:
    """The coherent imposter: per-tool-digest authorizes what SPEC.md denies."""
    trace = [insert("mcp.srv-a:t0", "d0", "trusted"), new_set("A", "s-1", ("mcp.srv-a:t0",))]
    trace.append(upsert("mcp.srv-a:t0", "mcp.srv-a:t0", "d0", "imposter"))
    final = Action.of("authorize", name="A", tool="mcp.srv-a:t0")
    doc = vector("gate.soundness", Variant("per-tool-digest"), trace, final)
    (auth,) = [i for i, s in enumerate(doc["steps"]) if s["send"]["op"] == "authorize"]
    assert (
        doc["steps"][auth]["expect"]["error"] == "ToolAuthorizationError.SourceProvenanceMismatch"
    )
    assert auth in replay(doc, Variant("per-tool-digest"))


@pytest.mark.parametrize(
    "value",
    [*SCHEMAS.values(), None, True, False, -7, 0, "", "ü", [1, [2, []]], {"b": {}, "a": [None]}],
)
def test_schema_digest_matches_the_reference(value: Any) -> None:
    reply = handle_line(AdapterWorld(), json.dumps({"op": "digest", "schema": value}).encode())
    assert reply["ok"] is True and reply["digest"] == schema_digest(value)


def test_world_answers_an_unknown_grant_or_set_as_protocol() -> None:
    w = World()
    assert w.handle({"op": "snapshot", "set": "A"}) == {"ok": False, "error": "Protocol"}
    assert w.handle({"op": "activate", "set": "A", "grant": "g1"})["error"] == "Protocol"


def test_cli_emits_vectors_for_a_pattern(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, report = tmp_path / "v", tmp_path / "r.json"
    argv = ["--all-profiles", "-k", "gate.soundness", "--emit-vectors", str(out)]
    assert main([*argv, "--json", str(report)]) == 0
    rows = json.loads(report.read_text())["rows"]
    assert sorted(r["vector"] for r in rows if "vector" in r) == [
        f"model-cex/{p.stem}" for p in sorted(out.glob("*.json"))
    ]
    names = sorted(p.name for p in out.glob("*.json"))
    assert names == [
        "gate.soundness--gate_ignores_digest.json",
        "gate.soundness--gate_ignores_trust.json",
        "gate.soundness--per-tool-digest.json",
    ]
    assert "3 counterexample vectors written" in capsys.readouterr().out


def test_packaged_counterexample_vectors_are_up_to_date(tmp_path: Path) -> None:
    """The corpus ships the counterexample vectors (``vectors/model-cex/``) so every
    implementation replays them; they must be exactly what ``prove`` emits today.  Regenerate
    with ``session-toolset prove --all-profiles --emit-vectors
    src/session_toolset_harness/vectors/model-cex`` after a model or proof change.

    The emission runs in a fresh process, as a user runs it: Z3's term table is global to a
    process, so which concrete candidate a cheap confirmation accepts first may depend on the
    terms earlier tests built; a fresh ``prove`` process is reproducible run to run.
    """
    import subprocess
    import sys
    from importlib.resources import files

    out = tmp_path / "model-cex"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "session_toolset_harness.cli",
            "prove",
            "--all-profiles",
            "--quiet",
            "--emit-vectors",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    packaged = files("session_toolset_harness") / "vectors" / "model-cex"
    fresh = {p.name: p.read_bytes() for p in sorted(out.glob("*.json"))}
    shipped = {
        node.name: node.read_bytes() for node in packaged.iterdir() if node.name.endswith(".json")
    }
    assert sorted(shipped) == sorted(fresh), "packaged model-cex vectors differ in file names"
    stale = [name for name in fresh if fresh[name] != shipped[name]]
    assert stale == [], f"packaged model-cex vectors out of date: {stale[:5]}"
