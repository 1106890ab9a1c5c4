"""The reference adapter's whole transport loop (`serve`), in this process.

`sut.InProcessSut` calls `handle_line` directly: fast, but the stdin/stdout loop a real adapter
process runs (line splitting, the ``\\r`` strip, the reply encoding, the ``Internal`` fallback,
one flushed line per request) is never exercised.  This driver runs `serve` itself in a thread,
fed request lines through a queue standing for stdin and reading the reply lines it writes,
exactly as `python -m session_toolset.adapter` would see and write them over pipes.  It is what
the mutation tool's stateful suite can use to judge the loop the way `explore --adapter` would,
without a child process per mutant.
"""

from __future__ import annotations

import io
import json
import queue
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from session_toolset.adapter import serve

from ..conform.jsonio import encode_line
from .sut import REQUEST_TIMEOUT_SECONDS, SutFailure

Reply = dict[str, Any]
_EOF = b""


class _Stdin:
    """Binary lines from a queue; iteration ends at ``_EOF`` (the explorer closed the pipe)."""

    def __init__(self) -> None:
        self.lines: queue.SimpleQueue[bytes] = queue.SimpleQueue()

    def __iter__(self) -> Iterator[bytes]:
        while True:
            line = self.lines.get()
            if line == _EOF:
                return
            yield line


class _Stdout(io.TextIOBase):
    """Collects what `serve` writes; every complete line becomes one reply text."""

    def __init__(self) -> None:
        self.replies: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._partial = ""

    def write(self, text: str) -> int:
        *whole, self._partial = (self._partial + text).split("\n")
        for line in whole:
            self.replies.put(line)
        return len(text)


class ServeSut:
    """`serve` running in a thread of this process, one loop (one adapter world) per run."""

    name = "reference (in-process, through serve)"

    def __init__(self, timeout: float = REQUEST_TIMEOUT_SECONDS) -> None:
        self.timeout = timeout
        self._stdin = _Stdin()
        self._stdout = _Stdout()
        self._stderr = io.StringIO()
        self._owed = 0
        self._exit: list[int] = []
        self._thread = threading.Thread(target=self._serve, name="serve", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        self._exit.append(serve(self._stdin, self._stdout, self._stderr))  # type: ignore[arg-type]

    def send(self, request: Reply) -> Reply:
        self.start_example()
        self.submit([encode_line(request)])
        return self.receive()

    def submit(self, lines: Sequence[bytes]) -> None:
        for line in lines:
            self._stdin.lines.put(line)
        self._owed += len(lines)

    def receive(self) -> Reply:
        if self._owed == 0:
            raise SutFailure("no request is waiting for a reply")
        try:
            text = self._stdout.replies.get(timeout=self.timeout)
        except queue.Empty:
            tail = self._stderr.getvalue()[-500:]
            raise SutFailure("timeout: no reply line" + (f"\n{tail}" if tail else "")) from None
        self._owed -= 1
        try:
            value = json.loads(text)
        except ValueError:
            raise SutFailure(f"reply is not JSON: {text[:200]!r}") from None
        if not isinstance(value, dict):
            raise SutFailure(f"reply is not a JSON object: {text[:200]!r}")
        return value

    def start_example(self) -> None:
        # Replies owed by an example that stopped early (a divergence) belong to no one.
        while self._owed:
            try:
                self._stdout.replies.get(timeout=self.timeout)
            except queue.Empty:
                break
            self._owed -= 1

    def resync(self) -> str | None:
        if self._stdout.replies.empty():
            return None
        return "the adapter wrote a reply line nobody asked for (replies shifted)"

    def close(self) -> None:
        self._stdin.lines.put(_EOF)
        self._thread.join(self.timeout)
