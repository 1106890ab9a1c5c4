"""SPEC.md 1.4: the canonical length-framed encoding of a JSON value and its SchemaDigest.

Values are those `json_text` produces: ``int`` for integers, ``float`` for doubles.  A double's
text is its shortest round-trip digits laid out as ryu does (`number_text`).
"""

from __future__ import annotations

import hashlib
import struct
from typing import Any


def _shortest(x: float) -> tuple[str, int]:
    """Shortest round-trip digits d1..dn (no leading/trailing zeros) and the decimal point
    position k with |x| = 0.d1..dn x 10^k (Python's repr is the shortest round-trip form)."""
    text = repr(abs(x))
    mantissa, _, exp = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    k = len(whole) + (int(exp) if exp else 0)
    stripped = digits.lstrip("0")
    k -= len(digits) - len(stripped)
    return stripped.rstrip("0"), k


def number_text(value: int | float) -> str:
    """The canonical text of a number: an integer in decimal, a double in ryu's layout."""
    if not isinstance(value, float):
        return str(value)
    sign = "-" if str(value).startswith("-") else ""
    if value == 0.0:
        return sign + "0.0"
    digits, k = _shortest(value)
    n = len(digits)
    if 0 < k <= 16:
        padded = n <= k  # nothing after the point: zero-pad and append ".0"
        body = digits + "0" * (k - n) + ".0" if padded else digits[:k] + "." + digits[k:]
    elif -5 < k <= 0:
        body = "0." + "0" * (-k) + digits
    else:
        body = digits[0] + ("." + digits[1:] if n > 1 else "") + "e" + str(k - 1)
    return sign + body


def _frame(tag: int, length: int) -> bytes:
    return bytes([tag]) + struct.pack("<Q", length)


def encode(value: Any) -> bytes:
    """The canonical encoding, depth-first (iterative: values nest up to the parser's limit)."""
    out = bytearray()
    todo: list[Any] = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, _Key):
            out += _frame(6, len(v.data)) + v.data
        elif v is None:
            out += b"\x00"
        elif isinstance(v, bool):
            out += b"\x01\x01" if v else b"\x01\x00"
        elif isinstance(v, int | float):
            text = number_text(v).encode()
            out += _frame(2, len(text)) + text
        elif isinstance(v, str):
            data = v.encode("utf-8")
            out += _frame(3, len(data)) + data
        elif isinstance(v, list):
            out += _frame(4, len(v))
            todo.extend(reversed(v))
        elif isinstance(v, dict):
            out += _frame(5, len(v))
            entries = sorted((k.encode("utf-8"), k) for k in v)
            for data, key in reversed(entries):
                todo.append(v[key])
                todo.append(_Key(data))
        else:
            raise TypeError(f"not a JSON value: {type(v).__name__}")
    return bytes(out)


class _Key:
    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


def schema_digest(value: Any) -> str:
    """SchemaDigest: lowercase hex SHA-256 of the canonical encoding."""
    return hashlib.sha256(encode(value)).hexdigest()
