"""The near misses of SPEC.md 1.4's lexical rules (`strategies.lexical_edge_lines`) are what they
claim: accepted lines with more than 127 brackets in total or inside strings at a depth within the
bound, surrogate escapes at every range edge and adjacency, and for each wrong reading of a rule
a generated line on which that reading (the other rules read right) and the model's world
disagree (so the generation can refute an implementation that reads the rule that way).  The
test's readings are its own: a character walk over strings and escapes, not the implementation's
scanners."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from decimal import Decimal
from functools import cache

import pytest
from session_toolset_model.world import World

from session_toolset_harness.explore import strategies
from session_toolset_harness.explore.draw import samples

pytestmark = pytest.mark.spec("1.4")

SAMPLE_SIZE = 600
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LARGEST = Decimal(sys.float_info.max)


@cache
def sample() -> tuple[tuple[str, bool], ...]:
    """A fixed sample of the generated lines, each with the world's verdict (accepted or not):
    the world parses each line once, whatever the number of tests that search the sample."""
    drawn: list[tuple[str, bool]] = []
    for line in samples(strategies.lexical_edge_lines(), SAMPLE_SIZE):
        reply = World().handle_line(line.encode("utf-8"))
        assert reply["ok"] is True or reply["error"] == "Protocol", reply
        drawn.append((line, reply["ok"] is True))
    return tuple(drawn)


def find(predicate: Callable[[str, bool], bool]) -> str:
    """The first sampled line (text) satisfying ``predicate(line, accepted)``."""
    found = [line for line, ok in sample() if predicate(line, ok)]
    assert found, "no generated line has the construction"
    return found[0]


def accepted(line: str) -> bool:
    return dict(sample())[line]


def scan(line: str, *, strings: bool = True, escapes: bool = True) -> tuple[int, int]:
    """(deepest nesting, brackets counted) over the text; ``strings=False`` counts brackets
    inside strings too, ``escapes=False`` lets an escaped quote end a string."""
    depth = deepest = counted = 0
    in_string = escaped = False
    for char in line:
        if in_string and strings:
            if escaped:
                escaped = False
            elif char == "\\" and escapes:
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth, counted = depth + 1, counted + 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth, counted = depth - 1, counted + 1
    return deepest, counted


def units(line: str) -> list[tuple[int, int, int]]:
    """(start, end, unit) of every escape inside a string (unit -1 for escapes other than
    \\u), read character by character: a backslash inside a string takes the next character
    (and four hex digits after ``u``) with it."""
    found: list[tuple[int, int, int]] = []
    in_string, i = False, 0
    while i < len(line):
        char = line[i]
        if not in_string:
            in_string = char == '"'
        elif char == '"':
            in_string = False
        elif char == "\\":
            if line[i + 1] == "u":
                found.append((i, i + 6, int(line[i + 2 : i + 6], 16)))
                i += 5
            else:
                found.append((i, i + 2, -1))
                i += 1
        i += 1
    return found


def exactly_beyond(number: str) -> bool:
    return Decimal(number).copy_abs() > _LARGEST


def beyond_double(line: str, beyond: Callable[[str], bool] = exactly_beyond) -> bool:
    """Whether a number outside strings is beyond the largest double (by its exact value)."""
    outside = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
    return any(beyond(n) for n in _NUMBER.findall(outside))


def high(u: int) -> bool:
    return 0xD800 <= u <= 0xDBFF


def low(u: int) -> bool:
    return 0xDC00 <= u <= 0xDFFF


def lone_surrogate(
    line: str,
    is_high: Callable[[int], bool] = high,
    is_low: Callable[[int], bool] = low,
    adjacent: bool = True,
    pairs: Callable[[int], bool] | None = None,
) -> bool:
    """A reading of the pairing rule: a high escape must be followed by a low one (immediately,
    unless ``adjacent`` is false; ``pairs`` says what completes a pair, ``is_low`` by default);
    a low one must follow a high one."""
    completes = is_low if pairs is None else pairs
    pending = -1
    for start, end, unit in units(line):
        if pending >= 0:
            if (start == pending or not adjacent) and completes(unit):
                pending = -1
                continue
            if adjacent:
                return True
        if is_high(unit):
            pending = end
        elif is_low(unit):
            return True
    return pending >= 0


def test_an_accepted_line_holds_more_than_127_brackets_within_the_depth_bound() -> None:
    siblings = find(lambda t, ok: ok and scan(t)[1] > 2 * 127)
    assert scan(siblings)[0] <= 127
    in_strings = find(
        lambda t, ok: ok
        and scan(t, strings=False)[1] - scan(t)[1] > 127
        and re.search(r'\\"[\[{]{128}', t) is not None  # right after an escaped quote
    )
    assert scan(in_strings)[0] <= 127


@pytest.mark.parametrize("leaf", ["null", "true", "false", '"s"', "-0"])
def test_an_accepted_line_reaches_the_bound_with_every_kind_of_leaf(leaf: str) -> None:
    deepest = find(lambda t, ok: scan(t)[0] == 127 and "[" + leaf + "]" in t)
    assert accepted(deepest), deepest


@pytest.mark.parametrize(
    "pair", [r"\ud800\udc00", r"\udbff\udfff", r"\ud800\udfff", r"\udbff\udc00"]
)
def test_pairs_at_every_range_edge_sit_in_accepted_lines(pair: str) -> None:
    line = find(lambda t, ok: ok and pair in t.lower())
    assert not lone_surrogate(line)


def too_deep(line: str) -> bool:
    return scan(line)[0] > 127


def refused(
    line: str,
    depth: Callable[[str], bool] = too_deep,
    surrogates: Callable[[str], bool] = lone_surrogate,
    numbers: Callable[[str], bool] = beyond_double,
) -> bool:
    """The test's reading of the whole line: refused when nested too deep, when it holds a
    lone surrogate escape or when a number is beyond the largest double.  A wrong reading of
    one rule replaces that rule's part only, so it disagrees with the world exactly on lines
    where the misread rule alone decides (a line refused for another reason proves nothing)."""
    return depth(line) or surrogates(line) or numbers(line)


@pytest.mark.parametrize("after", ["\\n", "\\\\", '\\"', "\\/", "\\u0041", "\\ud"])
def test_a_pair_followed_by_another_escape_sits_in_an_accepted_line(after: str) -> None:
    """A scan that takes the pair's low for the start of a new escape, or the next escape for
    part of the pair, misreads these."""
    pair = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}")
    line = find(lambda t, ok: ok and any(t.startswith(after, m.end()) for m in pair.finditer(t)))
    assert not lone_surrogate(line)


WRONG_READINGS: dict[str, Callable[[str], bool]] = {
    # each says whether the line is refused, reading one rule wrongly and the others right
    "brackets counted inside strings": lambda t: refused(
        t, depth=lambda t: scan(t, strings=False)[0] > 127
    ),
    "an escaped quote ends a string": lambda t: refused(
        t, depth=lambda t: scan(t, escapes=False)[0] > 127
    ),
    "every bracket counted as an opener": lambda t: refused(t, depth=lambda t: scan(t)[1] > 127),
    "a later low pairs a high": lambda t: refused(
        t, surrogates=lambda t: lone_surrogate(t, adjacent=False)
    ),
    "any escape after a high pairs it": lambda t: refused(
        t, surrogates=lambda t: lone_surrogate(t, pairs=lambda u: True)
    ),
    "DBFF is not high": lambda t: refused(
        t, surrogates=lambda t: lone_surrogate(t, is_high=lambda u: 0xD800 <= u < 0xDBFF)
    ),
    "DC00 is not low": lambda t: refused(
        t, surrogates=lambda t: lone_surrogate(t, is_low=lambda u: 0xDC00 < u <= 0xDFFF)
    ),
    "DFFF is not low": lambda t: refused(
        t, surrogates=lambda t: lone_surrogate(t, is_low=lambda u: 0xDC00 <= u < 0xDFFF)
    ),
    "E000 is low": lambda t: refused(
        t, surrogates=lambda t: lone_surrogate(t, is_low=lambda u: 0xDC00 <= u <= 0xE000)
    ),
    "the largest double itself is beyond the range": lambda t: refused(
        t, numbers=lambda t: beyond_double(t, lambda n: Decimal(n).copy_abs() >= _LARGEST)
    ),
}


@pytest.mark.parametrize("reading", sorted(WRONG_READINGS))
def test_every_wrong_reading_meets_a_line_it_judges_wrongly(reading: str) -> None:
    refuses = WRONG_READINGS[reading]
    line = find(lambda t, ok: refuses(t) == ok)
    assert refuses(line) == accepted(line)


def test_the_right_readings_agree_with_the_world_on_every_sampled_line() -> None:
    """The test's own reading of the whole line is the world's on every sampled line (refused
    ones included, whatever refuses them): otherwise a wrong reading's disagreement above could
    come from the test's reading rather than from the misread rule."""
    for line, ok in sample():
        assert refused(line) != ok, line


WIRE_NAMES: list[str] = samples(strategies.escaping_wire_names(), 60)


@pytest.mark.parametrize("name", WIRE_NAMES)
def test_escaping_wire_names_sit_at_the_bound_and_outgrow_a_message_when_escaped(
    name: str,
) -> None:
    size = len(name.encode("utf-8"))
    assert 120 <= size <= 128
    controls = sum(1 for c in name if ord(c) < 0x20 or ord(c) == 0x7F)
    assert controls >= 100 and 4 * controls + size - controls > 512 - 100
