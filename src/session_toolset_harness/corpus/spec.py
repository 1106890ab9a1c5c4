"""Small, independent renderings of SPEC.md rules the corpus needs to compute expectations.

Nothing here imports :mod:`session_toolset`: every function is written from the SPEC.md text so
that the corpus stays an independent statement of the specification.  It covers only what the
vectors need: segment encoding and derived ToolIds (SPEC.md 1.1), the canonical SchemaDigest
(SPEC.md 1.4) and the 128-byte wire-name bound (SPEC.md 4).
"""

from __future__ import annotations

import decimal
import hashlib
import re
import struct
from typing import Final

from session_toolset_harness.corpus.dsl import Json

U64_MAX: Final = 2**64 - 1
I64_MIN: Final = -(2**63)
WIRE_NAME_MAX_BYTES: Final = 128

_CANONICAL: Final = re.compile(r"[a-z0-9][a-z0-9_.-]*")


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def is_canonical(segment: str, budget: int) -> bool:
    """SPEC.md 1.1: non-empty, within budget, ``[a-z0-9]`` then ``[a-z0-9_.-]``."""
    return 0 < utf8_len(segment) <= budget and _CANONICAL.fullmatch(segment) is not None


def enc(raw: str, budget: int) -> str:
    """SPEC.md 1.1 segment encoding with byte budget ``budget``."""
    if is_canonical(raw, budget) and not raw.startswith(("enc-", "sha-")):
        return raw
    data = raw.encode("utf-8")
    hexed = "enc-" + data.hex()
    if len(hexed) <= budget:
        return hexed
    return "sha-" + hashlib.sha256(data).hexdigest()[:40]


def derived_id(source: dict[str, str]) -> str:
    """The source-aware constructor of SPEC.md 1.1 for a PROTOCOL.md SOURCE value."""
    kind = source["kind"]
    if kind == "builtin":
        return "builtin:" + enc(source["name"], 128)
    if kind == "unknown":
        return "unknown:" + enc(source["runtime_name"], 128)
    if kind == "extension":
        return "ext." + enc(source["extension_id"], 60) + ":" + enc(source["tool_name"], 128)
    if kind == "mcp":
        return "mcp." + enc(source["server_id"], 60) + ":" + enc(source["server_tool_name"], 128)
    if kind == "plugin":
        return "plugin." + enc(source["plugin_id"], 57) + ":" + enc(source["tool_name"], 128)
    raise ValueError(kind)


def bound_wire(wire_name: str, limit: int = WIRE_NAME_MAX_BYTES) -> str:
    """Longest prefix of ``wire_name`` within ``limit`` UTF-8 bytes, cut on a char boundary."""
    out: list[str] = []
    size = 0
    for char in wire_name:
        width = utf8_len(char)
        if size + width > limit:
            break
        out.append(char)
        size += width
    return "".join(out)


# --- SPEC.md 1.4 SchemaDigest ------------------------------------------------------------------


def number_text(value: int | float) -> str:
    """Canonical text of a parsed JSON number (SPEC.md 1.4)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if I64_MIN <= value <= U64_MAX:
            return str(value)
        value = float(value)
    if value == 0.0:
        return "-0.0" if struct.pack(">d", value)[0] & 0x80 else "0.0"
    # repr() yields the shortest round-trip digits; re-derive them as digits and exponent k with
    # value = 0.d1...dn x 10^k, then lay them out the way SPEC.md describes.
    sign, digit_tuple, exponent = decimal.Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(str(d) for d in digit_tuple)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    digits = stripped.lstrip("0")
    k = len(digits) + exponent
    prefix = "-" if sign else ""
    if 0 < k <= 16:
        if len(digits) <= k:
            return prefix + digits + "0" * (k - len(digits)) + ".0"
        return prefix + digits[:k] + "." + digits[k:]
    if -5 < k <= 0:
        return prefix + "0." + "0" * (-k) + digits
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return prefix + mantissa + "e" + str(k - 1)


def _u64le(n: int) -> bytes:
    return struct.pack("<Q", n)


def canonical_bytes(value: Json) -> bytes:
    """The length-framed canonical encoding of SPEC.md 1.4."""
    if value is None:
        return b"\x00"
    if isinstance(value, bool):
        return b"\x01" + (b"\x01" if value else b"\x00")
    if isinstance(value, int | float):
        text = number_text(value).encode("ascii")
        return b"\x02" + _u64le(len(text)) + text
    if isinstance(value, str):
        data = value.encode("utf-8")
        return b"\x03" + _u64le(len(data)) + data
    if isinstance(value, list):
        return b"\x04" + _u64le(len(value)) + b"".join(canonical_bytes(v) for v in value)
    if isinstance(value, dict):
        entries = sorted(((k.encode("utf-8"), v) for k, v in value.items()), key=lambda e: e[0])
        body = b"".join(b"\x06" + _u64le(len(k)) + k + canonical_bytes(v) for k, v in entries)
        return b"\x05" + _u64le(len(entries)) + body
    raise TypeError(type(value).__name__)


def digest(value: Json) -> str:
    """Lowercase hex SHA-256 of :func:`canonical_bytes`."""
    return hashlib.sha256(canonical_bytes(value)).hexdigest()
