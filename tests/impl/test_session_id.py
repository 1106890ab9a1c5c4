"""SessionId (SPEC.md 1.2): empty, oversized by UTF-8 bytes, control characters; no trimming."""

from __future__ import annotations

import pytest

from session_toolset import SessionId
from session_toolset.errors import (
    SessionIdControlCharacters,
    SessionIdEmpty,
    SessionIdError,
    SessionIdOversized,
)

pytestmark = pytest.mark.spec("1.2")


def _error(raw: str) -> SessionIdError:
    with pytest.raises(SessionIdError) as info:
        SessionId.parse(raw)
    return info.value


def test_empty() -> None:
    err = _error("")
    assert type(err) is SessionIdEmpty
    assert err.code == "SessionIdError.Empty"
    assert err.payload() == {}


def test_256_bytes_of_multibyte_text_is_accepted() -> None:
    raw = "é" * 128  # 128 characters, 256 bytes
    assert SessionId.parse(raw).text == raw
    raw4 = "𝄞" * 64  # 4-byte characters, 256 bytes
    assert SessionId.parse(raw4).text == raw4


def test_257_bytes_is_oversized_with_byte_counts() -> None:
    err = _error("é" * 128 + "x")  # 129 characters, 257 bytes
    assert type(err) is SessionIdOversized
    assert err.code == "SessionIdError.Oversized"
    assert (err.actual, err.limit) == (257, 256)
    assert err.payload() == {"actual": 257, "limit": 256}
    assert _error("x" * 300).payload() == {"actual": 300, "limit": 256}


def test_oversized_is_checked_before_control_characters() -> None:
    assert type(_error("\n" * 300)) is SessionIdOversized


@pytest.mark.parametrize(
    "char",
    ["\x00", "\x01", "\t", "\n", "\r", "\x1b", "\x1f", "\x7f", "\x80", "\x85", "\x9f"],
    ids=lambda c: f"U+{ord(c):04X}",
)
def test_control_characters_are_rejected(char: str) -> None:
    for raw in (char, "a" + char, char + "a", "session" + char + "id"):
        err = _error(raw)
        assert type(err) is SessionIdControlCharacters
        assert err.code == "SessionIdError.ControlCharacters"
        assert err.payload() == {}


@pytest.mark.parametrize(
    "raw",
    [" ", " lead", "trail ", "a/b", "a:b", "user@host/session:42", "é", "\u00a0", "\u2028x", "x"],
)
def test_accepted_verbatim(raw: str) -> None:
    assert SessionId.parse(raw).text == raw


def test_no_trimming_means_distinct_sessions() -> None:
    assert SessionId.parse("s") != SessionId.parse(" s")
    assert SessionId.parse("s") != SessionId.parse("s ")
    assert SessionId.parse("S") != SessionId.parse("s")
