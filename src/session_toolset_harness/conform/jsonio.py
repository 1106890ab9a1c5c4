"""JSON text in and out, with the strictness the protocol needs.

Python's ``json`` already keeps ``1.0`` a float and big integers exact, which the subset rule and
u64 generations rely on; what it adds on top of JSON (``NaN``, ``Infinity``) is refused here so an
adapter cannot pass by printing something that is not JSON. Display helpers bound every rendering
so a 64 KiB wire name cannot flood a failure report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

DISPLAY_LIMIT: Final = 2048


@dataclass(frozen=True)
class RawLine:
    """A request line sent byte for byte as a vector writes it (PROTOCOL.md ``send_line`` /
    ``send_hex``), for what a JSON object cannot say: blank or malformed lines, repeated keys,
    escapes, number spellings, bytes that are not UTF-8.  ``data`` holds no newline."""

    data: bytes
    hex: bool = False
    """Written as ``send_hex`` (else ``send_line``): reports show it the way the vector does."""

    def to_json(self) -> dict[str, str]:
        """The step key and value this line came from, for reports."""
        if self.hex:
            return {"send_hex": self.data.hex()}
        return {"send_line": self.data.decode("utf-8", errors="replace")}

    def request(self) -> object:
        """The JSON value the line holds when it is JSON at all (for the op it names), else
        None.  Read as the runner reads replies; the adapter's own verdict is what counts."""
        try:
            return parse_strict(self.data.decode("utf-8"))
        except (UnicodeDecodeError, JsonTextError):
            return None


class JsonTextError(ValueError):
    """The text is not one strict JSON value."""


def _refuse_constant(name: str) -> object:
    raise JsonTextError(f"{name} is not JSON")


def parse_strict(text: str) -> object:
    """Parse one JSON value, refusing the non-standard constants NaN and ±Infinity."""
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except JsonTextError:
        raise
    except (json.JSONDecodeError, RecursionError) as exc:
        raise JsonTextError(str(exc)) from exc


def encode_line(value: object) -> bytes:
    """One request line, newline-terminated: a `RawLine` as written, else compact JSON in raw
    UTF-8 (exercising the adapter's UTF-8), ASCII escapes where a lone surrogate forbids it."""
    if isinstance(value, RawLine):
        return value.data + b"\n"
    return encode_value_line(value)[0]


def encode_value_line(value: object) -> tuple[bytes, bool]:
    """`encode_line` of a JSON value, and whether it went out as raw UTF-8 (False: a lone
    surrogate forced the ASCII escapes)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8") + b"\n", True
    except UnicodeEncodeError:
        escaped = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
        return escaped.encode("ascii") + b"\n", False


def render(value: object, limit: int = DISPLAY_LIMIT) -> str:
    """Compact JSON for humans, cut to ``limit`` characters with a marker saying how much."""
    if isinstance(value, RawLine):
        value = value.to_json()
    try:
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), sort_keys=False)
    except (TypeError, ValueError):
        text = repr(value)
    return truncate(text, limit)


def truncate(text: str, limit: int = DISPLAY_LIMIT) -> str:
    """Cut ``text`` to at most ``limit`` characters, saying how many were dropped."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


_JSON_TYPES: Final[dict[type, str]] = {
    **{bool: "boolean", int: "integer", float: "number", str: "string"},
    **{list: "array", dict: "object"},
}


def json_type(value: object) -> str:
    """The JSON type name of a parsed value (bool before int: a bool is an int in Python)."""
    if value is None:
        return "null"
    found = (name for kind, name in _JSON_TYPES.items() if isinstance(value, kind))
    return next(found, type(value).__name__)
