"""The edge sweep: every case of the generators' finite edge families is sent, compared like a
random step, and catches what only one case shows whatever the random examples drew."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from session_toolset import errors, json_value
from session_toolset.adapter import server
from session_toolset_harness.conform.jsonio import RawLine, encode_line
from session_toolset_harness.explore import edge_sweep, pools
from session_toolset_harness.explore.context import RunContext
from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.sut import InProcessSut

pytestmark = pytest.mark.spec("1.4", "4")


class Recording(InProcessSut):
    """The reference, keeping every line it was sent."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[bytes] = []

    def submit(self, lines: Sequence[bytes]) -> None:
        self.lines += lines
        super().submit(lines)


def test_every_case_of_every_family_is_sent_and_agrees_with_the_model() -> None:
    sut = Recording()
    ctx = RunContext(sut, pools.reference_digests())
    run = edge_sweep.sweep(ctx)
    assert ctx.failure is None
    sent = set(sut.lines)
    cases = [case for family in edge_sweep.families().values() for case in family]
    for case in cases:
        line = case.data + b"\n" if isinstance(case, RawLine) else encode_line(case)
        assert line in sent, case
    assert run == len(list(edge_sweep.examples()))
    assert ctx.steps_run == len(cases)  # observations are not steps


def test_the_families_hold_the_cases_the_module_names() -> None:
    families = edge_sweep.families()
    wire = {r["wire_name"] for r in families["wire names"] if isinstance(r, dict)}
    # every control run length with every tail: the cut lands at each byte of a wide character
    assert len(wire) >= 3 * 4 * 20
    lexical = [r.data for r in families["lexical"] if isinstance(r, RawLine)]
    assert any(b'\\ud800\\ue000","k0":0}' in line for line in lexical)  # discarded near miss
    assert any(b"\\udBfF" in line for line in lexical)  # mixed-case hex
    fields = families["record fields"]
    assert {(r.get("op"), "summary" in r) for r in fields if isinstance(r, dict)} == {
        ("catalog_insert", True),
        ("catalog_insert", False),
        ("catalog_upsert", True),
        ("catalog_upsert", False),
    }


def _strict_bound(text: str) -> str:  # the fault: the 512-byte cut decoded strictly
    raw = text.encode("utf-8", "surrogatepass")
    return text if len(raw) <= 512 else raw[:512].decode("utf-8")


def test_the_sweep_finds_a_fault_only_one_cut_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A denial message cut inside a multi-byte character: only some escaping wire names make
    the cut land there.  One random example of one step cannot send them; the sweep does."""
    monkeypatch.setattr(errors, "_bounded", _strict_bound)
    result = explore(InProcessSut(), examples=1, steps=1, seed_value=0, shrink=False, min_hits=1)
    assert result.swept > 0
    assert result.failure is not None or result.error is not None
    if result.failure is not None:
        assert result.failure.steps[-1].request["op"] == "resolve"


def test_an_exception_in_the_sweep_is_an_error_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = json_value.parse_json

    def broken(text: str | bytes) -> json_value.JsonValue:
        if isinstance(text, bytes) and b"\\udBfF" in text:
            raise RuntimeError("planted")
        return original(text)

    monkeypatch.setattr(server, "parse_json", broken)
    result = explore(InProcessSut(), examples=1, steps=1, seed_value=0, shrink=False, min_hits=1)
    assert result.error is not None and "planted" in result.error
    # where it happened: the first mixed-case case is a lexical one, after every raw line's
    # example (54 lines: 2) and the lexical examples of lower-case hex (more than 10)
    assert "lexical case" in result.error
    assert result.swept > 2 + 10
    assert result.swept < len(list(edge_sweep.examples()))


def test_a_profile_without_a_coverage_minimum_does_not_sweep() -> None:
    result = explore(InProcessSut(), examples=2, steps=3, seed_value=0, shrink=False)
    assert result.swept == 0
