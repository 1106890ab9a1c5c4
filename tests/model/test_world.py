"""The expected world (`session_toolset_model.world`) against independent behaviour: every row
of the original implementation's digest reference, the whole hand-written corpus and both
recorded walkthroughs, plus PROTOCOL.md/SPEC.md rules written down here by hand."""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from typing import Any

import pytest
from session_toolset_model.profiles import PROFILES, Variant
from session_toolset_model.world import OutOfScope, World, alias, identity
from session_toolset_model.world.digest import number_text
from session_toolset_model.world.json_text import Malformed, parse_text
from session_toolset_proofs.mutants import MUTANTS
from session_toolset_proofs.mutants import variant as mutant_variant

from session_toolset_harness.independent import replay

pytestmark = pytest.mark.spec("1.1", "1.2", "1.4", "1.5", "4")


def _numbers(value: Any) -> list[str]:
    """Number texts in digest traversal order (objects by key bytes), written for the test."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return []
    if isinstance(value, int | float):
        return [number_text(value)]
    if isinstance(value, list):
        return [t for v in value for t in _numbers(v)]
    return [t for k in sorted(value, key=str.encode) for t in _numbers(value[k])]


def _digest_line(schema_json: str) -> bytes:
    return b'{"op":"digest","schema":' + schema_json.encode() + b"}"


REFERENCE = json.loads(
    resources.files("session_toolset_harness")
    .joinpath("reference/digest.json")
    .read_text(encoding="utf-8")
)


@pytest.mark.parametrize("row", REFERENCE["rows"], ids=lambda r: r["label"][:40])
def test_every_recorded_digest_row(row: dict[str, Any]) -> None:
    reply = World().handle_line(_digest_line(row["schema_json"]))
    assert reply == {"ok": True, "digest": row["digest"]}
    assert _numbers(parse_text(row["schema_json"]).value) == row["number_texts"]


@pytest.mark.parametrize("note", REFERENCE["notes"], ids=lambda n: n["note"][:40])
def test_notes_as_a_correctly_rounding_parser_reads_them(note: dict[str, Any]) -> None:
    """Duplicate keys keep the last value; long literals round correctly (SPEC.md 1.4's
    declared difference: the original's parser does not, the notes say what correct gives)."""
    value = parse_text(note["schema_json"]).value
    expected = note.get("correctly_rounded_number_texts", note["number_texts"])
    assert _numbers(value) == expected
    if "correctly_rounded_number_texts" not in note:
        assert World().handle_line(_digest_line(note["schema_json"]))["digest"] == note["digest"]


@pytest.mark.parametrize("row", REFERENCE["rejected"], ids=lambda r: r["label"][:40])
def test_recorded_rejections(row: dict[str, Any]) -> None:
    line = _digest_line(row["schema_json"])
    if row["schema_json"].startswith("[[[["):  # deeper than 127 levels: SPEC.md leaves it open
        with pytest.raises(OutOfScope):
            World().handle_line(line)
        return
    assert World().handle_line(line) == {"ok": False, "error": "Protocol"}


def test_the_independent_corpus_agrees_with_the_world() -> None:
    report = replay()
    assert report.disagreements == [] and report.errors == []
    assert report.vectors >= 80 and report.steps >= 2000, report.line()


# Mutants of the Z3 interpretation's side definitions change only the Z3 reading of the model:
# the concrete world, which the check replays, is the same program with or without them, so no
# recorded behaviour can contradict them.  The `interp.*` obligations refute them
# (tests/proofs/test_named_bugs.py); here it is checked that they really leave the world alone.
Z3_SIDE_ONLY = ("z3_first_index_strict", "z3_first_occ_any")


@pytest.mark.parametrize("mutant", Z3_SIDE_ONLY)
def test_z3_side_mutants_leave_the_concrete_world_unchanged(mutant: str) -> None:
    assert mutant in MUTANTS
    report = replay(world_factory=lambda: World(mutant_variant(mutant)))
    assert report.disagreements == [] and report.errors == []
    assert report.steps == replay().steps


@pytest.mark.parametrize(
    "variant",
    [
        *(mutant_variant(m) for m in MUTANTS if m not in Z3_SIDE_ONLY),
        *(Variant(profile=p) for p in PROFILES if p != "per-tool-pinned"),
    ],
    ids=lambda v: v.label or v.profile,
)
def test_every_model_variant_contradicts_recorded_behaviour(variant: Variant) -> None:
    """So `check`'s model stage fails for each model mutant and non-SPEC profile."""
    report = replay(world_factory=lambda: World(variant), stop_at_first=True)
    assert report.disagreements, f"{variant} agrees with the whole corpus"


# -- PROTOCOL.md rules written down by hand ----------------------------------------------------
def _world() -> World:
    w = World()
    for req in (
        {
            "op": "catalog_insert",
            "source": {"kind": "builtin", "name": "read"},
            "provenance": {"kind": "builtin_runtime"},
            "schema": {},
        },
        {"op": "set_new", "name": "A", "session": "s", "core": []},
    ):
        assert w.handle(req)["ok"] is True
    return w


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        # set (lookup) before tool (parse)
        ({"op": "activate_user", "set": "nope", "tool": ""}, "Protocol"),
        ({"op": "activate_user", "set": "A", "tool": ""}, "ToolIdError.Empty"),
        # session before tool; name before session
        ({"op": "issue_grant", "name": "g", "session": "", "tool": "x"}, "SessionIdError.Empty"),
        ({"op": "issue_grant", "name": 1, "session": "", "tool": "x"}, "Protocol"),
        (
            {
                "op": "forge_grant",
                "name": "g",
                "session": "",
                "tool": "x",
                "generation": -1,
                "digest": 1,
            },
            "ActivationGrantError.EmptySessionId",
        ),
        (
            {
                "op": "forge_grant",
                "name": "g",
                "session": "s",
                "tool": "x",
                "generation": -1,
                "digest": 1,
            },
            "ToolIdError.MissingNamespace",
        ),
        # replaced before source; id after schema
        ({"op": "catalog_upsert", "replaced": "X", "source": 1}, "ToolIdError.MissingNamespace"),
        (
            {
                "op": "catalog_insert",
                "source": {"kind": "builtin", "name": "b"},
                "provenance": {"kind": "builtin_runtime"},
                "id": "X",
            },
            "Protocol",
        ),
        # optional fields: null is a wrong type unless the row says "or null"
        (
            {
                "op": "catalog_insert",
                "source": {"kind": "builtin", "name": "b"},
                "provenance": {"kind": "builtin_runtime"},
                "schema": None,
                "id": None,
            },
            "Protocol",
        ),
        (
            {"op": "rebuild", "set": "A", "into": "A", "progressive": True, "carry_forward": None},
            "Protocol",
        ),
        ({"op": "authorize", "set": "A", "tool": "builtin:read", "wire_name": None}, "Protocol"),
        # route parses fallback_session even with a set
        (
            {"op": "route", "set": "A", "into": "B", "fallback_session": "\n"},
            "SessionIdError.ControlCharacters",
        ),
        # every field is validated before the operation's own checks
        (
            {"op": "activate_model", "set": "A", "authority": "unauthorized", "tools": ["X"]},
            "ToolIdError.MissingNamespace",
        ),
        ({"op": "activate_model", "set": "A", "authority": "root", "tools": ["X"]}, "Protocol"),
    ],
)
def test_first_faulty_field_decides(request_: dict[str, Any], code: str) -> None:
    w = _world()
    before = w.key()
    reply = w.handle(request_)
    assert reply.get("error") == code and reply["ok"] is False
    assert w.key() == before


@pytest.mark.parametrize(
    ("line", "ok"),
    [
        (b'{"op":"hello","op":"nope"}', False),
        (b'{"op":"nope","op":"hello"}', True),
        (b'{"op":"hello","x":"\\ud800"}', False),  # a lone surrogate in an ignored key
        (b'{"op":"hello","x":"\\x"}', False),  # an invalid escape anywhere
        (b'{"op":"hello","x":NaN}', False),
        (b'{"op":"hello","x":1e400}', False),
        (b'{"op":"hello","x":01}', False),
        (b' \t\r{"op":"hello"}\r\n', True),
        (b'\x0c{"op":"hello"}', False),  # form feed is not JSON whitespace
        (b'{"op":"hello"} x', False),
        (b"", False),
        (b'["op","hello"]', False),
        (b'{"op":"hello","x":"\xff"}', False),  # not UTF-8
        (b'{"op":"hello","x":"a\tb"}', False),  # a raw control character in a string
        (b'{"op":"hello","x":"\\ud83d\\ude00"}', True),
    ],
)
def test_request_lines(line: bytes, ok: bool) -> None:
    assert World().handle_line(line)["ok"] is ok


def test_negative_zero_is_a_double_and_one_differs_from_one_point_zero() -> None:
    w = World()
    digests = [w.handle_line(_digest_line(t))["digest"] for t in ("-0", "-0.0", "0", "1", "1.0")]
    assert digests[0] == digests[1] != digests[2]
    assert digests[3] != digests[4]
    # SPEC.md 1.4 framing by hand: byte 2, 8-byte LE length, the text
    assert digests[4] == hashlib.sha256(b"\x02" + (3).to_bytes(8, "little") + b"1.0").hexdigest()


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1.0"),
        (100.0, "100.0"),
        (1e15, "1000000000000000.0"),
        (1e16, "1e16"),
        (0.00001, "0.00001"),
        (1e-7, "1e-7"),
        (1.5e-6, "1.5e-6"),
        (2.0**64, "1.8446744073709552e19"),
        (-0.0, "-0.0"),
        (0.1, "0.1"),
        (-123.456, "-123.456"),
        (5e-324, "5e-324"),
        (2**64 - 1, str(2**64 - 1)),
    ],
)
def test_number_text_layout(value: float, text: str) -> None:
    assert number_text(value) == text


def test_integer_range_edges() -> None:
    assert parse_text(str(-(2**63))).value == -(2**63)
    assert isinstance(parse_text(str(-(2**63) - 1)).value, float)
    assert parse_text(str(2**64 - 1)).value == 2**64 - 1
    assert isinstance(parse_text(str(2**64)).value, float)
    with pytest.raises(Malformed):
        parse_text("1" + "0" * 309)


def test_nesting_127_is_accepted_in_a_schema_of_126() -> None:
    w = World()
    assert w.handle_line(_digest_line("[" * 126 + "]" * 126))["ok"] is True
    with pytest.raises(OutOfScope):
        w.handle_line(_digest_line("[" * 127 + "]" * 127))
    assert w.handle_line(_digest_line("[" * 127 + "]" * 126))["ok"] is False  # malformed anyway


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("", "ToolIdError.Empty"),
        ("a" * 201, "ToolIdError.Oversized"),
        ("é" * 100 + ":", "ToolIdError.Oversized"),
        ("ab", "ToolIdError.MissingNamespace"),
        ("a" * 65 + ":b", "ToolIdError.InvalidNamespace"),
        ("_a:b", "ToolIdError.InvalidNamespace"),
        ("a:b:c", "ToolIdError.InvalidName"),
        ("a:" + "b" * 129, "ToolIdError.InvalidName"),
        ("a" * 64 + ":" + "b" * 128, None),
        ("a" * 64 + ":" + "b" * 135, "ToolIdError.InvalidName"),
        ("a" * 71 + ":" + "b" * 128, "ToolIdError.InvalidNamespace"),
        ("a" * 72 + ":" + "b" * 128, "ToolIdError.Oversized"),
        ("enc-x:sha-y", None),
    ],
)
def test_tool_id_parse(raw: str, code: str | None) -> None:
    try:
        assert identity.parse_tool_id(raw) == raw and code is None
    except identity.IdentityError as err:
        assert err.code == code


def test_source_aware_encoders_at_their_budgets() -> None:
    assert identity.builtin("enc-x") == "builtin:enc-" + b"enc-x".hex()
    assert identity.builtin("") == "builtin:enc-"
    assert identity.builtin("a" * 128) == "builtin:" + "a" * 128
    assert identity.builtin("A" * 62) == "builtin:enc-" + "41" * 62  # 128 bytes exactly
    assert identity.builtin("A" * 63) == "builtin:sha-" + hashlib.sha256(b"A" * 63).hexdigest()[:40]
    assert identity.plugin("p" * 57, "t") == "plugin." + "p" * 57 + ":t"
    assert identity.plugin("p" * 58, "t").startswith("plugin.sha-")
    assert identity.extension("É", "x") == "ext.enc-c389:x"
    assert identity.mcp("m" * 60, "sha-1").startswith("mcp." + "m" * 60 + ":enc-")


@pytest.mark.parametrize("ch", ["\x00", "\x1f", "\x7f", "\x80", "\x85", "\x9f"])
def test_every_control_character_class(ch: str) -> None:
    with pytest.raises(identity.IdentityError, match="ControlCharacters"):
        identity.parse_session("a" + ch)
    assert identity.parse_session("a\xa0 /:b") == "a\xa0 /:b"  # NBSP is not a control character


def test_alias_rule() -> None:
    live = [
        alias.Live("a.b", "x:1", False),
        alias.Live("a-b", "x:2", False),
        alias.Live("a_b", "builtin:z", True),
        alias.Live("a.b", "x:0", False),
    ]
    got = {entry.tool: name for name, entry in alias.aliases(live)}
    # builtin first; then runtime-name bytes "a-b" < "a.b"; ties by ToolId
    assert got == {"builtin:z": "a_b", "x:2": "a-b", "x:0": "a_b_2", "x:1": "a_b_3"}
    long = [alias.Live("é" * 40, f"t:{i}", False) for i in range(3)]
    assert [n for n, _ in alias.aliases(long)] == ["_" * 40, "_" * 40 + "_2", "_" * 40 + "_3"]
    cut = [alias.Live("r" * 70, f"t:{i}", False) for i in range(2)]
    assert [n for n, _ in alias.aliases(cut)] == ["r" * 64, "r" * 62 + "_2"]
    found = alias.resolve(live, "a.b")
    assert found is not None and found[1].tool == "x:0"
    assert alias.bounded("é" * 100) == "é" * 64


def test_set_names_lists_the_sets_created_in_byte_order() -> None:
    """The world's set listing (what explore snapshots after each step): every name a set was
    stored under, sorted, a replaced name once; a failed set_new adds nothing (SPEC.md §6)."""
    w = _world()
    for name in ("b", "B", "a"):
        assert w.handle({"op": "set_new", "name": name, "session": "s", "core": []})["ok"] is True
    assert w.handle({"op": "set_new", "name": "x", "session": "s", "core": ["a:b"]})["ok"] is False
    assert w.handle({"op": "set_new", "name": "a", "session": "t", "core": []})["ok"] is True
    assert w.set_names() == ["A", "B", "a", "b"]


def test_answer_is_handle_line_after_the_json_text() -> None:
    """`World.answer` (the explorer's constant observation requests, already parsed) gives the
    reply `handle` gives for the same request sent as a line, in a world with records, sets and
    factory calls, and a `Protocol` error for a value that is not a request object."""
    world = World()
    builtin = {"source": {"kind": "builtin", "name": "read"}, "schema": {"type": "object"}}
    steps: list[dict[str, Any]] = [
        {"op": "catalog_insert", **builtin, "provenance": {"kind": "builtin_runtime"}},
        {"op": "set_default_core", "name": "A", "session": "s1"},
        {"op": "authorize", "set": "A", "tool": "builtin:read"},
    ]
    for step in steps:
        assert world.handle(step)["ok"] is True, step
    observations: list[Any] = [
        {"op": "catalog_state"},
        {"op": "snapshot", "set": "A"},
        {"op": "snapshot", "set": "B"},
        {"op": "factory_calls", "tool": "builtin:read"},
        {"op": "nope"},
    ]
    for request in observations:
        assert world.answer(request) == world.handle(request), request
    assert world.answer({"op": "factory_calls", "tool": "builtin:read"})["calls"] == 1
    assert world.answer(["op", "hello"]) == {"ok": False, "error": "Protocol"}
