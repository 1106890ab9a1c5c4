"""SchemaDigest: a stable fingerprint of a JSON value (SPEC.md 1.4).

Grants and core pins name the exact schema a decision was made against, so that a tool whose
schema later changes cannot ride on an old decision.  That needs a fingerprint that depends on
the JSON *value* only, never on how the text was written: whitespace, key order, escapes
(``"\\u0041"`` vs ``"A"``) and duplicate keys (last wins) must not matter, while every real
difference must.  Hashing the raw text would fail the first requirement; hashing a re-serialized
text would depend on a serializer's choices.  So the digest is the lowercase hex SHA-256 of a
canonical, length-framed encoding, written depth-first:

=========  ==================================================================================
null       byte 0
bool       byte 1, then byte 0 (false) or 1 (true)
number     byte 2, 8-byte little-endian length of the canonical number text, the text (ASCII)
string     byte 3, 8-byte LE length of the UTF-8 bytes, the bytes
array      byte 4, 8-byte LE element count, the elements in order
object     byte 5, 8-byte LE entry count, then per entry in ascending byte-wise order of the
           UTF-8 key bytes: byte 6, 8-byte LE key length, the key bytes, the value
=========  ==================================================================================

Every variable-length part carries its length, so no two different values share an encoding
(no separator or escaping ambiguities).  Numbers are encoded as text, which is how ``1`` (an
integer) and ``1.0`` (a double) keep different digests, exactly as in the original Rust
implementation: integers print in decimal, doubles as ryu prints them (see
:func:`canonical_number_text`).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from .json_value import (
    INT_MAX,
    INT_MIN,
    MAX_DEPTH,
    JsonInputError,
    JsonValue,
)

__all__ = [
    "SchemaDigest",
    "canonical_encoding",
    "canonical_number_text",
]

_TAG_NULL = b"\x00"
_TAG_BOOL = b"\x01"
_TAG_NUMBER = b"\x02"
_TAG_STRING = b"\x03"
_TAG_ARRAY = b"\x04"
_TAG_OBJECT = b"\x05"
_TAG_ENTRY = b"\x06"

# Decimal point positions (value = 0.d1...dn x 10**k) that ryu lays out without an exponent.
_PLAIN_K_MAX = 16
_FRACTION_K_MIN = -4


def _float_digits(value: float) -> tuple[str, int]:
    """Shortest round-trip digits ``d1...dn`` and point position ``k`` of a finite, non-zero float.

    ``repr`` already yields the shortest digit string that reads back as the same double (the
    same digits ryu finds); only its layout differs, so this takes ``repr`` apart into digits and
    position, and :func:`canonical_number_text` lays them out again.
    """
    text = repr(abs(value))
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    return stripped.rstrip("0"), point


def canonical_number_text(number: int | float) -> str:
    """The canonical text of a JSON number, as the original implementation printed it.

    An integer prints in decimal.  A double prints as ryu does: its shortest round-trip digits
    ``d1...dn`` with point position ``k`` become ``d1...dk.dk+1...dn`` (zero-padded, ``.0`` when
    nothing follows the point) for ``0 < k <= 16``, ``0.`` + ``-k`` zeros + the digits for
    ``-5 < k <= 0``, and ``d1[.d2...dn]e<k-1>`` otherwise; zero is ``0.0`` or ``-0.0``.  Thus
    ``1`` and ``1.0`` have different texts and different digests.

    Raises :class:`JsonInputError` for a bool, a non-finite float, or an integer outside
    ``[-2**63, 2**64 - 1]``; these have no JSON number text in this package.
    """
    if type(number) is int:
        if not INT_MIN <= number <= INT_MAX:
            raise JsonInputError("integer outside [-2**63, 2**64 - 1]")
        return str(number)
    if type(number) is not float:
        raise JsonInputError(f"not a JSON number: {type(number).__name__}")
    if not math.isfinite(number):
        raise JsonInputError(f"not a finite number: {number!r}")
    sign = "-" if math.copysign(1.0, number) < 0 else ""
    if number == 0:
        return sign + "0.0"
    digits, k = _float_digits(number)
    count = len(digits)
    if 0 < k <= _PLAIN_K_MAX:
        if count <= k:
            return sign + digits + "0" * (k - count) + ".0"
        return sign + digits[:k] + "." + digits[k:]
    if _FRACTION_K_MIN <= k <= 0:
        return sign + "0." + "0" * -k + digits
    fraction = "." + digits[1:] if count > 1 else ""
    return f"{sign}{digits[0]}{fraction}e{k - 1}"


def _frame(tag: bytes, length: int) -> bytes:
    return tag + length.to_bytes(8, "little")


def _utf8(text: str, what: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise JsonInputError(f"{what} contains a lone surrogate") from None


def _encode(value: object, depth: int, out: bytearray) -> None:
    """Append the encoding of ``value``; ``depth`` counts the containers enclosing it.

    Recursion is bounded by :data:`MAX_DEPTH`: a deeper (or self-referential) value is refused
    before the stack grows further.  Every invalid part raises :class:`JsonInputError`, so no
    digest is ever computed for something that is not a JSON value.
    """
    kind = type(value)
    if value is None:
        out += _TAG_NULL
    elif kind is bool:
        out += _TAG_BOOL + (b"\x01" if value else b"\x00")
    elif kind is int or kind is float:
        assert isinstance(value, int | float)
        text = canonical_number_text(value).encode("ascii")
        out += _frame(_TAG_NUMBER, len(text))
        out += text
    elif kind is str:
        assert isinstance(value, str)
        data = _utf8(value, "string")
        out += _frame(_TAG_STRING, len(data))
        out += data
    elif kind is list or kind is dict:
        if depth >= MAX_DEPTH:
            raise JsonInputError(f"nesting deeper than {MAX_DEPTH} levels")
        if isinstance(value, list):
            out += _frame(_TAG_ARRAY, len(value))
            for item in value:
                _encode(item, depth + 1, out)
        else:
            assert isinstance(value, dict)
            entries: list[tuple[bytes, object]] = []
            for key, item in value.items():
                if type(key) is not str:
                    raise JsonInputError(f"object key is not a string: {type(key).__name__}")
                entries.append((_utf8(key, "object key"), item))
            # Byte-wise order of the UTF-8 keys, as the original's BTreeMap<String, _> iterates.
            # (For valid Unicode this equals code-point order; it is not UTF-16 order.)  Keys are
            # unique, so the sort never has to compare the values.
            entries.sort(key=lambda entry: entry[0])
            out += _frame(_TAG_OBJECT, len(entries))
            for key_bytes, item in entries:
                out += _frame(_TAG_ENTRY, len(key_bytes))
                out += key_bytes
                _encode(item, depth + 1, out)
    else:
        raise JsonInputError(f"not a JSON value type: {kind.__name__}")


def canonical_encoding(value: JsonValue) -> bytes:
    """The canonical length-framed encoding that :meth:`SchemaDigest.of` hashes.

    Raises :class:`JsonInputError` if ``value`` is not a valid :data:`JsonValue`.
    """
    out = bytearray()
    _encode(value, 0, out)
    return bytes(out)


@dataclass(frozen=True, slots=True)
class SchemaDigest:
    """The digest of a tool's input schema, as grants, pins and records carry it.

    A plain value: equality is equality of ``hex``.  The constructor deliberately accepts any
    string, because a grant may be forged or corrupted ("00", "deadbeef") and the gate has to be
    able to hold such a digest in order to deny it; only :meth:`of` guarantees a real SHA-256.
    """

    hex: str

    @classmethod
    def of(cls, value: JsonValue) -> SchemaDigest:
        """Digest a JSON value: lowercase hex SHA-256 of :func:`canonical_encoding`.

        Raises :class:`JsonInputError` if ``value`` is not a valid :data:`JsonValue`.
        """
        return cls(hashlib.sha256(canonical_encoding(value)).hexdigest())

    def __str__(self) -> str:
        return self.hex
