"""SPEC.md 1.4's declared difference: the number literals the original implementation's JSON
parser (serde_json 1.0.87 without ``float_roundtrip``) reads otherwise than SPEC.md does.

`parse` restates its number reader: decimal digits accumulate into a u64 significand (past
u64, further integer digits raise the exponent and fraction digits are dropped), then
``f64(significand)`` is multiplied or divided by ``10^|exponent|`` from a table of doubles (two
roundings, not one); an infinite product is "number out of range"; an integer without fraction
or exponent stays a u64 (an i64 when negative).  ``tests/corpus/test_declared_differences.py``
checks it against every digest the original recorded.  Literals it reads otherwise
(`mishandled`) are long ones rounded one ulp off and in-range ones at the edge of the double
range; ``explore --exclude-tag declared-difference`` steers requests away from them
(`steer_value`, `steer_line`).
"""

from __future__ import annotations

import json
import math
import re
import sys
from decimal import Decimal
from typing import Any, Final

U64_MAX: Final = 2**64 - 1
I64_MIN: Final = -(2**63)
#: The tag of a vector whose expectation depends on such a literal
#: (``tests/corpus/test_declared_differences.py`` finds them), so a runner can set it apart with
#: ``--exclude-tag declared-difference``.
DECLARED_DIFFERENCE: Final = "declared-difference"
_LARGEST_EXACT: Final = int(sys.float_info.max)
_LARGEST_DECIMAL: Final = Decimal(_LARGEST_EXACT)
I32_MAX: Final = 2**31 - 1
_POW10: Final = [float(f"1e{i}") for i in range(309)]  # each correctly rounded, like Rust's table


class OutOfRange(ValueError):
    """serde_json's ``number out of range``."""


_LITERAL: Final = re.compile(r"(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?)([0-9]+))?")


def parse(literal: str) -> int | float:
    """The value serde_json 1.0.87 gives a JSON number literal; raises :class:`OutOfRange`."""
    found = _LITERAL.fullmatch(literal)
    assert found is not None, literal
    sign, integer, fraction, exp_sign, exp_digits = found.groups()
    positive = not sign
    significand = exponent = 0
    overflowed = False
    for char in integer:  # past u64, further integer digits only raise the exponent
        overflowed = overflowed or significand * 10 + int(char) > U64_MAX
        if overflowed:
            exponent += 1
        else:
            significand = significand * 10 + int(char)
    if fraction is None and exp_digits is None and not overflowed:
        if positive:
            return significand
        if significand == 0 or significand > 2**63:
            return -float(significand)  # "-0" and values below i64::MIN: a double
        return -significand
    for char in fraction or "":  # the first digit that would overflow drops the rest
        if significand * 10 + int(char) > U64_MAX:
            break
        significand = significand * 10 + int(char)
        exponent -= 1
    if exp_digits is not None:
        value = 0
        for char in exp_digits:
            if value * 10 + int(char) > I32_MAX:
                if significand != 0 and exp_sign != "-":
                    raise OutOfRange(literal)
                return 0.0 if positive else -0.0
            value = value * 10 + int(char)
        exponent += -value if exp_sign == "-" else value
    return _from_parts(positive, significand, exponent)


def _from_parts(positive: bool, significand: int, exponent: int) -> float:
    f = float(significand)  # u64 → f64, round to nearest even
    while True:
        if abs(exponent) < len(_POW10):
            if exponent >= 0:
                f *= _POW10[exponent]
                if f == float("inf"):
                    raise OutOfRange(str(significand))
            else:
                f /= _POW10[-exponent]
            break
        if f == 0.0:
            break
        if exponent >= 0:
            raise OutOfRange(str(significand))
        f /= 1e308
        exponent += 308
    return f if positive else -f


def _same(left: object, right: object) -> bool:
    if type(left) is not type(right):
        return False
    if isinstance(left, float) and isinstance(right, float):
        return left == right and math.copysign(1, left) == math.copysign(1, right)
    return left == right


class Refused(ValueError):
    """SPEC.md 1.4 refuses the literal: its exact value is beyond the finite double range."""


def correct(literal: str) -> int | float:
    """The value SPEC.md 1.4 gives the JSON number ``literal`` (an integer in [-2^63, 2^64-1]
    stays one, except ``-0``; anything else is the correctly rounded double); `Refused` beyond
    the finite double range.  Independent of any implementation's parser."""
    if not any(c in literal for c in ".eE") and literal != "-0":
        value = int(literal)
        if I64_MIN <= value <= U64_MAX:
            return value
    if Decimal(literal).copy_abs() > _LARGEST_DECIMAL:  # exact (abs() would round)
        raise Refused(literal)
    return float(literal)


def mishandled(literal: str) -> bool:
    """True when the original reads the JSON number ``literal`` otherwise than SPEC.md 1.4 (and
    the reference): another value, or an overflow where the literal is in range."""
    try:
        right: object = correct(literal)
    except Refused:
        right = Refused
    try:
        original: object = parse(literal)
    except OutOfRange:
        original = Refused
    return not _same(right, original)


def _shorter(value: int | float) -> list[int | float]:
    """Candidates for a steered ``value``: the same value cut to fewer significant digits, then
    an integer edge (which both parsers read exactly) as a last resort."""
    found: list[int | float] = []
    for digits in range(15, 0, -1):
        if isinstance(value, int):
            candidate: int | float = int(Decimal(format(Decimal(value), f".{digits}e")))
        else:
            candidate = float(f"{value:.{digits}g}")
        if abs(candidate) <= _LARGEST_EXACT:  # inf for a float, beyond the range for an int
            found.append(candidate)
    found.append(I64_MIN if value < 0 else U64_MAX)
    return found


def _steered(value: int | float) -> int | float | None:
    """The replacement for a number whose JSON text is mishandled, else None."""
    if isinstance(value, int) and I64_MIN <= value <= U64_MAX:
        return None  # both read it as that integer
    if not mishandled(json.dumps(value)):
        return None
    return next(c for c in _shorter(value) if not mishandled(json.dumps(c)))


def steer_value(value: Any) -> tuple[Any, int]:
    """``value`` with every mishandled number replaced (`_steered`), and how many were; the same
    object when none was."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value, 0
    if isinstance(value, int | float):
        replaced = _steered(value)
        return (value, 0) if replaced is None else (replaced, 1)
    if isinstance(value, list):
        pairs = [steer_value(item) for item in value]
        count = sum(n for _, n in pairs)
        return ([v for v, _ in pairs], count) if count else (value, 0)
    if isinstance(value, dict):
        entries = {key: steer_value(item) for key, item in value.items()}
        count = sum(n for _, n in entries.values())
        return ({k: v for k, (v, _) in entries.items()}, count) if count else (value, 0)
    return value, 0


_TOKEN: Final = re.compile(
    rb'"(?:[^"\\]|\\.?)*"?'  # a string (to its end if unterminated): left alone
    rb"|(?<![0-9A-Za-z_.+-])-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?![0-9.eE+-])",
    re.DOTALL,
)


def steer_line(line: bytes) -> tuple[bytes, int]:
    """A raw request line with every mishandled number token outside strings replaced (by the
    text of its `_steered` value), and how many were; tokens that are not JSON numbers (``01``,
    ``1.``) and text inside strings are left alone."""
    count = 0

    def replace(found: re.Match[bytes]) -> bytes:
        nonlocal count
        token = found.group()
        replaced = None if token.startswith(b'"') else _literal(token.decode("ascii"))
        count += replaced is not None
        return token if replaced is None else replaced.encode("ascii")

    if not any(48 <= byte <= 57 for byte in line):
        return line, 0
    steered = _TOKEN.sub(replace, line)
    return (steered, count) if count else (line, 0)


def _literal(text: str) -> str | None:
    """The replacement text of a mishandled number token, else None."""
    if not mishandled(text):
        return None
    try:
        value = correct(text)
    except Refused:
        value = parse(text)  # refused by SPEC.md 1.4, read by the original: steer to its value
    return json.dumps(next(c for c in _shorter(value) if not mishandled(json.dumps(c))))
