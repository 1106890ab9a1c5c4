"""SPEC.md 1.1 ToolId, 1.2 SessionId and 1.5 grant session text, as pure functions.

Errors are ``(code, payload)`` pairs with PROTOCOL.md's dotted code, raised as `IdentityError`.
"""

from __future__ import annotations

import hashlib
import unicodedata
from typing import Any, Final

TOOL_ID_MAX: Final = 200
NAMESPACE_MAX: Final = 64
NAME_MAX: Final = 128
SESSION_MAX: Final = 256
_FIRST: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_REST: Final = _FIRST | frozenset("_.-")


class IdentityError(Exception):
    def __init__(self, code: str, payload: dict[str, Any] | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.payload = payload or {}


def size(text: str) -> int:
    """UTF-8 byte length (SPEC.md: every length is a UTF-8 byte length)."""
    return len(text.encode("utf-8", "surrogatepass"))


def canonical_segment(text: str, budget: int) -> bool:
    """Non-empty, within budget, ``[a-z0-9]`` then ``[a-z0-9_.-]`` only."""
    return 0 < len(text) <= budget and text[0] in _FIRST and all(c in _REST for c in text[1:])


def parse_tool_id(raw: str) -> str:
    """`ToolId.parse`: the checks in SPEC.md's order; the text is kept verbatim."""
    if raw == "":
        raise IdentityError("ToolIdError.Empty")
    actual = size(raw)
    if actual > TOOL_ID_MAX:
        raise IdentityError("ToolIdError.Oversized", {"actual": actual, "limit": TOOL_ID_MAX})
    namespace, colon, name = raw.partition(":")
    if not colon:
        raise IdentityError("ToolIdError.MissingNamespace")
    if not canonical_segment(namespace, NAMESPACE_MAX):
        raise IdentityError("ToolIdError.InvalidNamespace")
    if not canonical_segment(name, NAME_MAX):
        raise IdentityError("ToolIdError.InvalidName")
    return raw


def encode_segment(raw: str, budget: int) -> str:
    """The source-aware encoding of one raw segment with byte budget B (SPEC.md 1.1, 1-3)."""
    if canonical_segment(raw, budget) and not raw.startswith(("enc-", "sha-")):
        return raw
    data = raw.encode("utf-8", "surrogatepass")
    hexed = "enc-" + data.hex()
    if len(hexed) <= budget:
        return hexed
    return "sha-" + hashlib.sha256(data).hexdigest()[:40]


def builtin(name: str) -> str:
    return "builtin:" + encode_segment(name, 128)


def unclassified(name: str) -> str:
    return "unknown:" + encode_segment(name, 128)


def extension(ext_id: str, tool: str) -> str:
    return "ext." + encode_segment(ext_id, 60) + ":" + encode_segment(tool, 128)


def mcp(server_id: str, tool: str) -> str:
    return "mcp." + encode_segment(server_id, 60) + ":" + encode_segment(tool, 128)


def plugin(plugin_id: str, tool: str) -> str:
    return "plugin." + encode_segment(plugin_id, 57) + ":" + encode_segment(tool, 128)


def is_control(ch: str) -> bool:
    """A Unicode control character: C0 (U+0000-U+001F), DEL (U+007F) or C1 (U+0080-U+009F)."""
    return unicodedata.category(ch) == "Cc"


def _session_rule(raw: str) -> tuple[str, dict[str, Any]] | None:
    if raw == "":
        return "Empty", {}
    actual = size(raw)
    if actual > SESSION_MAX:
        return "Oversized", {"actual": actual, "limit": SESSION_MAX}
    if any(is_control(c) for c in raw):
        return "ControlCharacters", {}
    return None


def parse_session(raw: str) -> str:
    """`SessionId.parse`: empty, oversized (256 bytes), control characters; no trimming."""
    broken = _session_rule(raw)
    if broken is not None:
        raise IdentityError(f"SessionIdError.{broken[0]}", broken[1])
    return raw


_GRANT_VARIANT: Final = {
    "Empty": "EmptySessionId",
    "Oversized": "OversizedSessionId",
    "ControlCharacters": "ControlCharacterSessionId",
}


def grant_session(raw: str) -> str:
    """Grant construction's session check: the SessionId rules as `ActivationGrantError.*`."""
    broken = _session_rule(raw)
    if broken is not None:
        raise IdentityError(f"ActivationGrantError.{_GRANT_VARIANT[broken[0]]}", broken[1])
    return raw
