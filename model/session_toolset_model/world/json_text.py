"""SPEC.md 1.4's JSON input rules, as PROTOCOL.md applies them to a whole request line.

`parse_line(data)` reads one line (bytes, without its newline) into plain values: ``None``,
``bool``, ``int`` (an integer literal in [-2^63, 2^64-1]), ``float`` (every other number, and
``-0``), ``str``, ``list``, ``dict`` (a repeated key keeps its last value).  Anything that is not
strict JSON text raises `Malformed`: invalid UTF-8, whitespace other than space/tab/CR/LF, a
literal control character inside a string, a lone surrogate escape, a number whose exact decimal
value is beyond the finite double range, trailing text.  The parser is iterative, so it also
reports the deepest nesting seen (`Parsed.depth`; the request object itself is level 1): SPEC.md
requires 127 levels to be accepted and leaves deeper input open, which the caller decides.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**64 - 1
MAX_DEPTH: Final = 127
_DBL_MAX: Final = Decimal(sys.float_info.max)  # exact: a double's decimal expansion is finite
_WS: Final = " \t\r\n"
_ESCAPES: Final = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_DIGITS: Final = "0123456789"


class Malformed(ValueError):
    """The text is not one strict JSON value (PROTOCOL.md: the line is malformed)."""


@dataclass(frozen=True)
class Parsed:
    value: Any
    depth: int


def number_value(text: str) -> int | float:
    """SPEC.md 1.4: an integer literal in range stays an integer (``-0`` is the double -0.0);
    every other number is the correctly rounded double, refused beyond the finite range."""
    integral = not any(c in text for c in ".eE")
    if integral and text == "-0":
        return -0.0
    if integral and len(text) <= 21:  # longer literals are far outside [-2^63, 2^64-1]
        value = int(text)
        if INT_MIN <= value <= INT_MAX:
            return value
    if Decimal(text).copy_abs() > _DBL_MAX:  # copy_abs is exact; abs() rounds to 28 digits
        raise Malformed("number beyond the finite double range")
    return float(text)


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.depth = 0

    def fail(self, what: str) -> Malformed:
        return Malformed(f"{what} at offset {self.i}")

    def ws(self) -> None:
        t, n = self.text, len(self.text)
        while self.i < n and t[self.i] in _WS:
            self.i += 1

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            raise self.fail(f"expected {ch!r}")
        self.i += 1

    def literal(self, word: str, value: Any) -> Any:
        if not self.text.startswith(word, self.i):
            raise self.fail("invalid literal")
        self.i += len(word)
        return value

    def number(self) -> int | float:
        t, start = self.text, self.i
        if self.peek() == "-":
            self.i += 1
        if self.peek() == "0":
            self.i += 1
        elif self.peek() and self.peek() in "123456789":
            self._digits()
        else:
            raise self.fail("invalid number")
        if self.peek() == ".":
            self.i += 1
            if not self._digits():
                raise self.fail("digits expected after '.'")
        if self.peek() in ("e", "E"):
            self.i += 1
            if self.peek() in ("+", "-"):
                self.i += 1
            if not self._digits():
                raise self.fail("digits expected in exponent")
        return number_value(t[start : self.i])

    def _digits(self) -> int:
        start = self.i
        t, n = self.text, len(self.text)
        while self.i < n and t[self.i] in _DIGITS:
            self.i += 1
        return self.i - start

    def _hex4(self) -> int:
        chunk = self.text[self.i : self.i + 4]
        if len(chunk) != 4 or any(c not in "0123456789abcdefABCDEF" for c in chunk):
            raise self.fail("invalid \\u escape")
        self.i += 4
        return int(chunk, 16)

    def string(self) -> str:
        self.expect('"')
        t, n = self.text, len(self.text)
        out: list[str] = []
        while True:
            start = self.i
            while self.i < n and t[self.i] not in '"\\' and t[self.i] >= " ":
                self.i += 1
            out.append(t[start : self.i])
            if self.i >= n:
                raise self.fail("unterminated string")
            ch = t[self.i]
            if ch == '"':
                self.i += 1
                return "".join(out)
            if ch != "\\":
                raise self.fail("control character in string")
            self.i += 1
            esc = self.peek()
            self.i += 1
            if esc in _ESCAPES:
                out.append(_ESCAPES[esc])
            elif esc == "u":
                out.append(self._unicode_escape())
            else:
                raise self.fail("invalid escape")

    def _unicode_escape(self) -> str:
        unit = self._hex4()
        if 0xDC00 <= unit <= 0xDFFF:
            raise self.fail("lone low surrogate escape")
        if 0xD800 <= unit <= 0xDBFF:
            if not self.text.startswith("\\u", self.i):
                raise self.fail("lone high surrogate escape")
            self.i += 2
            low = self._hex4()
            if not 0xDC00 <= low <= 0xDFFF:
                raise self.fail("lone high surrogate escape")
            return chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
        return chr(unit)

    def scalar(self) -> Any:
        ch = self.peek()
        if ch == '"':
            return self.string()
        if ch == "t":
            return self.literal("true", True)
        if ch == "f":
            return self.literal("false", False)
        if ch == "n":
            return self.literal("null", None)
        return self.number()

    def key(self) -> str:
        self.ws()
        if self.peek() != '"':
            raise self.fail("object key expected")
        key = self.string()
        self.ws()
        self.expect(":")
        self.ws()
        return key

    def value(self) -> Any:
        """One JSON value, iteratively (an explicit stack of open containers)."""
        stack: list[tuple[Any, list[str]]] = []
        while True:
            ch = self.peek()
            value: Any
            if ch in ("{", "["):
                self.i += 1
                self.depth = max(self.depth, len(stack) + 1)
                self.ws()
                close = "}" if ch == "{" else "]"
                if self.peek() == close:
                    self.i += 1
                    value = {} if ch == "{" else []
                else:
                    container: Any = {} if ch == "{" else []
                    stack.append((container, [self.key()] if ch == "{" else []))
                    continue
            else:
                value = self.scalar()
            while True:  # attach the finished value to its container, closing what ends here
                if not stack:
                    return value
                container, key = stack[-1]
                if isinstance(container, dict):
                    container[key[0]] = value
                else:
                    container.append(value)
                self.ws()
                ch = self.peek()
                self.i += 1
                if ch == ",":
                    if isinstance(container, dict):
                        key[0] = self.key()
                    else:
                        self.ws()
                    break
                if ch == ("}" if isinstance(container, dict) else "]"):
                    value = container
                    stack.pop()
                    continue
                self.i -= 1
                raise self.fail("expected ',' or a closing bracket")


def parse_text(text: str) -> Parsed:
    reader = _Reader(text)
    reader.ws()
    value = reader.value()
    reader.ws()
    if reader.i != len(text):
        raise reader.fail("trailing text")
    return Parsed(value, reader.depth)


def parse_line(data: bytes) -> Parsed:
    """One request line's bytes (no newline) as a JSON value, or `Malformed`."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Malformed("not UTF-8") from None
    return parse_text(text)
