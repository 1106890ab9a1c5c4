"""Protocol rules every reply must follow, whatever the vector expects.

A vector's ``expect`` is a subset and never mentions ``message``, so a reply could match while
breaking PROTOCOL.md's shape rules. These checks close that gap: ``ok`` is a boolean, a rejection
carries string ``error`` and ``message``, and a gate denial's message stays under 512 bytes
(SPEC.md section 4 bounds denial messages; the runner checks the bound, never the wording).
"""

from __future__ import annotations

from session_toolset_harness.conform.codes import GATE_DENIAL_PREFIX, GATE_MESSAGE_LIMIT_BYTES
from session_toolset_harness.conform.jsonio import RawLine


def reply_problem(reply: dict[str, object]) -> tuple[str, str] | None:
    """``(json_path, message)`` for the first protocol rule the reply breaks, or None."""
    ok = reply.get("ok")
    if not isinstance(ok, bool):
        return "$.ok", "every reply must carry a boolean ok"
    if ok:
        return None
    error = reply.get("error")
    if not isinstance(error, str):
        return "$.error", "a rejection (ok: false) must carry a string error"
    message = reply.get("message")
    if not isinstance(message, str):
        return "$.message", "a rejection (ok: false) must carry a string message"
    if error.startswith(GATE_DENIAL_PREFIX):
        size = len(message.encode("utf-8", errors="surrogatepass"))
        if size >= GATE_MESSAGE_LIMIT_BYTES:
            return (
                "$.message",
                f"gate denial message is {size} bytes; it must stay under "
                f"{GATE_MESSAGE_LIMIT_BYTES}",
            )
    return None


def outcome(reply: dict[str, object]) -> str:
    """The coverage outcome of a reply: ``ok``, its error code, or ``invalid``."""
    if reply.get("ok") is True:
        return "ok"
    error = reply.get("error")
    return error if isinstance(error, str) else "invalid"


def op_of(request: object) -> str:
    """The op a request (or a raw line's JSON) names, or a placeholder when it names none."""
    if isinstance(request, RawLine):
        request = request.request()
        if request is None:
            return "<not JSON>"
    if isinstance(request, dict):
        op = request.get("op")
        if isinstance(op, str):
            return op
        return "<no op>"
    return "<not an object>"
