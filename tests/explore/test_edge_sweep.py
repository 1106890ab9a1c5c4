"""The edge sweep: every case of the generators' finite edge families is sent, compared like a
random step, and catches what only one case shows whatever the random examples drew."""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal

import pytest

from session_toolset import errors, json_value, registry
from session_toolset.adapter import fields, server
from session_toolset_harness.conform.jsonio import RawLine, encode_line
from session_toolset_harness.explore import edge_sweep, pools
from session_toolset_harness.explore.context import RunContext
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
    for name, family in edge_sweep.families().items():  # no case of a family sent twice
        lines = [c.data if isinstance(c, RawLine) else encode_line(c) for c in family]
        assert len(set(lines)) == len(lines), name
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


def _sweep() -> tuple[RunContext, int]:
    ctx = RunContext(InProcessSut(), pools.reference_digests())
    return ctx, edge_sweep.sweep(ctx)


def test_the_sweep_finds_a_fault_only_one_cut_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A denial message cut inside a multi-byte character: only some escaping wire names make
    the cut land there; the sweep sends them."""
    monkeypatch.setattr(errors, "_bounded", _strict_bound)
    ctx, swept = _sweep()
    assert swept > 0
    assert ctx.failure is not None
    assert ctx.failure.steps[-1].request["op"] == "resolve"


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
    """A fault that, of the sweep's families, only ``family``'s cases show."""
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


FAMILIES = ("raw lines", "lexical", "wire names", "long runtime names", "record fields")
"""The families docs/explore.md's edge-sweep table lists, in its order."""


def test_the_families_are_the_ones_the_docs_list() -> None:
    assert tuple(edge_sweep.families()) == FAMILIES


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_finds_a_fault_only_its_cases_show(
    family: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each family is sent (dropping one from `families` loses its fault), and the sweep stops
    at the first divergence: the example that found it is the last one run (a sweep that went
    on would start a new example, which forgets the divergence of the last one)."""
    _fault(family, monkeypatch)
    ctx, swept = _sweep()
    assert ctx.failure is not None and ctx.failure.flaky is None
    assert ctx.failure.steps[-1].request in edge_sweep.families()[family]
    chunks = list(edge_sweep.examples())
    assert 0 < swept < len(chunks) or family == "record fields"
    assert ctx.failure.steps[-1].request in chunks[swept - 1]


def test_with_a_window_the_last_replies_of_each_example_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An adapter's replies are read a window at a time: the end of each sweep example reads
    what is still outstanding, or a divergence in its last cases would go unseen."""
    monkeypatch.setattr(errors, "_bounded", _strict_bound)
    ctx = RunContext(InProcessSut(), pools.reference_digests(), window=10_000)
    run = edge_sweep.sweep(ctx)
    assert ctx.failure is not None
    assert ctx.failure.steps[-1].request in edge_sweep.families()["wire names"]
    assert run < len(list(edge_sweep.examples()))


def test_the_sweep_finds_a_fault_only_upper_case_hex_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An escape whose first hex digit is a capital letter (``\\uD800``) not read as one: in a
    value a repeated key discards, nothing else sees the lone surrogate.  Mixed case
    (``\\udBfF``) capitalises only odd places, so lower and mixed case alone never show it."""
    first_lower = re.compile(r"\\(?:u([0-9a-f][0-9a-fA-F]{3})|.)", re.DOTALL)
    monkeypatch.setattr(json_value, "_ESCAPE_RE", first_lower)
    ctx = RunContext(InProcessSut(), pools.reference_digests())
    edge_sweep.sweep(ctx)
    assert ctx.failure is not None
    assert ctx.failure.steps[-1].request in edge_sweep.families()["lexical"]
