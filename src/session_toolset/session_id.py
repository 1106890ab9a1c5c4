"""``SessionId``: the runtime session a tool set and its grants belong to (SPEC.md §1.2).

Session ids come from hosts and logs, so the rules are about safety, not shape: non-empty, at
most 256 UTF-8 bytes, and free of control characters (which could forge log lines or terminal
output).  Nothing is trimmed or normalized: two texts are the same session only if equal.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Final

from .errors import SessionIdControlCharacters, SessionIdEmpty, SessionIdOversized

__all__ = ["SESSION_ID_MAX_BYTES", "SessionId", "has_control_characters"]

SESSION_ID_MAX_BYTES: Final = 256


def has_control_characters(text: str) -> bool:
    """True when ``text`` has a C0, DEL or C1 control character (Unicode category ``Cc``)."""
    return any(unicodedata.category(ch) == "Cc" for ch in text)


@dataclass(frozen=True, order=True, slots=True)
class SessionId:
    """A validated session identity; direct construction validates like :meth:`parse`."""

    text: str

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"SessionId text must be str, not {type(self.text).__name__}")
        if not self.text:
            raise SessionIdEmpty()
        size = len(self.text.encode("utf-8", "surrogatepass"))
        if size > SESSION_ID_MAX_BYTES:
            raise SessionIdOversized(size, SESSION_ID_MAX_BYTES)
        if has_control_characters(self.text):
            raise SessionIdControlCharacters()

    @classmethod
    def parse(cls, raw: str) -> SessionId:
        """Parse ``raw``; raise a :class:`~session_toolset.errors.SessionIdError`."""
        return cls(raw)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"SessionId({self.text!r})"
