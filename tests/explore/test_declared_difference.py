"""``explore --exclude-tag declared-difference``: an implementation on a JSON parser that is not
correctly rounding (SPEC.md 1.4's declared difference, `fakes.serde_numbers`) explores clean with
the flag and diverges without it, while one with a real bug as well is still caught; the corpus's
tagged vectors set the same implementation apart in ``conform``."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from session_toolset_harness.conform.cli import main as conform_main
from session_toolset_harness.declared_difference import mishandled, steer_line, steer_value
from session_toolset_harness.explore.cli import main

from .fakes import serde_numbers
from .fakes.serde_numbers import naive_number

pytestmark = pytest.mark.spec("1.4")

STEER = ["--exclude-tag", "declared-difference"]
RUN = ["--seed", "0", "--examples", "50", "--quiet"]


def _literals(vector: Path) -> list[str]:
    found: list[str] = []

    def keep(text: str) -> int:
        found.append(text)
        return 0

    for step in json.loads(vector.read_text(encoding="utf-8"))["steps"]:
        line = step.get("send_line") or json.dumps(step.get("send"))
        try:
            json.loads(line, parse_int=keep, parse_float=keep)
        except ValueError:
            continue
    return found


def test_the_fake_reads_long_literals_one_ulp_off() -> None:
    assert naive_number("14575064.835512457") == 14575064.835512456 != 14575064.835512457
    assert naive_number("1.5") == 1.5 and naive_number("18446744073709551615") == 2**64 - 1


def test_a_parser_that_is_not_correctly_rounding_diverges_on_a_declared_literal(
    tmp_path: Path,
) -> None:
    out = tmp_path / "failure.json"
    with serde_numbers.patch():
        assert main([*RUN, "--out", str(out)]) == 1
    assert any(mishandled(literal) for literal in _literals(out))


def test_steering_off_the_declared_difference_explores_it_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    with serde_numbers.patch():
        assert main([*RUN, *STEER, "--json", str(report)]) == 0
    assert "explore: no divergence" in capsys.readouterr().out
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["exclude_tags"] == ["declared-difference"]
    assert data["counts"]["steered"] > 0 and data["verdict"] == "pass"


def test_steering_does_not_hide_a_real_bug(tmp_path: Path) -> None:
    out = tmp_path / "failure.json"
    with serde_numbers.patch("mini_revoke_core_allowed"):
        assert main([*RUN, "--examples", "300", *STEER, "--out", str(out)]) == 1
    vector = json.loads(out.read_text(encoding="utf-8"))
    assert any(step.get("send", {}).get("op") == "revoke" for step in vector["steps"])
    assert not any(mishandled(literal) for literal in _literals(out))


def test_the_corpus_sets_the_same_parser_apart_with_the_tag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake = shlex.join([sys.executable, str(Path(serde_numbers.__file__))])
    assert conform_main(["--adapter", fake, "-k", "edges/", "--quiet"]) == 1
    out = capsys.readouterr().out
    failed = {line.split()[2] for line in out.splitlines() if line.startswith("_" * 8)}
    assert failed == {"edges/finite-double-range", "edges/long-literal-rounding"}
    assert conform_main(["--adapter", fake, "-k", "edges/", "--quiet", *STEER]) == 0


@pytest.mark.parametrize(
    ("line", "expected", "count"),
    [
        (b'{"op":"digest","schema":14575064.835512457}', b"14575064.8355125", 1),
        (b'{"op":"digest","schema":"14575064.835512457"}', b'"14575064.835512457"', 0),
        (b'{"op":"digest","schema":"\\"14575064.835512457"}', b'\\"14575064.835512457"', 0),
        (b'{"op":"digest","schema":[1.5,01,14575064.835512457e0]}', b"[1.5,01,", 1),
        (b'{"op":"hello"}', b'{"op":"hello"}', 0),
    ],
)
def test_steer_line_replaces_number_tokens_only(line: bytes, expected: bytes, count: int) -> None:
    steered, found = steer_line(line)
    assert found == count and expected in steered
    if count:
        assert steered != line


def test_steer_value_replaces_mishandled_numbers_and_keeps_the_rest() -> None:
    edge = int(sys.float_info.max)
    value: dict[str, Any] = {"a": [14575064.835512457, 1.5, "14575064.835512457"], "b": edge}
    steered, count = steer_value(value)
    assert count == 2
    assert steered["a"][1:] == [1.5, "14575064.835512457"]
    assert not mishandled(repr(steered["a"][0])) and not mishandled(str(steered["b"]))
    assert abs(steered["a"][0] - 14575064.835512457) < 1e-6 and 0 < steered["b"] < edge
    assert steer_value(value["a"][1:]) == (value["a"][1:], 0)
