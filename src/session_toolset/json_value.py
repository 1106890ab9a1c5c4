"""Strict JSON layer: the one place where raw JSON text becomes a Python value.

A tool's input schema is hashed into a :class:`~session_toolset.digest.SchemaDigest`, and grants
and pins compare those digests.  The digest is only meaningful if every implementation agrees on
*which value* a text denotes, so this module pins the reading of SPEC.md section 1.4 down instead
of inheriting whatever :func:`json.loads` happens to accept:

* an integer literal in ``[-2**63, 2**64 - 1]`` stays an ``int``, except ``-0``, which is the
  double ``-0.0`` (the original stored it as a float);
* every other number (fraction, exponent, or an integer outside that range) becomes a correctly
  rounded ``float``; a literal whose exact value lies beyond the largest finite double is refused
  (so ``1e400`` and ``1.7976931348623158e308`` are refused although the latter would round to the
  largest double; the original refuses both);
* ``NaN``/``Infinity``, lone surrogates (escaped or raw), invalid UTF-8, raw control characters in
  strings, and nesting deeper than 127 containers are refused;
* a repeated object key keeps its last value.

Every refusal is a :class:`JsonInputError` whose message is short and never quotes more than a few
dozen characters of the input, because the text may come from an untrusted model or server and
ends up in logs and protocol replies.
"""

from __future__ import annotations

import json
import math
import re
import sys
from decimal import Decimal
from typing import TypeAlias, cast

__all__ = [
    "INT_MAX",
    "INT_MIN",
    "MAX_DEPTH",
    "JsonInputError",
    "JsonValue",
    "parse_json",
    "validate_json_value",
]

JsonValue: TypeAlias = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]
"""A JSON value as this package represents it (see SPEC.md 1.4 for the number rules)."""

MAX_DEPTH = 127
"""Deepest container nesting accepted: 127 nested arrays/objects parse, 128 are refused."""

INT_MIN = -(2**63)
"""Smallest integer literal kept as an ``int`` (i64 minimum)."""

INT_MAX = 2**64 - 1
"""Largest integer literal kept as an ``int`` (u64 maximum)."""

_MAX_MESSAGE_CHARS = 199
_SNIPPET_CHARS = 40
# The longest in-range integer literal: 20 digits (2**64 - 1) or a sign and 19 digits (-2**63).
# Anything longer is out of range; checking the length first also keeps ``int()`` away from
# Python's limit on digits in int/str conversion.
_MAX_INT_LITERAL_CHARS = 20
_FLOAT_MAX = sys.float_info.max
_DECIMAL_FLOAT_MAX = Decimal(_FLOAT_MAX)  # exact: Decimal(float) converts without rounding
# The grammar of a JSON number, ASCII digits only.  The C scanner already enforces it; checking
# again in the hooks makes the number rules independent of which scanner ``json`` picks.
_NUMBER_RE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?", re.ASCII)
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
# One backslash escape: backslash-u and four hex digits (group 1), or a backslash and any one
# character.  Matched left to right, each match consumes what it escapes, so an escaped backslash
# followed by "u" is never taken for the start of a unicode escape.
_ESCAPE_RE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)
# Characters that matter to the nesting pre-scan: brackets, and what delimits strings.
_STRUCTURE_RE = re.compile(r'[\[\]{}"\\]')
_EXACT_TYPES: frozenset[type] = frozenset({type(None), bool, int, float, str, list, dict})


class JsonInputError(ValueError):
    """The input is not a JSON value this package accepts.

    The message is capped at 199 characters so that a hostile input can never turn an error
    report into a large or log-forging string.
    """

    def __init__(self, message: str) -> None:
        if len(message) > _MAX_MESSAGE_CHARS:
            message = message[: _MAX_MESSAGE_CHARS - 3] + "..."
        super().__init__(message)


def _snippet(text: str) -> str:
    """Quote at most ~40 characters of untrusted input, escaped, for an error message."""
    shown = repr(text[:_SNIPPET_CHARS])
    limit = _SNIPPET_CHARS + 20  # room for quotes and a few escapes, never unbounded
    if len(text) > _SNIPPET_CHARS or len(shown) > limit:
        shown = shown[:limit] + "..."
    return shown


def _checked_float(literal: str) -> float:
    """Round a number literal correctly to a double, refusing values beyond the finite range.

    ``float()`` rounds correctly.  A result of infinity means the value is out of range; a
    result of exactly the largest double needs an exact comparison, because a literal slightly
    above the largest double still rounds down to it and is nonetheless beyond the range.
    """
    value = float(literal)
    # copy_abs(), not abs(): abs() rounds to the decimal context's 28 digits.
    if math.isinf(value) or (
        abs(value) == _FLOAT_MAX and Decimal(literal).copy_abs() > _DECIMAL_FLOAT_MAX
    ):
        raise JsonInputError(f"number out of range: {_snippet(literal)}")
    return value


def _parse_int_literal(literal: str) -> int | float:
    """``parse_int`` hook: keep in-range integers exact, map ``-0`` and the rest to doubles."""
    if _NUMBER_RE.fullmatch(literal) is None:
        raise JsonInputError(f"invalid number: {_snippet(literal)}")
    if literal == "-0":
        return -0.0
    if len(literal.lstrip("-")) <= _MAX_INT_LITERAL_CHARS:
        value = int(literal)
        if INT_MIN <= value <= INT_MAX:
            return value
    return _checked_float(literal)


def _parse_float_literal(literal: str) -> float:
    """``parse_float`` hook: a fraction or exponent always means a correctly rounded double."""
    if _NUMBER_RE.fullmatch(literal) is None:
        raise JsonInputError(f"invalid number: {_snippet(literal)}")
    return _checked_float(literal)


def _refuse_constant(name: str) -> JsonValue:
    """``parse_constant`` hook: ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON."""
    raise JsonInputError(f"not a JSON value: {name}")


def _build_object(pairs: list[tuple[str, JsonValue]]) -> dict[str, JsonValue]:
    """``object_pairs_hook``: a plain dict, so a repeated key keeps its last value."""
    return dict(pairs)


def _check_nesting(text: str) -> None:
    """Refuse text nested deeper than :data:`MAX_DEPTH` before the recursive parser sees it.

    This is a linear scan over brackets and string delimiters only; it never needs the text to
    be valid JSON (the parser judges that afterwards), it only has to count brackets outside
    strings the way the parser will.
    """
    depth = 0
    in_string = False
    skip_to = -1  # index of a character consumed by a backslash escape
    for match in _STRUCTURE_RE.finditer(text):
        position = match.start()
        if position == skip_to:
            continue
        char = match.group()
        if in_string:
            if char == "\\":
                skip_to = position + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise JsonInputError(f"nesting deeper than {MAX_DEPTH} levels")
        elif char in "]}":
            depth -= 1


def _check_surrogate_escapes(text: str) -> None:
    """Refuse a lone surrogate escape anywhere in the text.

    The walk over the parsed value (:func:`validate_json_value`) sees only what survives: a
    value that a repeated key discards is gone by then, yet a lone surrogate in it still makes
    the text invalid (SPEC.md 1.4; PROTOCOL.md: "anywhere in the line").  Escapes only occur
    inside strings of valid JSON, so pairing consecutive unicode escapes is exact: a high
    surrogate must be followed immediately by a low one, and a low one preceded by a high one.
    """
    pending_high = -1  # end offset of an unpaired high-surrogate escape
    for match in _ESCAPE_RE.finditer(text):
        hex_digits = match.group(1)
        unit = -1 if hex_digits is None else int(hex_digits, 16)
        if pending_high >= 0:
            if match.start() == pending_high and 0xDC00 <= unit <= 0xDFFF:
                pending_high = -1
                continue
            raise JsonInputError("lone surrogate escape")
        if 0xD800 <= unit <= 0xDBFF:
            pending_high = match.end()
        elif 0xDC00 <= unit <= 0xDFFF:
            raise JsonInputError("lone surrogate escape")
    if pending_high >= 0:
        raise JsonInputError("lone surrogate escape")


def parse_json(text: str | bytes) -> JsonValue:
    """Parse one JSON text under the strict rules of SPEC.md 1.4.

    Bytes must be UTF-8 (no BOM, no other encoding is guessed).  Raises :class:`JsonInputError`
    for anything that is not a valid JSON value under those rules; no other exception escapes
    for bad input.
    """
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            raise JsonInputError(f"invalid UTF-8 at byte {error.start}") from None
    if not isinstance(text, str):
        raise TypeError(f"parse_json expects str or bytes, not {type(text).__name__}")
    _check_nesting(text)
    if "\\u" in text:
        _check_surrogate_escapes(text)
    try:
        value: JsonValue = json.loads(
            text,
            parse_int=_parse_int_literal,
            parse_float=_parse_float_literal,
            parse_constant=_refuse_constant,
            object_pairs_hook=_build_object,
        )
    except JsonInputError:
        raise
    except json.JSONDecodeError as error:
        # ``msg`` is one of the json module's fixed phrases; it never contains input text.
        reason = error.msg.removesuffix(" at")
        raise JsonInputError(
            f"invalid JSON: {reason} at line {error.lineno} column {error.colno}"
        ) from None
    except RecursionError:
        raise JsonInputError(f"nesting deeper than {MAX_DEPTH} levels") from None
    except ValueError:
        raise JsonInputError("invalid JSON") from None
    # Numbers are already checked by the hooks; this walk finds lone surrogates (which
    # ``json`` decodes from ``\ud800`` escapes without complaint) and re-checks the depth.
    return validate_json_value(value)


def _check_str(value: str, what: str) -> None:
    # No snippet here: repr() would spell the surrogate as the very escape the input used,
    # and the position is all a caller needs.
    found = _SURROGATE_RE.search(value)
    if found is not None:
        raise JsonInputError(f"{what} contains a lone surrogate at index {found.start()}")


def _check(value: object, depth: int) -> None:
    """Recursive validation; ``depth`` counts the containers enclosing ``value``.

    The recursion stops at :data:`MAX_DEPTH` + 1 frames, so even a self-referential list is
    refused cleanly rather than exhausting the stack.
    """
    kind = type(value)
    if kind not in _EXACT_TYPES:
        raise JsonInputError(f"not a JSON value type: {kind.__name__}")
    # From here on the type is exact, so isinstance() only narrows; bool precedes int.
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            raise JsonInputError("integer outside [-2**63, 2**64 - 1]")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise JsonInputError(f"not a finite number: {value!r}")
    elif isinstance(value, str):
        _check_str(value, "string")
    elif depth >= MAX_DEPTH:
        raise JsonInputError(f"nesting deeper than {MAX_DEPTH} levels")
    elif isinstance(value, list):
        for item in value:
            _check(item, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            if type(key) is not str:
                raise JsonInputError(f"object key is not a string: {type(key).__name__}")
            _check_str(key, "object key")
            _check(item, depth + 1)


def validate_json_value(value: object) -> JsonValue:
    """Check that an already-built Python object is a :data:`JsonValue`, and return it.

    Accepted: ``None``, ``bool``, ``int`` in ``[-2**63, 2**64 - 1]``, finite ``float``, ``str``
    without lone surrogates, ``list`` and ``dict`` with ``str`` keys, at most 127 containers
    deep.  Types must match exactly (no subclasses, no tuples): a subclass could override the
    methods the digest relies on, and the digest must depend on the JSON value alone.  ``True``
    and ``False`` are booleans, never the integers 1 and 0.
    """
    _check(value, 0)
    return cast("JsonValue", value)
