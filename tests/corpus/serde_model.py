"""How the original implementation's JSON parser reads a number literal (SPEC.md 1.4's declared
difference), so the corpus can say which vectors depend on a literal it mishandles.

The original parses with serde_json 1.0.87 built without ``float_roundtrip`` (reference/digest.json
``description``).  Its number reader, restated here as an independent description: it
accumulates decimal digits into a u64 significand; when the next digit would overflow u64, the
remaining integer digits only raise a decimal exponent and further fraction digits are dropped;
then the value is ``f64(significand)`` multiplied or divided by ``10^|exponent|`` taken from a table
of doubles ``1e0`` .. ``1e308`` (dividing by ``1e308`` first while the exponent is below -308) —
two roundings, not one — and an infinite product is "number out of range".  An integer without
fraction or exponent stays a u64, or an i64 when negative (``-0`` and anything below -2^63 become a
double).  ``tests/corpus/test_declared_differences.py`` checks this description against every
digest the original recorded, the mis-rounded ``notes`` and the ``rejected`` overflows included.
"""

from __future__ import annotations

from typing import Final

U64_MAX: Final = 2**64 - 1
I32_MAX: Final = 2**31 - 1
_POW10: Final = [float(f"1e{i}") for i in range(309)]  # each correctly rounded, like Rust's table


class OutOfRange(ValueError):
    """serde_json's ``number out of range``."""


def _overflows(significand: int, digit: int, limit: int) -> bool:
    return significand * 10 + digit > limit


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def digit(self) -> int | None:
        char = self.peek()
        return int(char) if char and char in "0123456789" else None


def parse(literal: str) -> int | float:
    """The value serde_json 1.0.87 gives a JSON number literal; raises :class:`OutOfRange`."""
    reader = _Reader(literal)
    positive = True
    if reader.peek() == "-":
        positive = False
        reader.pos += 1
    first = reader.digit()
    assert first is not None, literal
    reader.pos += 1
    significand = first
    if first != 0:
        while (digit := reader.digit()) is not None:
            if _overflows(significand, digit, U64_MAX):
                return _long_integer(reader, positive, significand)
            reader.pos += 1
            significand = significand * 10 + digit
    return _number(reader, positive, significand)


def _number(reader: _Reader, positive: bool, significand: int) -> int | float:
    char = reader.peek()
    if char == ".":
        return _decimal(reader, positive, significand, 0)
    if char in ("e", "E"):
        return _exponent(reader, positive, significand, 0)
    if positive:
        return significand
    if significand == 0 or significand > 2**63:
        return -float(significand)  # "-0" and values below i64::MIN: a double
    return -significand


def _long_integer(reader: _Reader, positive: bool, significand: int) -> float:
    exponent = 0
    while reader.digit() is not None:
        reader.pos += 1
        exponent += 1
    char = reader.peek()
    if char == ".":
        return _decimal(reader, positive, significand, exponent)
    if char in ("e", "E"):
        return _exponent(reader, positive, significand, exponent)
    return _from_parts(positive, significand, exponent)


def _decimal(reader: _Reader, positive: bool, significand: int, exponent: int) -> float:
    reader.pos += 1  # the point
    while (digit := reader.digit()) is not None:
        if _overflows(significand, digit, U64_MAX):
            while reader.digit() is not None:  # every further digit is dropped
                reader.pos += 1
            break
        reader.pos += 1
        significand = significand * 10 + digit
        exponent -= 1
    if reader.peek() in ("e", "E"):
        return _exponent(reader, positive, significand, exponent)
    return _from_parts(positive, significand, exponent)


def _exponent(reader: _Reader, positive: bool, significand: int, starting: int) -> float:
    reader.pos += 1  # the e
    positive_exp = True
    if reader.peek() in ("+", "-"):
        positive_exp = reader.peek() == "+"
        reader.pos += 1
    value = reader.digit()
    assert value is not None, reader.text
    reader.pos += 1
    while (digit := reader.digit()) is not None:
        if _overflows(value, digit, I32_MAX):
            if significand != 0 and positive_exp:
                raise OutOfRange(reader.text)
            return 0.0 if positive else -0.0
        reader.pos += 1
        value = value * 10 + digit
    exponent = starting + value if positive_exp else starting - value
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
