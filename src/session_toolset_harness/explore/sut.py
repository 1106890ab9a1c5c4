"""Systems under test: anything that answers PROTOCOL.md requests with reply objects.

Two drivers: the reference adapter called in-process (`handle_line`, fast: this is what the
stateful pytest suite and the steps/s figure use) and any adapter command run as a child process
through the conformance runner's client (timeouts, stderr tail, crash detection).  Both go through
the same JSON text encoding, so the in-process driver exercises exactly the adapter's door.

Besides the lock-step `send`, both accept *pipelined* traffic: `submit` queues request lines
(already encoded) and `receive` returns the next reply in order, so the explorer can write many
requests before reading any reply (PROTOCOL.md: one reply per line, in order).
"""

from __future__ import annotations

import shlex
import sys
from collections import deque
from collections.abc import Sequence
from typing import Any, Protocol

from session_toolset.adapter import World, handle_line

from ..conform.client import AdapterProcess, ExchangeError, stderr_summary
from ..conform.client import Reply as ReplyLine
from ..conform.jsonio import encode_line
from ..trace.record import TraceWriter

Reply = dict[str, Any]

REQUEST_TIMEOUT_SECONDS = 10.0
FLUSH_LINES = 16
"""Submitted lines an `AdapterSut` collects before handing them to the writer thread (and at
every `receive`, whatever it holds): one thread hand-over per step cost more than the write."""


class SutFailure(Exception):
    """The system under test gave no usable reply (crash, hang, not a JSON object); ``kind``
    names which (``crash``, ``timeout``, ``invalid-json``, ... as `ExchangeError` does)."""

    def __init__(self, message: str, kind: str = "no-reply") -> None:
        super().__init__(message)
        self.kind = kind


class Sut(Protocol):
    name: str

    def send(self, request: Reply) -> Reply: ...

    def submit(self, lines: Sequence[bytes]) -> None:
        """Queue request lines (each newline-terminated) without reading any reply."""
        ...

    def receive(self) -> Reply:
        """The reply to the oldest submitted line not yet answered; `SutFailure` if none."""
        ...

    def start_example(self) -> None:
        """Called before each example: a driver whose process died starts a fresh one."""
        ...

    def resync(self) -> str | None:
        """After a divergence, once every owed reply was read: probe once; a reason if the
        replies were shifted (more reply lines than requests), after which the process is
        replaced."""
        ...

    def close(self) -> None: ...


class InProcessSut:
    """The reference implementation's adapter, in this process."""

    name = "reference (in-process)"

    def __init__(self) -> None:
        self.world = World()
        self._replies: deque[Reply] = deque()

    def send(self, request: Reply) -> Reply:
        # The request goes through the adapter's own JSON parser, as over the wire; replies are
        # already plain JSON values (lists, dicts, str, int, bool, None).
        return dict(handle_line(self.world, encode_line(request)[:-1]))

    def submit(self, lines: Sequence[bytes]) -> None:
        world, append = self.world, self._replies.append
        for line in lines:
            append(handle_line(world, line[:-1]))

    def receive(self) -> Reply:
        if not self._replies:
            raise SutFailure("no request is waiting for a reply")
        return self._replies.popleft()

    def start_example(self) -> None:
        self._replies.clear()

    def resync(self) -> str | None:
        return None

    def close(self) -> None:
        return None


class AdapterSut:
    """Any PROTOCOL.md adapter command, one child process for the whole run."""

    def __init__(self, argv: Sequence[str], timeout: float = REQUEST_TIMEOUT_SECONDS) -> None:
        self.argv = list(argv)
        self.name = shlex.join(self.argv)
        self.timeout = timeout
        self.process = AdapterProcess(self.argv)
        self._probes = 0
        self._buffer: list[bytes] = []

    def send(self, request: Reply) -> Reply:
        self._flush()
        self.start_example()
        return self._value(self.process.exchange(request, self.timeout))

    def _value(self, result: ReplyLine | ExchangeError) -> Reply:
        if isinstance(result, ExchangeError):
            tail = stderr_summary(self.process.stderr_text())
            where = (
                f"; adapter stderr ends: {tail}" if tail else "; nothing on the adapter's stderr"
            )
            raise SutFailure(f"{result.kind}: {result.message}{where}", result.kind)
        return dict(result.value)

    def submit(self, lines: Sequence[bytes]) -> None:
        # Never restarts: lines sent to a fresh process mid-example would be answered out of
        # context.  A dead process makes the next `receive` report the crash.
        self._buffer.extend(lines)
        if len(self._buffer) >= FLUSH_LINES:
            self._flush()

    def _flush(self) -> None:
        if self._buffer:
            self.process.send(self._buffer)
            self._buffer = []

    def receive(self) -> Reply:
        self._flush()  # never wait for a reply to a line not yet sent
        return self._value(self.process.receive(self.timeout))

    def start_example(self) -> None:
        self._flush()
        if not self.process.alive:
            self.process.kill()
            self.process = AdapterProcess(self.argv)
            return
        extra = self.process.pending_line()
        if extra is not None:  # a line nobody asked for, seen between examples
            self.process.kill()
            self.process = AdapterProcess(self.argv)

    def resync(self) -> str | None:
        self._flush()
        if not self.process.alive:
            return None
        # The probe's reply names a fresh nonce, so a shifted reply (a line written earlier,
        # say a hello) cannot pass for it, however late the adapter's surplus line arrives.
        self._probes += 1
        nonce = f"resync:p{self._probes}"
        answer = self.process.exchange({"op": "tool_id_parse", "raw": nonce}, self.timeout)
        if isinstance(answer, ExchangeError):
            if answer.kind == "extra-reply":
                self.process.kill()
                return "the adapter wrote a reply line nobody asked for (replies shifted)"
            return None
        if answer.value.get("id") == nonce:
            return None
        self.process.kill()  # out of step: the next example gets a fresh process
        return (
            "the sync probe got a reply that is not its own: the adapter wrote more reply "
            "lines than it received requests (replies shifted)"
        )

    def close(self) -> None:
        self.process.close()


class LockStep:
    """A driver without pipelining: every submitted line is one full round trip (the
    explorer's ``--no-pipeline``, and the benchmark's "not pipelined" figure)."""

    def __init__(self, sut: Sut) -> None:
        self.sut = sut
        self.name = sut.name
        self._replies: deque[Reply | SutFailure] = deque()

    def send(self, request: Reply) -> Reply:
        return self.sut.send(request)

    def submit(self, lines: Sequence[bytes]) -> None:
        for line in lines:
            if self._replies and isinstance(self._replies[-1], SutFailure):
                self._replies.append(self._replies[-1])  # nothing more is sent after a failure
                continue
            self.sut.submit([line])
            try:
                self._replies.append(self.sut.receive())
            except SutFailure as err:
                self._replies.append(err)

    def receive(self) -> Reply:
        if not self._replies:
            raise SutFailure("no request is waiting for a reply")
        reply = self._replies.popleft()
        if isinstance(reply, SutFailure):
            raise reply
        return reply

    def start_example(self) -> None:
        self._replies.clear()
        self.sut.start_example()

    def resync(self) -> str | None:
        return self.sut.resync()

    def close(self) -> None:
        self.sut.close()


def reference_adapter_argv() -> list[str]:
    """The reference implementation as an external adapter (for plumbing tests)."""
    return [sys.executable, "-m", "session_toolset.adapter"]


class RecordingSut:
    """A system under test whose every exchange is also written as a trace line (``--record``):
    one stream per example, named ``PREFIX`` and the example's number (``preflight`` first)."""

    def __init__(self, sut: Sut, writer: TraceWriter, prefix: str) -> None:
        self.sut = sut
        self.name = sut.name
        self._writer = writer
        self._prefix = prefix
        self._examples = 0
        self._stream = f"{prefix}preflight"
        self._sent: deque[bytes] = deque()

    def send(self, request: Reply) -> Reply:
        reply = self.sut.send(request)
        self._writer.exchange(self._stream, request, reply)
        return reply

    def submit(self, lines: Sequence[bytes]) -> None:
        self.sut.submit(lines)
        self._sent.extend(lines)

    def receive(self) -> Reply:
        reply = self.sut.receive()
        if self._sent:
            self._writer.exchange_line(self._stream, self._sent.popleft()[:-1], reply)
        return reply

    def start_example(self) -> None:
        self.sut.start_example()
        self._sent.clear()  # nothing is owed between examples; a restarted adapter owes nothing
        self._examples += 1
        self._stream = f"{self._prefix}{self._examples}"

    def resync(self) -> str | None:
        return self.sut.resync()

    def close(self) -> None:
        self.sut.close()
