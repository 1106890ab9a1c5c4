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
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from json import JSONDecodeError, JSONDecoder
from pathlib import Path
from typing import IO, Any, Final

from session_toolset_model.world.json_text import Malformed, number_value

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


def parse(text: str, name: str, number: int) -> tuple[str | None, RecordedLine] | None:
    """One line of ``name`` (``number`` is 1-based): its stream and content, or None if blank."""
    if not text.isascii() and _NOT_UTF8.search(text):
        raise LogLineError(f"{name}:{number}: not UTF-8")
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
