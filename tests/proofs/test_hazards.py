"""Hazards: each checked as expected, its SPEC.md sentence real, its trace minimal, its vector
packaged, fresh and passed by the reference implementation through `conform`; and the checks
themselves fail when the Z3 query, the mutant or the expectation is wrong."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import replace
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
import z3  # type: ignore[import-untyped]
from session_toolset_model.enumerate import ALG
from session_toolset_model.profiles import DEFAULT, Variant
from session_toolset_model.state import initial
from session_toolset_proofs.cli import main as prove_main
from session_toolset_proofs.hazards import (
    HAZARDS,
    Hazard,
    Result,
    check_all,
    check_hazard,
    under_profiles,
)
from session_toolset_proofs.hazards.changes import sweep
from session_toolset_proofs.hazards.report import OUTSIDE_THE_MODEL, changes_vector
from session_toolset_proofs.hazards.search import alphabet, run
from session_toolset_proofs.hazards.vectors import hazard_vectors
from session_toolset_proofs.mutants import variant as mutant_variant
from session_toolset_proofs.obligations import Query, step
from session_toolset_proofs.vectors import replay

from session_toolset_harness.conform.cli import main as conform_main

pytestmark = pytest.mark.spec("1.5", "3", "4", "5", "6.drift-denial", "6.counters")

REPO = Path(__file__).resolve().parents[2]
SPEC = (REPO / "docs" / "spec" / "SPEC.md").read_text(encoding="utf-8")
PACKAGED = files("session_toolset_harness") / "vectors" / "hazards"


@pytest.fixture(scope="module")
def results() -> list[Result]:
    return check_all()


def _by_name(results: list[Result], name: str) -> Result:
    return next(r for r in results if r.hazard.name == name)


def test_every_hazard_is_refuted_or_proved_as_expected(results: list[Result]) -> None:
    assert [(r.hazard.name, r.result) for r in results if not r.passed] == []
    assert {r.result for r in results} == {"refuted", "proved"}
    assert len({h.name for h in HAZARDS}) == len(HAZARDS)


def test_the_first_set_from_the_issue_is_covered(results: list[Result]) -> None:
    """The six questions first asked of SPEC.md, each with the answer the model gives."""
    expected = {
        "activation.admitted_then_denied": "refuted",
        "core.default_admits_denied": "refuted",
        "core.progressive_admits_denied": "refuted",
        "activation.survives_reinsertion": "refuted",
        "route.hands_out_stale": "refuted",
        "wire.alias_reassigned": "refuted",
        "grant.refused_after_catalog_change": "proved",
    }
    assert {n: _by_name(results, n).result for n in expected} == expected


def _normalised(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _section_text(key: str) -> str:
    """The text of SPEC.md section ``key`` (``3``, ``1.5``), up to the next heading of the same
    or a higher level."""
    level = "##" if "." not in key else "###"
    start = re.search(rf"^{level} {re.escape(key)}[. ]", SPEC, re.M)
    assert start is not None, key
    rest = SPEC[start.end() :]
    stop = re.search(r"^##? " if level == "##" else r"^##", rest, re.M)
    return rest if stop is None else rest[: stop.start()]


@pytest.mark.parametrize("hazard", HAZARDS, ids=lambda h: h.name)
def test_the_responsible_sentence_is_in_its_spec_section(hazard: Hazard) -> None:
    assert _normalised(hazard.spec) in _normalised(_section_text(hazard.section))
    assert hazard.verdict in ("intended", "open question")
    assert hazard.expect in ("refuted", "proved")


def test_docs_for_spec_authors_list_every_hazard_with_its_verdict() -> None:
    doc = (REPO / "docs" / "spec-authors.md").read_text(encoding="utf-8")
    for h in HAZARDS:
        assert f"| `{h.name}` | {h.section} | {h.verdict} |" in doc, h.name


def test_refuted_hazards_are_confirmed_in_z3_unless_declared_concrete(
    results: list[Result],
) -> None:
    for r in results:
        if r.hazard.expect == "refuted":
            expected = "none (concrete only)" if r.hazard.query is None else "sat (pinned)"
            assert r.z3 == expected, r.hazard.name
    concrete = {r.hazard.name for r in results if r.hazard.query is None}
    assert concrete == {
        "core.progressive_admits_foreign_source",
        "gate.source_swap_within_provenance",
        "wire.alias_reassigned",
    }


def _violating_prefix_exists(h: Hazard, length: int) -> bool:
    """Exhaustive (no deduplication, no breadth-first order): does any prefix of exactly
    ``length`` successful alphabet actions reach a state whose probe violates?"""

    def walk(st: Any, depth: int) -> bool:
        if depth == 0:
            for final in h.probe(st, h.domain):
                steps = run(DEFAULT, st, final)
                if steps is not None and h.violates(steps):
                    return True
            return False
        for act in alphabet(st, h.domain):
            steps = run(DEFAULT, st, [act])
            if (
                steps is not None
                and steps[0].result.code == "ok"
                and walk(steps[0].result.state, depth - 1)
            ):
                return True
        return False

    return walk(initial(ALG), length)


@pytest.mark.parametrize(
    "name",
    [
        "core.default_admits_denied",
        "route.hands_out_stale",
        "counters.core_change_keeps_schema_generation",
        "activation.admitted_then_denied",
    ],
)
def test_traces_are_minimal_by_exhaustive_enumeration(results: list[Result], name: str) -> None:
    """An independent check of the breadth-first claim on the short traces: no shorter prefix
    violates, and the found prefix length does."""
    r = _by_name(results, name)
    assert r.trace is not None
    k = len(r.trace.prefix)
    assert all(not _violating_prefix_exists(r.hazard, n) for n in range(k))
    assert _violating_prefix_exists(r.hazard, k)


def test_a_query_that_disagrees_with_the_trace_is_unconfirmed() -> None:
    route = next(h for h in HAZARDS if h.name == "route.hands_out_stale")

    def always_true(v: Variant) -> Query:
        s = step("route", v, "x")
        return Query(s.alg, s.premises, z3.BoolVal(True), [], {}, [s])

    assert check_hazard(replace(route, query=always_true)).result == "unconfirmed"


def test_a_proved_hazard_needs_its_mutant_to_refute_it() -> None:
    proved = next(h for h in HAZARDS if h.expect == "proved")
    assert check_hazard(proved).result == "proved"
    assert check_hazard(replace(proved, mutant="revoke_decrements")).result == "mutant survives"


def test_a_hazard_expected_proved_that_is_refuted_fails() -> None:
    route = next(h for h in HAZARDS if h.name == "route.hands_out_stale")
    checked = check_hazard(replace(route, expect="proved", mutant="stale_off_by_one"))
    assert checked.result == "refuted" and not checked.passed


def test_packaged_hazard_vectors_are_up_to_date(results: list[Result]) -> None:
    """Regenerate with ``session-toolset prove --hazards --emit-hazard-vectors
    src/session_toolset_harness/vectors/hazards`` after a model or hazard change.

    In process (unlike the model-cex freshness test): a hazard's trace comes from the concrete
    breadth-first search alone, so no Z3 state of the process can change which trace is found;
    Z3 only confirms it."""
    fresh = {
        d["id"].split("/", 1)[1] + ".json": json.dumps(d, indent=1) + "\n"
        for d in hazard_vectors(results)
    }
    shipped = {
        n.name: n.read_text(encoding="utf-8")
        for n in PACKAGED.iterdir()
        if n.name.endswith(".json")
    }
    assert sorted(shipped) == sorted(fresh)
    assert [n for n in fresh if fresh[n] != shipped[n]] == []


def test_the_reference_passes_every_hazard_vector_through_conform(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    assert (
        conform_main(["--vectors", str(PACKAGED), "--strict-replies", "--json", str(report)]) == 0
    )
    doc = json.loads(report.read_text())
    assert doc["counts"]["passed"] == len(HAZARDS)


def test_every_expectation_comes_from_the_default_oracle_and_the_witness_discriminates(
    results: list[Result],
) -> None:
    docs = hazard_vectors(results)
    # the wire and source-swap vectors hold steps and sources outside the oracle's World
    model_docs = [d for d in docs if d["id"].split("/", 1)[1] not in OUTSIDE_THE_MODEL]
    assert len(model_docs) == len(docs) - 2
    assert all(replay(d, DEFAULT) == [] for d in model_docs)
    proved = [r for r in results if r.hazard.expect == "proved"]
    for r in proved:
        (doc,) = [d for d in docs if d["id"] == f"hazards/{r.hazard.name}"]
        assert r.hazard.mutant is not None  # a proved hazard names the mutant refuting it
        assert replay(doc, mutant_variant(r.hazard.mutant)) != []


def test_the_wire_vector_calls_through_the_reassigned_alias(results: list[Result]) -> None:
    (doc,) = [d for d in hazard_vectors(results) if d["id"] == "hazards/wire.alias_reassigned"]
    wire = [s for s in doc["steps"] if s["send"]["op"] in ("resolve", "authorize_wire")]
    names = {s["send"]["wire_name"] for s in wire}
    tools = [s["expect"]["tool"] for s in wire]
    assert len(names) == 1 and tools[0] == tools[1] != tools[2] == tools[3]
    assert all(s["expect"]["ok"] is True for s in wire)


def test_the_source_swap_vector_changes_only_the_server_tool_name(results: list[Result]) -> None:
    name = "gate.source_swap_within_provenance"
    (doc,) = [d for d in hazard_vectors(results) if d["id"] == f"hazards/{name}"]
    inserts = [s["send"] for s in doc["steps"] if s["send"]["op"] == "catalog_insert"]
    (swap,) = [s["send"] for s in doc["steps"] if s["send"]["op"] == "catalog_upsert"]
    assert swap["source"] == {**inserts[0]["source"], "server_tool_name": "t0-swapped"}
    assert swap["provenance"] == inserts[0]["provenance"] and swap["schema"] == inserts[0]["schema"]
    (call,) = [s for s in doc["steps"] if s["send"]["op"] == "authorize"]
    assert call["expect"]["ok"] is True
    (state,) = [s for s in doc["steps"] if s["send"]["op"] == "catalog_state"]
    assert state["expect"]["records"][0]["source"]["server_tool_name"] == "t0-swapped"


def test_the_catalog_change_sweep_shows_the_exactness_and_drift_rules() -> None:
    rows = {r.change: r for r in sweep()}
    assert rows["insert an unrelated tool"].activated == "authorized"
    assert rows["upsert: coherent imposter"].activated == "SourceProvenanceMismatch"
    assert rows["remove"].core == "NotCataloged"
    assert rows["upsert: coherent imposter"].default == "now core, authorized"
    assert all(r.stale for r in rows.values())


def test_cli_prints_hazards_and_puts_them_in_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, report = tmp_path / "hv", tmp_path / "r.json"
    argv = ["-k", "invariant.init", "--all-profiles", "--hazards", "--json", str(report)]
    assert prove_main([*argv, "--emit-hazard-vectors", str(out)]) == 0
    text = capsys.readouterr().out
    assert "hazards under the other profiles" in text
    assert f"hazards: {len(HAZARDS)} checked, {len(HAZARDS)} as expected" in text
    assert "wire.alias_reassigned: refuted, 6 ops; open question" in text
    doc = json.loads(report.read_text())
    assert doc["verdict"] == "pass"
    assert [h["name"] for h in doc["hazards"]["rows"]] == [h.name for h in HAZARDS]
    strict = doc["hazards"]["profiles"]["gate.stale_set_authorized"]["generation-strict"]
    assert strict["result"] == "proved" and strict["vector_changes"] is True
    assert len(list(out.glob("*.json"))) == len(HAZARDS)


def test_cli_unwritable_hazard_vector_dir_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    argv = ["-k", "invariant.init", "--emit-hazard-vectors", str(blocker / "sub")]
    assert prove_main(argv) == 2
    assert "cannot write --emit-hazard-vectors" in capsys.readouterr().err


def test_generation_strict_closes_two_hazards_and_changes_their_vectors(
    results: list[Result],
) -> None:
    """The worked example of docs/spec-authors.md: the generation-strict drift rule makes two
    expectations hold (proved under it; the default's confirmed trace refutes them) and an
    implementation following it would fail those two hazard vectors."""
    matrix = under_profiles(["per-tool-digest", "generation-strict"])
    differs = {
        (name, u.profile)
        for name, row in matrix.items()
        for u in row
        if u.result != _by_name(results, name).result
    }
    assert differs == {
        ("activation.survives_reinsertion", "generation-strict"),
        ("gate.stale_set_authorized", "generation-strict"),
    }
    assert all(u.sound for row in matrix.values() for u in row)
    for name, _ in differs:
        strict = matrix[name][1]
        assert strict.result == "proved" and strict.z3 == "unsat; premises sat"
        assert changes_vector(_by_name(results, name), strict) is True
    assert (
        changes_vector(
            _by_name(results, "route.hands_out_stale"), matrix["route.hands_out_stale"][1]
        )
        is False
    )


def test_minimal_lengths_are_what_the_report_claims(results: list[Result]) -> None:
    """Pinned figures (they change only with the model or the domain)."""
    lengths = {r.hazard.name: r.trace.length for r in results if r.trace is not None}
    assert lengths["core.default_admits_denied"] == 3
    assert lengths["activation.survives_reinsertion"] == 6
    assert lengths["wire.alias_reassigned"] == 6
    assert all(n >= 1 for n in itertools.chain(lengths.values()))


SEAM_VECTOR = "protocol/set-generation-seam-revives-a-stale-grant"


def test_the_proved_grant_hazard_says_it_holds_only_without_the_set_generation_seam() -> None:
    """The proof covers SPEC.md's operations; the model has no catalog_set_generation, which
    PROTOCOL.md's reference honours: its verdict says so and names the vector pinning that."""
    (hazard,) = [h for h in HAZARDS if h.name == "grant.refused_after_catalog_change"]
    assert hazard.expect == "proved"
    assert "with SPEC.md's operations" in hazard.expectation
    assert "catalog_set_generation" in hazard.why and SEAM_VECTOR in hazard.why
    doc = (REPO / "docs" / "spec-authors.md").read_text(encoding="utf-8")
    (row,) = [line for line in doc.splitlines() if line.startswith(f"| `{hazard.name}`")]
    assert "catalog_set_generation" in row and SEAM_VECTOR in row
    vector = json.loads(
        (REPO / "src" / "session_toolset_harness" / "vectors" / f"{SEAM_VECTOR}.json").read_text(
            encoding="utf-8"
        )
    )
    ops = [s["send"]["op"] for s in vector["steps"]]
    rewind = ops.index("catalog_set_generation")
    stale, revived = [i for i, op in enumerate(ops) if op == "activate"]
    assert stale < rewind < revived
    assert vector["steps"][stale]["expect"]["error"] == "ActivationError.StaleGeneration"
    assert vector["steps"][revived]["expect"] == {"ok": True}
    assert conform_main(["--quiet", "-k", SEAM_VECTOR]) == 0
