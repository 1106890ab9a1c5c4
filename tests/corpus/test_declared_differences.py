"""SPEC.md 1.4 declared differences: a vector whose expectation depends on a number literal the
original's JSON parser mishandles carries the tag ``declared-difference`` — and no other vector
does, so ``conform --exclude-tag declared-difference`` sets aside exactly those.

"Mishandles" is decided by :mod:`session_toolset_harness.declared_difference`, a description of
the original's number reader that is checked here first against everything the original recorded
(reference/digest.json).
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from session_toolset_model.world.digest import schema_digest

from session_toolset.json_value import parse_json
from session_toolset_harness import declared_difference as declared
from session_toolset_harness.conform.jsonio import encode_line
from session_toolset_harness.conform.vectors import documents, read_send
from session_toolset_harness.corpus.build import DEFAULT_OUT
from session_toolset_harness.declared_difference import DECLARED_DIFFERENCE

pytestmark = pytest.mark.spec("1.4")

REFERENCE = json.loads(
    (DEFAULT_OUT.parent / "reference" / "digest.json").read_text(encoding="utf-8")
)


def _original(text: str) -> Any:
    """``text`` read the way the original reads numbers (other JSON rules as Python's)."""
    return json.loads(text, parse_int=declared.parse, parse_float=declared.parse)


def _label(row: dict[str, Any]) -> str:
    return str(row.get("label", row.get("note")))[:60]


@pytest.mark.parametrize("row", REFERENCE["rows"] + REFERENCE["notes"], ids=_label)
def test_the_model_gives_every_digest_the_original_recorded(row: dict[str, Any]) -> None:
    assert schema_digest(_original(row["schema_json"])) == row["digest"]


def test_the_notes_really_are_mishandled_literals() -> None:
    # the notes whose rounding differs: the reference (correct rounding) gets another digest
    rounding = [n for n in REFERENCE["notes"] if "correctly_rounded_number_texts" in n]
    assert len(rounding) >= 2
    for note in rounding:
        assert schema_digest(parse_json(note["schema_json"])) != note["digest"], note["note"]


def test_the_model_overflows_where_the_original_refused_a_number() -> None:
    overflows = [r for r in REFERENCE["rejected"] if "out of range" in r["serde_error"]]
    assert {r["schema_json"] for r in overflows} >= {"1e400", "1.7976931348623158e308"}
    for row in overflows:
        with pytest.raises(declared.OutOfRange):
            _original(row["schema_json"])
    # ... while the exact decimal of the largest double is in range (SPEC.md 1.4)
    assert parse_json(str(int(1.7976931348623157e308))) == 1.7976931348623157e308


mishandled = declared.mishandled


def _literals(line: bytes) -> list[str]:
    found: list[str] = []

    def keep(text: str) -> int:
        found.append(text)
        return 0

    # a line that is not UTF-8 or not JSON: no literal of it reaches a number reader
    with contextlib.suppress(ValueError):
        json.loads(
            line.decode("utf-8"), parse_int=keep, parse_float=keep, parse_constant=lambda _: None
        )
    return found


def _documents() -> list[dict[str, Any]]:
    return documents(DEFAULT_OUT)


def test_declared_difference_tags_exactly_the_vectors_with_a_mishandled_literal() -> None:
    depends: set[str] = set()
    for document in _documents():
        for step in document["steps"]:
            line = encode_line(read_send(step))  # the very line the runner sends
            if any(mishandled(lit) for lit in _literals(line)):
                depends.add(document["id"])
    tagged = {d["id"] for d in _documents() if DECLARED_DIFFERENCE in d["tags"]}
    assert "edges/finite-double-range" in depends
    assert tagged == depends


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("9007199254740993.0", True),  # a note: two roundings
        ("123456789012345680000.0", True),
        (str(int(1.7976931348623157e308)), True),  # in range, yet the original overflows
        ("1.7976931348623158e308", False),  # both refuse it
        ("1e400", False),
        ("1.5", False),
        ("18446744073709551616", False),
        ("-0", False),
        ("1e-400", False),
    ],
)
def test_mishandled(literal: str, expected: bool) -> None:
    assert mishandled(literal) is expected


def test_the_spec_side_agrees_with_the_reference_on_every_corpus_literal() -> None:
    """`declared_difference.correct` (SPEC.md 1.4 restated, used to steer explore) reads every
    number literal the corpus sends as the reference implementation's parser does."""
    from session_toolset.json_value import JsonInputError

    literals = {
        lit
        for document in _documents()
        for step in document["steps"]
        for lit in _literals(encode_line(read_send(step)))
    }
    assert len(literals) > 100
    for literal in literals:
        try:
            expected: object = parse_json(literal)
        except JsonInputError:
            expected = declared.Refused
        try:
            found: object = declared.correct(literal)
        except declared.Refused:
            found = declared.Refused
        assert type(found) is type(expected) and found == expected, literal
