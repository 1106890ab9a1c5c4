"""The protocol client: one adapter child process, one request line, exactly one reply line.

Every reply is waited for with a timeout (a hung adapter must not hang CI); a daemon thread
drains stderr into a bounded tail for failure reports.  Requests go through `pipes`, whose
``send`` never blocks, so a caller can *pipeline* (send many lines before reading any reply).
Anything other than one JSON object per request (EOF, a crash, a timeout, bytes that are not
UTF-8 JSON, a value that is not an object) is an `ExchangeError`.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Final

from session_toolset_harness.conform.jsonio import (
    JsonTextError,
    encode_line,
    parse_strict,
    truncate,
)
from session_toolset_harness.conform.pipes import (
    MAX_REPLY_BYTES,
    Eof,
    SelectPipes,
    TooLong,
)

STDERR_TAIL_BYTES: Final = 4096
EXIT_GRACE_SECONDS: Final = 2.0
HELLO: Final[dict[str, object]] = {"op": "hello"}


@dataclass(frozen=True)
class ExchangeError:
    """Why no usable reply arrived: ``kind`` is crash, timeout, invalid-json, not-object, ..."""

    kind: str
    message: str
    raw: str | None = None


@dataclass(frozen=True)
class Reply:
    """A reply line parsed into a JSON object."""

    value: dict[str, object]
    raw: str


class AdapterStartError(Exception):
    """The adapter command cannot be started at all (missing executable, permissions)."""


class StderrTail:
    """The last few KiB an adapter wrote to stderr, read continuously in a thread (`pump`)."""

    def __init__(self, limit: int = STDERR_TAIL_BYTES) -> None:
        self._limit = limit
        self._data = bytearray()
        self._lock = threading.Lock()

    def pump(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError), stream:
            while chunk := stream.read(4096):
                with self._lock:
                    self._data.extend(chunk)
                    del self._data[: max(0, len(self._data) - self._limit)]

    def text(self) -> str:
        with self._lock:
            return self._data.decode("utf-8", errors="replace")


class _GroupPopen(subprocess.Popen[bytes]):
    """The adapter's process, started as the leader of a process group of its own, so that
    killing it also kills what it started: an adapter is often a wrapper script that runs the
    real program without ``exec``, and a hung program must not outlive the run."""

    def kill(self) -> None:
        # The group outlives its leader while a member lives: kill it even after the wrapper
        # itself has exited.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)


class AdapterProcess:
    """A running adapter. Not thread-safe: one runner drives one process."""

    def __init__(self, argv: Sequence[str]) -> None:
        try:
            self._proc = _GroupPopen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                start_new_session=True,
            )
        except (OSError, ValueError) as exc:
            raise AdapterStartError(f"cannot start adapter {list(argv)!r}: {exc}") from exc
        self.stderr = StderrTail()
        assert self._proc.stdout is not None and self._proc.stderr is not None
        assert self._proc.stdin is not None
        self._pipes = SelectPipes(self._proc.stdin, self._proc.stdout)
        self._stderr_thread = threading.Thread(
            target=self.stderr.pump, args=(self._proc.stderr,), daemon=True
        )
        self._stderr_thread.start()
        self._stdin_open = True
        self._dead = False

    def stderr_text(self) -> str:
        """The stderr tail; once the process is gone, first let the reader catch up with it."""
        if self._proc.poll() is not None:
            self._stderr_thread.join(timeout=1.0)
        return self.stderr.text()

    def pending_line(self) -> ExchangeError | None:
        """An unsolicited line already waiting (a reply nobody asked for), if any."""
        item = self._pipes.take(0)
        if isinstance(item, bytes):
            message = "adapter wrote a reply line nobody asked for"
            return ExchangeError("extra-reply", message, _show(item))
        return None

    def exchange(self, request: object, timeout: float) -> Reply | ExchangeError:
        """Send one request line and wait up to ``timeout`` seconds for one reply line."""
        return next(self.exchange_pipelined([request], timeout))

    def send(self, requests: Iterable[object]) -> None:
        """Queue request lines (a JSON value as one line, ``bytes`` as they are) for writing,
        without waiting for any reply; each reply is then read with `receive`."""
        if not self._stdin_open:
            return  # closed or killed: the next receive reports the crash
        lines = [
            (r if r.endswith(b"\n") else r + b"\n") if isinstance(r, bytes) else encode_line(r)
            for r in requests
        ]
        if lines:
            self._pipes.send(b"".join(lines))  # one write (or hand-over) per call

    def receive(self, timeout: float) -> Reply | ExchangeError:
        """The next reply line, waiting up to ``timeout`` seconds for it."""
        item = self._pipes.take(timeout)
        if item is None:
            self.kill()
            return ExchangeError("timeout", f"no reply within {timeout:g} s (adapter killed)")
        if isinstance(item, Eof):
            return self._crashed("adapter closed stdout without replying")
        if isinstance(item, TooLong):
            self.kill()
            return ExchangeError("too-long", f"reply line longer than {MAX_REPLY_BYTES} bytes")
        return _parse_reply(item)

    def exchange_pipelined(
        self, requests: Sequence[object], timeout: float
    ) -> Iterator[Reply | ExchangeError]:
        """Send every request at once, then yield their replies in order, each waited for up
        to ``timeout`` seconds once the previous one arrived; the first `ExchangeError` ends it
        (a line already waiting before the requests are sent is an ``extra-reply``)."""
        extra = self.pending_line()
        if extra is not None:
            yield extra
            return
        self.send(requests)
        for _ in requests:
            answer = self.receive(timeout)
            yield answer
            if isinstance(answer, ExchangeError):
                return

    def _crashed(self, message: str) -> ExchangeError:
        status = self._wait(EXIT_GRACE_SECONDS)
        self._dead = True
        suffix = "" if status is None else f" (exit status {status})"
        return ExchangeError("crash", message + suffix)

    def _wait(self, timeout: float) -> int | None:
        try:
            return self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def _close_stdin(self, grace: float = 0.0) -> bool:
        """Close the adapter's stdin after writing what is queued (for up to ``grace``
        seconds); False if some of it could not be written."""
        if not self._stdin_open:
            return True
        self._stdin_open = False
        return self._pipes.close_input(grace)

    def kill(self) -> None:
        """Stop the process now; used after any error so the next vector gets a fresh one."""
        if self._proc.poll() is None:
            with contextlib.suppress(OSError):
                self._proc.kill()
        self._close_stdin()
        self._wait(EXIT_GRACE_SECONDS)
        self._stderr_thread.join(timeout=1.0)
        self._close_pipes()
        self._dead = True

    def kill_now(self) -> None:
        """Send the process SIGKILL and nothing else (safe from any thread: no pipe is touched,
        nothing is waited for); for a worker whose parent is gone."""
        with contextlib.suppress(OSError):
            self._proc.kill()

    def close(self) -> int | None:
        """Close stdin (the protocol's EOF) and return the exit status, killing on a hang; what
        it still writes to stdout meanwhile is read and dropped."""
        if not self._close_stdin(EXIT_GRACE_SECONDS):
            self.kill()
            return None
        status = self._wait_reading(EXIT_GRACE_SECONDS)
        if status is None:
            self.kill()
            return None
        self._close_pipes()
        self._dead = True
        return status

    def _wait_reading(self, timeout: float) -> int | None:
        """The exit status within ``timeout`` seconds, reading and dropping what the adapter
        still writes (one blocked on a full stdout pipe never exits until something reads)."""
        deadline = time.monotonic() + timeout
        while (status := self._proc.poll()) is None:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if isinstance(self._pipes.take(min(left, 0.05)), Eof | TooLong):
                return self._wait(max(deadline - time.monotonic(), 0.0))  # stdout is done
        return status

    def _close_pipes(self) -> None:
        """Close our ends of stdin and stdout; the stderr reader closes stderr itself."""
        self._close_stdin()
        self._pipes.shut()
        self._stderr_thread.join(timeout=1.0)

    @property
    def alive(self) -> bool:
        return not self._dead and self._proc.poll() is None


def _show(raw: bytes) -> str:
    return truncate(raw.decode("utf-8", errors="replace").rstrip("\n"))


def _parse_reply(raw: bytes) -> Reply | ExchangeError:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ExchangeError("invalid-utf8", f"reply is not UTF-8: {exc}", _show(raw))
    line = text.rstrip("\n")
    try:
        value = parse_strict(line)
    except JsonTextError as exc:
        return ExchangeError("invalid-json", f"reply is not JSON: {exc}", truncate(line))
    if not isinstance(value, dict):
        return ExchangeError("not-object", "reply is JSON but not an object", truncate(line))
    return Reply(value, line)


def stderr_summary(tail: str, lines: int = 3, limit: int = 300) -> str:
    """The last few non-empty lines of an adapter's stderr tail, on one line."""
    shown = [line.strip() for line in tail.splitlines() if line.strip()][-lines:]
    return truncate(" | ".join(shown), limit)


def start_checked(argv: Sequence[str], timeout: float) -> AdapterProcess:
    """The adapter, started and checked to answer ``hello`` as PROTOCOL.md v1 says within
    ``timeout`` seconds; else `AdapterStartError` (one line, with the end of its stderr)."""
    process = AdapterProcess(argv)
    answer = process.exchange(HELLO, timeout)
    if isinstance(answer, ExchangeError):
        problem = f"{answer.kind}: {answer.message}"
    elif answer.value.get("ok") is not True or answer.value.get("protocol") != 1:
        problem = f"answered {truncate(answer.raw, 200)}, not a protocol 1 hello reply"
    else:
        return process
    process.kill()
    tail = stderr_summary(process.stderr_text())
    raise AdapterStartError(
        f"adapter {shlex.join(argv)} failed its hello: {problem}"
        + (f"; its stderr ends: {tail}" if tail else "; nothing on its stderr")
    )
