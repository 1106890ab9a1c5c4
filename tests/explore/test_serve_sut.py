"""The `serve` driver: the reference adapter's whole stdin/stdout loop, in a thread."""

from __future__ import annotations

import io
import os
import sys
import threading
from typing import Any

import pytest

from session_toolset.adapter import World, server
from session_toolset_harness.explore import serve_sut
from session_toolset_harness.explore.run import explore
from session_toolset_harness.explore.serve_sut import CARRY_FORWARD_ENV, ServeSut
from session_toolset_harness.explore.sut import SutFailure

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


def test_the_loop_exits_0_at_eof_and_the_environment_is_restored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(CARRY_FORWARD_ENV, raising=False)
    sut = ServeSut(carry_forward_env="0")
    assert os.environ[CARRY_FORWARD_ENV] == "0"
    # PROTOCOL.md: rebuild's carry_forward defaults to true whatever the adapter's environment
    result = explore(sut, examples=30, steps=30, seed_value=2, shrink=False)
    sut.close()
    assert result.error is None and result.failure is None
    assert sut.exit_status == 0
    assert CARRY_FORWARD_ENV not in os.environ


def test_an_adapter_that_reads_its_environment_for_the_rebuild_default_is_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from session_toolset import host
    from session_toolset.adapter import ops

    original = host.rebuild_session_set

    def env_default(*args: Any, carry_forward: bool | None = None, **kwargs: Any) -> Any:
        # what an adapter that leaves the default to the library would do
        return original(*args, carry_forward=None if carry_forward else carry_forward, **kwargs)

    monkeypatch.setattr(ops, "rebuild_session_set", env_default)
    sut = ServeSut(carry_forward_env="0")
    try:
        result = explore(sut, examples=100, steps=30, seed_value=0, shrink=False)
    finally:
        sut.close()
    assert result.failure is not None


def test_the_driver_goes_through_the_entry_point_and_restores_the_streams(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`main` picks its streams from ``sys``: the driver lends them and takes them back."""
    calls: list[object] = []
    real_main = server.main

    def counting_main() -> int:
        calls.append(sys.stdin)
        return real_main()

    monkeypatch.setattr(serve_sut, "main", counting_main)
    streams = sys.stdin, sys.stdout, sys.stderr
    sut = ServeSut()
    try:
        assert (sys.stdin, sys.stdout, sys.stderr) == streams
        assert len(calls) == 1 and calls[0] is not streams[0]
        assert sut.send({"op": "hello"})["ok"] is True
    finally:
        sut.close()
    assert sut.exit_status == 0


def test_an_entry_point_that_never_reads_stdin_is_a_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def wrong_main() -> int:  # the streams taken, but not stdin's buffer
        return server.serve(iter(()), sys.stdout, sys.stderr)  # type: ignore[arg-type]

    monkeypatch.setattr(serve_sut, "main", wrong_main)
    streams = sys.stdin, sys.stdout, sys.stderr
    with pytest.raises(SutFailure, match="never read its stdin"):
        ServeSut(timeout=0.5)
    assert (sys.stdin, sys.stdout, sys.stderr) == streams


def test_an_entry_point_that_writes_elsewhere_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    lost = io.StringIO()

    def wrong_main() -> int:  # replies written to a stream nobody reads
        return server.serve(sys.stdin.buffer, lost, sys.stderr)

    monkeypatch.setattr(serve_sut, "main", wrong_main)
    sut = ServeSut(timeout=0.5)
    try:  # the first request after hello gets no reply: a failed step, not a crash of the run
        result = explore(sut, examples=2, steps=5, seed_value=0, shrink=False)
    finally:
        sut.close()
    assert result.failure is not None and result.error is None
    assert "timeout: no reply line" in result.failure.reason
    assert lost.getvalue().startswith('{"ok":true')  # the loop did answer, elsewhere


def test_an_entry_point_that_raises_before_reading_stdin_is_reported_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The loop's error is the failure, without waiting out the reply timeout (a mutant of
    `main` that fails at once must not cost the mutation run a timeout per mutant)."""

    def broken_main() -> int:
        raise RuntimeError("planted before the loop")

    monkeypatch.setattr(serve_sut, "main", broken_main)
    streams = sys.stdin, sys.stdout, sys.stderr
    with pytest.raises(SutFailure, match="never read its stdin: it raised") as caught:
        ServeSut(timeout=5.0)
    assert "planted before the loop" in str(caught.value)
    assert (sys.stdin, sys.stdout, sys.stderr) == streams


def test_a_failed_start_restores_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No `close` can follow a constructor that raised: it restores what it set itself."""
    monkeypatch.setenv(CARRY_FORWARD_ENV, "1")
    monkeypatch.setattr(serve_sut, "main", lambda: 0)  # returns without reading stdin
    with pytest.raises(SutFailure, match="never read its stdin: it returned 0"):
        ServeSut(timeout=5.0, carry_forward_env="0")
    assert os.environ[CARRY_FORWARD_ENV] == "1"


def test_an_entry_point_that_exits_is_judged_by_its_exit_status(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``sys.exit(serve(...))`` in `main` is what a process would see as its exit status."""
    real_main = server.main

    def exiting_main() -> int:
        sys.exit(real_main())

    monkeypatch.setattr(serve_sut, "main", exiting_main)
    sut = ServeSut()
    try:
        assert sut.send({"op": "hello"})["ok"] is True
    finally:
        sut.close()
    assert sut.exit_status == 0


def test_an_entry_point_that_hangs_before_reading_stdin_is_a_failure_after_the_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()

    def hanging_main() -> int:
        release.wait(60)
        return 0

    monkeypatch.setattr(serve_sut, "main", hanging_main)
    monkeypatch.delenv(CARRY_FORWARD_ENV, raising=False)
    streams = sys.stdin, sys.stdout, sys.stderr
    try:
        with pytest.raises(SutFailure, match=r"never read its stdin: within 0\.2 s"):
            ServeSut(timeout=0.2, carry_forward_env="0")
    finally:
        release.set()
    assert (sys.stdin, sys.stdout, sys.stderr) == streams
    assert CARRY_FORWARD_ENV not in os.environ
