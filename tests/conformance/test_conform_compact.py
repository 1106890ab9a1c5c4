"""Compact vector files: named setups and long text, expanded by the runner, checked by
``--validate``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from session_toolset_harness.conform import cli, compact
from session_toolset_harness.conform.validate import validate_all
from session_toolset_harness.conform.vectors import Vector, discover, load_all

from .conftest import HELLO, RESET, WriteVector, parse_ok


def compact_vector(vector_id: str, setup: object, *steps: object) -> dict[str, Any]:
    return {
        "protocol": 1,
        "id": vector_id,
        "description": "",
        "tags": [],
        "setup": setup,
        "steps": list(steps),
    }


STATE = {"send": {"op": "catalog_state"}, "expect": {"ok": True, "generation": 8}}


def test_expansion_is_hello_reset_setups_then_own_steps() -> None:
    setups = compact.setups()
    expanded = compact.expand(compact_vector("t/x", ["standard-catalog", "set-h"], STATE))
    assert "setup" not in expanded
    assert expanded["steps"] == [
        HELLO,
        RESET,
        *setups["standard-catalog"],
        *setups["set-h"],
        STATE,
    ]
    alone = compact.expand(compact_vector("t/x", "standard-catalog", STATE))
    assert alone["steps"] == [HELLO, RESET, *setups["standard-catalog"], STATE]
    assert compact.expand(compact_vector("t/x", [], STATE))["steps"] == [HELLO, RESET, STATE]


def test_repeat_and_concat_stand_for_text_anywhere_in_a_step() -> None:
    raw = {"$concat": ["a:", {"$repeat": "b\u00e9", "times": 3}, "c"]}
    step = {"send": {"op": "tool_id_parse", "raw": raw}, "expect": {"ok": True, "x": [raw]}}
    (expanded,) = compact.expand(compact_vector("t/x", [], step))["steps"][2:]
    text = "a:" + "b\u00e9" * 3 + "c"
    assert expanded == {
        "send": {"op": "tool_id_parse", "raw": text},
        "expect": {"ok": True, "x": [text]},
    }
    assert compact.expand_values({"$repeat": "ab", "times": 0}) == ""


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"$repeat": "a"}, '$.raw: write {"$repeat": TEXT, "times": N}'),
        ({"$repeat": "a", "times": 2, "x": 1}, "$.raw: write"),
        ({"$repeat": 5, "times": 2}, "$.raw: $repeat needs a string and an integer times"),
        ({"$repeat": "a", "times": True}, "$repeat needs a string and an integer times"),
        ({"$repeat": "a", "times": -1}, "$.raw: $repeat times must be 0 or more"),
        ({"$repeat": "ab", "times": (1 << 23) + 1}, "stands for more than 16777216 characters"),
        ({"$concat": "ab"}, "$.raw: write"),
        ({"$concat": ["a", 5]}, '$.raw["$concat"][1]: a $concat part is a string or a $repeat'),
        ({"$concat": [{"$concat": []}]}, '$.raw["$concat"][0]: a $concat part is a string'),
    ],
)
def test_malformed_text_says_where_and_why(value: object, message: str) -> None:
    with pytest.raises(compact.CompactError) as caught:
        compact.expand_values({"raw": value})
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("nope", "$.setup: unknown setup 'nope' (known: standard-catalog, "),
        (["standard-catalog", "nope"], "$.setup[1]: unknown setup 'nope'"),
        (5, "$.setup: 5 is not of type 'string', 'array'"),
        (["Bad Name"], "$.setup[0]: 'Bad Name' does not match"),
    ],
)
def test_validate_names_a_bad_setup(write_vector: WriteVector, setup: object, message: str) -> None:
    path = write_vector("t/x", raw=compact_vector("t/x", setup, STATE))
    (verdict,) = validate_all(discover([path]))
    assert any(message in problem for problem in verdict.problems), verdict.problems
    (loaded,) = load_all(discover([path]))  # the runner refuses it as an unusable file
    assert not isinstance(loaded, Vector)


def test_validate_checks_own_steps_with_the_files_step_numbers(write_vector: WriteVector) -> None:
    bad = {"send": {"op": "tool_id_parse"}, "expect": {"ok": True}}
    path = write_vector("t/x", raw=compact_vector("t/x", "standard-catalog", STATE, bad))
    (verdict,) = validate_all(discover([path]))
    assert verdict.problems == ("$.steps[1].send: 'raw' is a required property",)
    # a compact file needs no hello/reset of its own, an expanded one does
    expanded = {**compact_vector("t/y", [], parse_ok("a:b"))}
    del expanded["setup"]
    (verdict,) = validate_all(discover([write_vector("t/y", raw=expanded)]))
    assert any("'hello' was expected" in p for p in verdict.problems)


def test_the_runner_runs_a_compact_vector_like_its_expansion(tmp_path: Path) -> None:
    folder = tmp_path / "v"
    folder.mkdir()
    document = compact_vector("t/c", ["standard-catalog", "set-h"], STATE)
    (folder / "compact.json").write_text(json.dumps(document), encoding="utf-8")
    expanded = compact.expand({**document, "id": "t/e"})
    (folder / "expanded.json").write_text(json.dumps(expanded), encoding="utf-8")
    compact_run, expanded_run = load_all(discover([folder]))
    assert isinstance(compact_run, Vector) and isinstance(expanded_run, Vector)
    assert compact_run.steps == expanded_run.steps
    assert cli.main(["--quiet", "--vectors", str(folder)]) == 0
    failing = compact_vector("t/f", "standard-catalog", {**STATE, "expect": {"ok": False}})
    (folder / "failing.json").write_text(json.dumps(failing), encoding="utf-8")
    assert cli.main(["--quiet", "--vectors", str(folder)]) == 1
