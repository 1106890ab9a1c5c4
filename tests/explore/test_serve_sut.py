"""The `serve` driver: the reference adapter's whole stdin/stdout loop, in a thread."""

from __future__ import annotations

import pytest

from session_toolset.adapter import World, server
from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.serve_sut import ServeSut

pytestmark = pytest.mark.spec("2")


def test_explore_through_serve_agrees_with_the_model() -> None:
    sut = ServeSut()
    try:
        result = explore(sut, examples=10, steps=20, seed_value=1, shrink=False)
    finally:
        sut.close()
    assert result.error is None and result.failure is None
    assert result.steps > 10


def test_a_fault_only_the_loop_shows_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve` answers an exception escaping `handle_line` with ``Internal``: only a driver that
    goes through the loop sees that reply (the direct driver would see the exception)."""
    original = server.handle_line

    def broken(world: World, line: bytes) -> server.Reply:
        if b'"is_stale"' in line:
            raise RuntimeError("planted")
        return original(world, line)

    monkeypatch.setattr(server, "handle_line", broken)
    sut = ServeSut()
    try:
        result = explore(sut, examples=50, steps=30, seed_value=0, shrink=False)
    finally:
        sut.close()
    assert result.error is None
    assert result.failure is not None
    assert "Internal" in str(result.failure)
