"""SessionActivationGrant (SPEC.md 1.5): session validation mapped to grant errors; exact covers."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from session_toolset import (
    CatalogGeneration,
    SchemaDigest,
    SessionActivationGrant,
    SessionId,
    ToolId,
)
from session_toolset.errors import (
    ActivationGrantControlCharacterSessionId,
    ActivationGrantEmptySessionId,
    ActivationGrantError,
    ActivationGrantOversizedSessionId,
)

pytestmark = pytest.mark.spec("1.5")

TOOL = ToolId.parse("mcp.srv:lookup")
GEN = CatalogGeneration(5)
DIGEST = SchemaDigest.of({"type": "object"})


def _error(session: str) -> ActivationGrantError:
    with pytest.raises(ActivationGrantError) as info:
        SessionActivationGrant.create(session, TOOL, GEN, DIGEST)
    return info.value


def test_empty_session() -> None:
    err = _error("")
    assert type(err) is ActivationGrantEmptySessionId
    assert err.code == "ActivationGrantError.EmptySessionId"
    assert err.payload() == {}


def test_oversized_session() -> None:
    err = _error("é" * 128 + "x")
    assert type(err) is ActivationGrantOversizedSessionId
    assert err.code == "ActivationGrantError.OversizedSessionId"
    assert (err.actual, err.limit) == (257, 256)
    assert err.payload() == {"actual": 257, "limit": 256}


@pytest.mark.parametrize("char", ["\x00", "\n", "\x1b", "\x7f", "\x85"])
def test_control_character_session(char: str) -> None:
    err = _error("s" + char)
    assert type(err) is ActivationGrantControlCharacterSessionId
    assert err.code == "ActivationGrantError.ControlCharacterSessionId"


def test_only_the_session_is_validated() -> None:
    # A forged digest and any generation are accepted at construction.
    grant = SessionActivationGrant.create(
        "s 1/x:y", TOOL, CatalogGeneration(2**64 - 1), SchemaDigest("00")
    )
    assert grant.session_id == SessionId.parse("s 1/x:y")
    assert grant.schema_digest.hex == "00"


def test_covers_only_the_exact_four_tuple() -> None:
    session = SessionId.parse("s")
    grant = SessionActivationGrant.create("s", TOOL, GEN, DIGEST)
    assert grant.covers(session, TOOL, GEN, DIGEST)
    alternatives = (
        (session, SessionId.parse("t")),
        (TOOL, ToolId.parse("mcp.srv:other")),
        (GEN, CatalogGeneration(6)),
        (DIGEST, SchemaDigest.of({"type": "string"})),
    )
    for choice in itertools.product((0, 1), repeat=4):
        if choice == (0, 0, 0, 0):
            continue
        args = [alternatives[i][c] for i, c in enumerate(choice)]
        assert not grant.covers(*args)  # type: ignore[arg-type]


def test_grant_is_immutable() -> None:
    grant = SessionActivationGrant.create("s", TOOL, GEN, DIGEST)
    with pytest.raises(dataclasses.FrozenInstanceError):
        grant.catalog_generation = CatalogGeneration(9)  # type: ignore[misc]
