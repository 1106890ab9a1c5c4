"""The reference adapter's whole transport loop (`main` and `serve`) in a thread of this process.

`sut.InProcessSut` calls `handle_line` directly; this driver runs the adapter's entry point fed
through queues standing for stdin/stdout, so the loop a real adapter process runs (line
splitting, the ``\\r`` strip, reply encoding, the ``Internal`` fallback) is exercised without a
child process (the mutation tool's stateful suite).  `main` borrows ``sys.stdin``/``sys.stdout``
only until it first reads stdin: construct one driver at a time, from one thread.  A `main` that
never reads is a `SutFailure`; `serve` must exit 0 at EOF (`exit_status` after `close`); with
``carry_forward_env`` SPEC.md's ``SYNAPS_TOOLSET_CARRY_FORWARD`` is set while it runs (no reply
may depend on it)."""

from __future__ import annotations

import io
import json
import os
import queue
import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from typing import Any, TextIO, cast

from session_toolset.adapter import main

from ..conform.jsonio import encode_line
from .sut import REQUEST_TIMEOUT_SECONDS, SutFailure

Reply = dict[str, Any]
_EOF = b""
CARRY_FORWARD_ENV = "SYNAPS_TOOLSET_CARRY_FORWARD"


class _Stdin:
    """Binary lines from a queue; iteration ends at ``_EOF`` (the explorer closed the pipe)."""

    def __init__(self) -> None:
        self.lines: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        self.read = False
        self.settled = threading.Event()  # read from, or the loop ended without reading

    def __iter__(self) -> Iterator[bytes]:
        self.read = True  # the loop holds its streams now
        self.settled.set()
        while True:
            line = self.lines.get()
            if line == _EOF:
                return
            yield line


class _TextStdin:
    """What `main` finds as ``sys.stdin``: it reads only the binary ``buffer``."""

    def __init__(self, buffer: _Stdin) -> None:
        self.buffer = buffer


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
    """`main` (so `serve`) running in a thread of this process, one loop (one adapter world)
    per run."""

    name = "reference (in-process, through serve)"

    def __init__(
        self, timeout: float = REQUEST_TIMEOUT_SECONDS, carry_forward_env: str | None = None
    ) -> None:
        self.timeout = timeout
        self.exit_status: int | None = None
        self._saved_env = os.environ.get(CARRY_FORWARD_ENV)
        self._env_set = carry_forward_env is not None
        if carry_forward_env is not None:
            os.environ[CARRY_FORWARD_ENV] = carry_forward_env
        self._stdin = _Stdin()
        self._stdout = _Stdout()
        self._stderr = io.StringIO()
        self._owed = 0
        self._exit: list[int] = []
        self._ended = False  # main returned or raised (set before `settled`, unlike is_alive)
        self._thread = threading.Thread(target=self._serve, name="serve", daemon=True)
        saved = sys.stdin, sys.stdout, sys.stderr
        sys.stdin = cast(TextIO, _TextStdin(self._stdin))
        sys.stdout, sys.stderr = self._stdout, self._stderr
        try:
            self._thread.start()
            self._stdin.settled.wait(timeout)
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved
        if not self._stdin.read:
            self._stdin.lines.put(_EOF)  # should it read after all, it ends at once
            self._restore_env()  # no close() follows a constructor that raised
            if not self._ended:
                how = f"within {timeout:g} s"
            elif self._exit:
                how = f"it returned {self._exit[0]}"
            else:
                how = "it raised"
            tail = self._stderr.getvalue()[-500:]
            raise SutFailure(
                f"the adapter's main never read its stdin: {how}" + (f"\n{tail}" if tail else "")
            )

    def _serve(self) -> None:
        try:
            self._exit.append(main())
        except SystemExit as exit_:  # sys.exit in main: what a process exits with
            code = exit_.code
            self._exit.append(0 if code is None else code if isinstance(code, int) else 1)
        except BaseException:  # the loop died: no more replies (the next read times out)
            traceback.print_exc(file=self._stderr)
        finally:
            self._ended = True
            self._stdin.settled.set()

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
        self.exit_status = self._exit[0] if self._exit else None
        self._restore_env()

    def _restore_env(self) -> None:
        if self._env_set:
            if self._saved_env is None:
                os.environ.pop(CARRY_FORWARD_ENV, None)
            else:
                os.environ[CARRY_FORWARD_ENV] = self._saved_env
            self._env_set = False
