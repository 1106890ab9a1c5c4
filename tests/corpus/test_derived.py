"""The derived vectors: the model vectors come from the shared bounded enumerator and reach every
(operation, outcome) pair the model can produce; every case of the finite edge families is a
fixed vector, passed by the reference implementation, and each family's vectors catch a fault
only its cases show."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from session_toolset_model.enumerate import trace_requests
from session_toolset_model.reachability import UNREACHABLE

from session_toolset import errors, json_value, registry
from session_toolset.adapter import World as AdapterWorld
from session_toolset.adapter import fields, handle_line, server
from session_toolset_harness.conform.checks import reply_problem
from session_toolset_harness.conform.jsonio import RawLine
from session_toolset_harness.conform.matcher import first_difference
from session_toolset_harness.corpus import coverage, derived, edge_families
from session_toolset_harness.independent import corpus_dir

pytestmark = pytest.mark.spec("1.4", "2", "3", "4", "5")

FAMILIES = ("raw lines", "lexical", "wire names", "long runtime names", "record fields")


def _line(step: dict[str, Any]) -> bytes:
    if "send_line" in step:
        return str(step["send_line"]).encode("utf-8")
    if "send_hex" in step:
        return bytes.fromhex(str(step["send_hex"]))
    return json.dumps(step["send"]).encode("utf-8")


def failing(group: str, prefix: str = "") -> list[str]:
    """The vectors of ``group`` (file names starting with ``prefix``) the in-process reference
    answers differently (a reply that differs, breaks the reply rules, or raises)."""
    out = []
    for path in sorted((corpus_dir() / group).glob(f"{prefix}*.json")):
        world = AdapterWorld()
        for step in json.loads(path.read_text(encoding="utf-8"))["steps"]:
            try:
                reply = json.loads(json.dumps(handle_line(world, _line(step))))  # as sent
            except Exception:  # a fault that raises is a failure too
                out.append(path.stem)
                break
            if first_difference(step["expect"], reply) or reply_problem(reply):
                out.append(path.stem)
                break
    return out


def test_the_reference_passes_every_derived_vector() -> None:
    assert failing("model") == []
    assert failing("edge-families") == []


def test_the_enumerator_reaches_exactly_the_model_pairs() -> None:
    """Every pair the reviewed table does not list is reached by a shortest trace, and the
    trace really ends in it (replayed through the protocol)."""
    found = derived.witnesses()
    assert set(found) == coverage.model_pairs()
    assert not set(found) & set(UNREACHABLE)
    for (op, code), trace in found.items():
        assert derived.reached(trace)[0][-1] == f"{op}:{code}"
        assert trace_requests(trace)[-1]["op"] == op


def test_the_model_vectors_reach_every_model_pair() -> None:
    cov = coverage.measure(corpus_dir() / "model")
    assert coverage.model_pairs() <= cov.pairs


def test_every_case_of_every_family_is_in_a_vector_once() -> None:
    sent: list[bytes] = []
    for path in sorted((corpus_dir() / "edge-families").glob("*.json")):
        steps = json.loads(path.read_text(encoding="utf-8"))["steps"]
        sent += [_line(s) for s in steps[2:-1]]  # hello, reset ... catalog_state
    cases = [c for family in edge_families.families().values() for c in family]
    expected = [c.data if isinstance(c, RawLine) else json.dumps(c).encode() for c in cases]
    assert sorted(sent) == sorted(expected)  # each case once (the families hold no repeats)


def test_the_families_hold_the_cases_the_module_names() -> None:
    families = edge_families.families()
    assert tuple(families) == FAMILIES
    wire = {r["wire_name"] for r in families["wire names"] if isinstance(r, dict)}
    # every control run length with every tail: the cut lands at each byte of a wide character
    assert len(wire) >= 3 * 4 * 20
    lexical = [r.data for r in families["lexical"] if isinstance(r, RawLine)]
    assert any(b'\\ud800\\ue000","k0":0}' in line for line in lexical)  # discarded near miss
    assert any(b"\\udBfF" in line for line in lexical)  # mixed-case hex
    record = families["record fields"]
    assert {(r.get("op"), "summary" in r) for r in record if isinstance(r, dict)} == {
        ("catalog_insert", True),
        ("catalog_insert", False),
        ("catalog_upsert", True),
        ("catalog_upsert", False),
    }


def _strict_bound(text: str) -> str:  # the fault: the 512-byte cut decoded strictly
    raw = text.encode("utf-8", "surrogatepass")
    return text if len(raw) <= 512 else raw[:512].decode("utf-8")


Parse = Callable[[str | bytes], json_value.JsonValue]


def _accept_invalid_utf8(original: Parse) -> Parse:
    def parse(text: str | bytes) -> json_value.JsonValue:  # the fault: bytes decoded leniently
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        return original(text)

    return parse


def _unchecked_negative_max(literal: str) -> float:  # the fault: the range check's abs() lost
    value = float(literal)
    if math.isinf(value) or (value == sys.float_info.max and Decimal(literal) > Decimal(value)):
        raise json_value.JsonInputError("number out of range")
    return value


def _fault(family: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fault that, of the families, only ``family``'s cases show."""
    if family == "raw lines":  # bytes that are not UTF-8 accepted
        monkeypatch.setattr(server, "parse_json", _accept_invalid_utf8(json_value.parse_json))
    elif family == "lexical":  # -1.7976931348623158e308 (beyond the range) accepted
        monkeypatch.setattr(json_value, "_checked_float", _unchecked_negative_max)
    elif family == "wire names":
        monkeypatch.setattr(errors, "_bounded", _strict_bound)
    elif family == "long runtime names":  # a resolved call's wire name echoed unbounded
        monkeypatch.setattr(registry.ResolvedToolCall, "__post_init__", lambda self: None)
    else:  # a record's tags never read: a faulty tags field accepted
        original = fields.Request.optional_strings

        def no_tags(self: fields.Request, name: str) -> list[str]:
            return [] if name == "tags" else original(self, name)

        monkeypatch.setattr(fields.Request, "optional_strings", no_tags)


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_finds_a_fault_only_its_cases_show(
    family: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fault(family, monkeypatch)
    slug = family.replace(" ", "-")
    caught = failing("edge-families")
    assert caught and all(name.startswith(slug) for name in caught), caught


def test_a_fault_only_upper_case_hex_shows_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """An escape whose first hex digit is a capital letter (``\\uD800``) not read as one: in a
    value a repeated key discards, nothing else sees the lone surrogate."""
    first_lower = re.compile(r"\\(?:u([0-9a-f][0-9a-fA-F]{3})|.)", re.DOTALL)
    monkeypatch.setattr(json_value, "_ESCAPE_RE", first_lower)
    caught = failing("edge-families", "lexical")
    assert caught


REPLACED = Path(__file__).with_name("replaced_vectors.json")
"""Every packaged vector the derived ones replaced (the model golden vectors of the previous
search): its id, the (op:outcome) labels its description said it reached, and the vectors of
the corpus that reach them now."""


def test_every_replaced_vector_is_covered_by_its_replacements() -> None:
    table = json.loads(REPLACED.read_text(encoding="utf-8"))
    assert table, "the list of replaced vectors is empty"
    for old, entry in table.items():
        assert entry["by"], old  # (the new model vectors reuse the ids: numbered in order)
        reached: set[str] = set()
        for new in entry["by"]:
            cov = coverage.measure_file(corpus_dir() / f"{new}.json")
            reached |= {f"{op}:{code}" for op, code in cov.pairs}
        assert set(entry["reaches"]) <= reached, (old, set(entry["reaches"]) - reached)
