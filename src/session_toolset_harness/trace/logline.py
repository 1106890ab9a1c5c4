"""The trace log format: JSON Lines, one ``{"request": ..., "reply": ...}`` object per line.

``request`` is a PROTOCOL.md request object, ``reply`` the reply the runtime observed; an
optional ``stream`` (a string) names the partition the line belongs to; every other key (times,
runtime ids) is ignored.  Blank lines are skipped.  Anything else - text that is not JSON, a line
that is not an object, a missing or non-object ``request``/``reply``, a non-string ``stream`` -
is a `LogLineError` naming the file and the line.

The request is read as an adapter reads a request line (SPEC.md 1.4): ``-0`` is the double
-0.0 (lines holding ``-0`` are read with SPEC.md's number rules, the others the fast way); an
integer outside [-2^63, 2^64-1] and a number beyond the finite double range (an infinity here)
are left for the checker, which reads such a request exactly as its line would be read.

Nesting is bounded: a container deeper than `KEPT_LEVELS` levels of the line (the line object
is level 1, its ``request`` level 2) is validated as JSON but not kept.  In ``request`` it is
beyond the 127 levels SPEC.md 1.4 requires, so the request's answer is open whatever the
container holds, and it is kept as an empty list at the same level (still too deep), or as the
first value in it that makes a request line malformed (a lone surrogate escape, a number beyond
the double range), which decides the reply wherever it is.  Elsewhere (the reply, ignored keys)
it becomes the string `CUT`: no reply the model gives is that deep, so no comparison reaches it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from json import JSONDecodeError, JSONDecoder
from pathlib import Path
from typing import IO, Any, Final

from session_toolset_model.world.json_text import Malformed, number_value

KEPT_LEVELS: Final = 128
CUT: Final = f"(nested deeper than {KEPT_LEVELS} levels of the log line: not kept)"

STREAM_KEY: Final = "stream"
# The one number spelling whose meaning Python's reading loses: -0 (an int 0 there, the double
# -0.0 in SPEC.md 1.4).  The other differences survive the reading and the checker sees them
# in the value: an integer outside [-2^63, 2^64-1], an infinity from an overflowing literal.
_NEGATIVE_ZERO: Final = re.compile(r"-0(?![.\deE])")
# Logs are opened with errors="surrogateescape": a byte that is not UTF-8 becomes one of these
# code points, which decoded UTF-8 never holds, so the line it is on can be named.
_NOT_UTF8: Final = re.compile("[\udc80-\udcff]")


@dataclass(frozen=True)
class RecordedLine:
    """One line of a log: its 1-based line number, the request sent and the reply observed."""

    line: int
    request: dict[str, Any]
    reply: dict[str, Any]


class LogLineError(ValueError):
    """A line that is not a trace line, or a log that cannot be read (exit status 2)."""


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _literal(text: str) -> int | float:
    try:
        return number_value(text)
    except Malformed:
        return math.inf if not text.startswith("-") else -math.inf


_FAST: Final = JSONDecoder(parse_constant=_refuse_constant)
_SPEC: Final = JSONDecoder(
    parse_constant=_refuse_constant, parse_int=_literal, parse_float=_literal
)


# One JSON token, after optional whitespace: an open or close bracket, a separator, a string,
# a number or a literal (the json module's grammar: it refuses the other constants).
_TOKEN: Final = re.compile(
    r"[ \t\n\r]*(?:([\[{])|([\]}])|([,:])"
    r'|("(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")'
    r"|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)|(true|false|null))"
)
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _malformed_scalar(token: str, is_string: bool) -> bool:
    """A string or number token that makes a request line malformed (SPEC.md 1.4)."""
    if is_string:
        return "\\u" in token and _LONE_SURROGATE.search(_FAST.decode(token)) is not None
    try:
        number_value(token)
    except Malformed:
        return True
    return False


def shallow(text: str) -> str:
    """``text`` with every container deeper than `KEPT_LEVELS` replaced as the module says,
    validated without recursion; ``ValueError`` if it is not JSON."""
    pieces: list[str] = []
    kept_from = 0
    stack: list[str] = []
    expect = "value"  # value | value-or-close | key | key-or-close | colon | next
    key: str | None = None  # the line object's key whose value is being read
    cut_at = -1  # where the container being cut opens
    bad: str | None = None  # its first token that makes a request line malformed
    at = 0
    while True:
        match = _TOKEN.match(text, at)
        if match is None:
            if not stack and expect == "next" and not text[at:].strip(" \t\n\r"):
                break
            raise ValueError(f"invalid JSON at offset {at}")
        opener, closer, separator, string, number, _ = match.groups()
        at = match.end()
        if opener:
            if expect not in ("value", "value-or-close"):
                raise ValueError(f"unexpected {opener!r} at offset {at - 1}")
            stack.append(opener)
            expect = "key-or-close" if opener == "{" else "value-or-close"
            if len(stack) == KEPT_LEVELS + 1:
                cut_at, bad = at - 1, None
        elif closer:
            want = "]" if stack and stack[-1] == "[" else "}"
            if (
                not stack
                or closer != want
                or expect not in ("next", "value-or-close", "key-or-close")
            ):
                raise ValueError(f"unexpected {closer!r} at offset {at - 1}")
            if len(stack) == KEPT_LEVELS + 1:
                pieces.append(text[kept_from:cut_at])
                if key == "request":
                    pieces.append("[]" if bad is None else bad)
                else:
                    pieces.append(json.dumps(CUT))
                kept_from = at
            stack.pop()
            expect = "next"
        elif separator == ",":
            if expect != "next" or not stack:
                raise ValueError(f"unexpected ',' at offset {at - 1}")
            expect = "value" if stack[-1] == "[" else "key"
        elif separator == ":":
            if expect != "colon":
                raise ValueError(f"unexpected ':' at offset {at - 1}")
            expect = "value"
        elif expect in ("key", "key-or-close"):
            if string is None:
                raise ValueError(f"object key expected at offset {match.start()}")
            if len(stack) == 1:
                key = _FAST.decode(string)
            expect = "colon"
        elif expect in ("value", "value-or-close"):
            expect = "next"
        else:
            raise ValueError(f"unexpected value at offset {match.start()}")
        token = string or number
        if (
            token
            and bad is None
            and len(stack) > KEPT_LEVELS
            and _malformed_scalar(token, bool(string))
        ):
            bad = token
    pieces.append(text[kept_from:])
    return "".join(pieces)


def parse(text: str, name: str, number: int) -> tuple[str | None, RecordedLine] | None:
    """One line of ``name`` (``number`` is 1-based): its stream and content, or None if blank."""
    if not text.isascii() and _NOT_UTF8.search(text):
        raise LogLineError(f"{name}:{number}: not UTF-8")
    if len(text) > 2 * KEPT_LEVELS and text.count("[") + text.count("{") > KEPT_LEVELS:
        try:  # perhaps nested deeper than is kept
            text = shallow(text)
        except ValueError as err:
            raise LogLineError(f"{name}:{number}: not JSON ({err})") from None
    decoder = _SPEC if "-0" in text and _NEGATIVE_ZERO.search(text) else _FAST
    try:
        value = decoder.decode(text)
    except (JSONDecodeError, ValueError, RecursionError) as err:
        if not text.strip():
            return None
        raise LogLineError(f"{name}:{number}: not JSON ({err})") from None
    if type(value) is not dict:
        raise LogLineError(f"{name}:{number}: a line must be a JSON object")
    request, reply = value.get("request"), value.get("reply")
    if type(request) is not dict or type(reply) is not dict:
        which = "request" if type(request) is not dict else "reply"
        missing = which not in value
        raise LogLineError(
            f"{name}:{number}: {'no' if missing else 'a non-object'} {which!r}"
            + ("" if missing else " (it must be a JSON object)")
        )
    stream = value.get(STREAM_KEY)
    if stream is not None and type(stream) is not str:
        raise LogLineError(f"{name}:{number}: {STREAM_KEY!r} must be a string")
    return stream, RecordedLine(number, request, reply)


def read(source: IO[str], name: str) -> Iterator[tuple[str | None, RecordedLine]]:
    """Every trace line of an open log, streamed (one line in memory at a time)."""
    number = 0
    try:
        for text in source:
            number += 1
            parsed = parse(text, name, number)
            if parsed is not None:
                yield parsed
    except UnicodeDecodeError as err:
        raise LogLineError(f"{name}:{number + 1}: not UTF-8 ({err.reason})") from None
    except OSError as err:
        raise LogLineError(f"{name}: cannot read: {err.strerror or err}") from None


def open_log(name: str, stdin: IO[str]) -> IO[str]:
    """The log ``name`` opened for reading (``-``: ``stdin``); `LogLineError` if it cannot be."""
    if name == "-":
        reconfigure = getattr(stdin, "reconfigure", None)
        if reconfigure is not None:  # bytes that are not UTF-8 are then named by their line
            reconfigure(errors="surrogateescape")
        return stdin
    try:
        return Path(name).open(encoding="utf-8", errors="surrogateescape", newline="\n")
    except OSError as err:
        raise LogLineError(f"{name}: cannot open: {err.strerror or err}") from None
