"""Vector validation against the shipped schemas, including the recorded walkthroughs."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_toolset_harness.conform import cli, codes, schemas
from session_toolset_harness.conform.validate import validate_all
from session_toolset_harness.conform.vectors import discover

from .conftest import HELLO, RESET, WriteVector, document, parse_ok, reference_dir, step

WALKTHROUGHS = ("original-walkthrough-1.json", "original-walkthrough-2.json")


@pytest.mark.parametrize("name", WALKTHROUGHS)
def test_recorded_walkthroughs_satisfy_the_vector_schema(name: str, tmp_path: Path) -> None:
    path = reference_dir(tmp_path) / name
    verdict = validate_all(discover([path]))[0]
    assert verdict.problems == ()
    assert verdict.vector_id == f"original/{name.removesuffix('.json')}"


def test_validate_on_the_reference_directory_skips_digest_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = reference_dir(tmp_path)
    status = cli.main(["--validate", "--vectors", str(folder)])
    out = capsys.readouterr().out
    assert status == 0
    assert "SKIP" in out and "digest.json" in out and "2 valid, 0 invalid, 1 skipped" in out


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ({**document("t/x"), "steps": [RESET, HELLO]}, "hello"),
        ({**document("t/x"), "protocol": 2}, "1 was expected"),
        ({**document("t/x"), "id": "no group"}, "does not match"),
        (document("t/x", step({"op": "tool_id_parse"}, {"ok": True})), "'raw' is a required"),
        (document("t/x", step({"op": "frobnicate"}, {"ok": True})), "$.steps[2].send"),
        (document("t/x", step({"op": "hello"}, {"ok": False, "error": "Nope.Typo"})), "Nope.Typo"),
        (
            document("t/x", step({"op": "catalog_set_generation", "value": 1.0}, {"ok": True})),
            "integer",
        ),
    ],
)
def test_invalid_vectors_are_reported(write_vector: WriteVector, raw: object, needle: str) -> None:
    verdict = validate_all(discover([write_vector("t/x", raw=raw)]))[0]
    assert not verdict.valid
    assert any(needle in problem for problem in verdict.problems), verdict.problems


def test_hostile_requests_are_allowed_when_protocol_is_expected(write_vector: WriteVector) -> None:
    hostile = [
        step({"op": "frobnicate"}, {"ok": False, "error": "Protocol"}),
        step([1, 2], {"ok": False, "error": "Protocol"}),
        step({"op": "catalog_set_generation", "value": -1}, {"ok": False, "error": "Protocol"}),
    ]
    verdict = validate_all(discover([write_vector("t/hostile", *hostile)]))[0]
    assert verdict.problems == ()


def test_validate_cli_exit_codes(
    capsys: pytest.CaptureFixture[str], write_vector: WriteVector, tmp_path: Path
) -> None:
    good = write_vector("t/good", parse_ok("a:b"))
    assert cli.main(["--validate", "--vectors", str(good)]) == 0
    bad = tmp_path / "bad.json"
    bad.write_text("{nope", encoding="utf-8")
    assert cli.main(["--validate", "--vectors", str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and "invalid JSON" in out


def test_every_known_code_fits_the_reply_schema_pattern() -> None:
    for code in codes.KNOWN_CODES:
        reply: dict[str, object] = {
            "ok": False,
            "error": code,
            "message": "m",
            "tool": "a:b",
            "grant": 1,
            "catalog": 2,
            "set": 1,
            "actual": 300,
            "limit": 200,
            "wire_name": "w",
        }
        assert schemas.validate_reply("activate", reply) == [], code


def test_every_op_of_protocol_md_has_a_request_and_reply_definition() -> None:
    ops = schemas.request_ops()
    assert len(ops) == 31
    reply_defs = schemas.load_schema("reply")["$defs"]
    assert all(f"ok_{op}" in reply_defs for op in ops)


def test_schema_files_are_valid_draft_2020_12() -> None:
    from jsonschema import Draft202012Validator

    for name in schemas.SCHEMA_NAMES:
        Draft202012Validator.check_schema(schemas.load_schema(name))
