"""Systems under test: anything that answers PROTOCOL.md requests with reply objects.

Two drivers: the reference adapter called in-process (`handle_line`, fast: this is what the
stateful pytest suite and the steps/s figure use) and any adapter command run as a child process
through the conformance runner's client (timeouts, stderr tail, crash detection).  Both go through
the same JSON text encoding, so the in-process driver exercises exactly the adapter's door.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from typing import Any, Protocol

from session_toolset.adapter import World, handle_line

from ..conform.client import AdapterProcess, ExchangeError
from ..conform.jsonio import encode_line

Reply = dict[str, Any]

REQUEST_TIMEOUT_SECONDS = 10.0


class SutFailure(Exception):
    """The system under test gave no usable reply (crash, hang, not a JSON object)."""


class Sut(Protocol):
    name: str

    def send(self, request: Reply) -> Reply: ...

    def close(self) -> None: ...


class InProcessSut:
    """The reference implementation's adapter, in this process."""

    name = "reference (in-process)"

    def __init__(self) -> None:
        self.world = World()

    def send(self, request: Reply) -> Reply:
        # The request goes through the adapter's own JSON parser, as over the wire; replies are
        # already plain JSON values (lists, dicts, str, int, bool, None).
        return dict(handle_line(self.world, encode_line(request)[:-1]))

    def close(self) -> None:
        return None


class AdapterSut:
    """Any PROTOCOL.md adapter command, one child process for the whole run."""

    def __init__(self, argv: Sequence[str], timeout: float = REQUEST_TIMEOUT_SECONDS) -> None:
        self.argv = list(argv)
        self.name = shlex.join(self.argv)
        self.timeout = timeout
        self.process = AdapterProcess(self.argv)

    def send(self, request: Reply) -> Reply:
        if not self.process.alive:
            self.process = AdapterProcess(self.argv)
        result = self.process.exchange(request, self.timeout)
        if isinstance(result, ExchangeError):
            tail = self.process.stderr_text()[-500:]
            raise SutFailure(f"{result.kind}: {result.message}" + (f"\n{tail}" if tail else ""))
        return dict(result.value)

    def close(self) -> None:
        self.process.close()


def reference_adapter_argv() -> list[str]:
    """The reference implementation as an external adapter (for plumbing tests)."""
    return [sys.executable, "-m", "session_toolset.adapter"]
