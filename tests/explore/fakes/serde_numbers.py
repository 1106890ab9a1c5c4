"""The reference adapter on a JSON number reader that is not correctly rounding, as SPEC.md 1.4's
declared difference describes the original's (serde_json without ``float_roundtrip``): the
decimal digits are read into a 64-bit significand (digits beyond it are dropped), which becomes a
double and is then multiplied or divided by a power of ten - two roundings where SPEC.md asks for
one, so some long literals (``14575064.835512457``) come out one ulp off, and a product that
overflows refuses some in-range literals (the exact decimal of the largest double).

Written independently of the harness's own description (`declared_difference`), in the naive
form such readers take.  ``--bug NAME`` also applies the miniature NAME (a real bug), so a run can
show that steering off the declared difference does not hide one.  `patch` does the same
in-process.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session_toolset import json_value
from session_toolset.json_value import JsonInputError

_NUMBER = re.compile(r"(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?")
_U64_MAX = 2**64 - 1


def naive_number(literal: str) -> int | float:
    """``literal`` read with two roundings (see the module docstring)."""
    found = _NUMBER.fullmatch(literal)
    if found is None:
        raise JsonInputError(f"not a number: {literal}")
    sign, whole, fraction, exponent = found.groups()
    if fraction is None and exponent is None and literal != "-0":
        value = int(literal)
        if -(2**63) <= value <= _U64_MAX:
            return value
    digits = whole + (fraction or "")
    power = int(exponent or 0) - len(fraction or "")
    significand = int(digits)
    while significand > _U64_MAX:  # the digits a 64-bit significand cannot hold are dropped
        significand //= 10
        power += 1
    result = float(significand)
    while power < -308:
        result /= 1e308
        power += 308
    if power >= 0:
        if power > 308:
            if result:
                raise JsonInputError(f"number out of range: {literal}")
        else:
            result *= float(f"1e{power}")
    else:
        result /= float(f"1e{-power}")
    if result == float("inf"):
        raise JsonInputError(f"number out of range: {literal}")
    return -result if sign else result


@contextlib.contextmanager
def patch(bug: str | None = None) -> Iterator[None]:
    """The in-process reference with this number reader (and the miniature ``bug``, if named)."""
    saved = json_value._parse_int_literal, json_value._parse_float_literal
    json_value._parse_int_literal = naive_number
    json_value._parse_float_literal = naive_number
    try:
        with contextlib.ExitStack() as stack:
            if bug is not None:
                stack.enter_context(importlib.import_module(f"miniatures.{bug}").patch())
            yield
    finally:
        json_value._parse_int_literal, json_value._parse_float_literal = saved


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bug", help="also apply this miniature's fault")
    args = parser.parse_args()
    from session_toolset.adapter import main as adapter_main

    with patch(args.bug):
        return adapter_main()


if __name__ == "__main__":
    sys.exit(main())
