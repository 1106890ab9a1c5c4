"""The two pipes to an adapter's stdin and stdout, as one duplex byte transport.

`AdapterProcess` writes request bytes and takes reply lines through one of two transports with
the same contract:

* ``send(data)`` never blocks, whatever the adapter does (it may have stopped reading);
* ``take(timeout)`` returns the next reply line (bytes, newline-terminated), or a sticky
  `Eof` / `TooLong` item, or None when nothing came within ``timeout`` seconds (0: only what
  is already there); meanwhile it keeps writing what ``send`` queued, so a caller that
  pipelines many requests never deadlocks against an adapter blocked on a full stdout pipe;
* ``close_input(grace)`` writes what is still queued (for up to ``grace`` seconds) and closes
  the adapter's stdin (the protocol's EOF); False if the queue could not be written;
* ``shut()`` closes our ends once the process is gone.

`SelectPipes` (POSIX) does all of this in the caller's thread with non-blocking file
descriptors and a selector.  `ThreadPipes` (everywhere else: Windows cannot select on pipes)
moves bytes in two daemon threads.  The select transport exists because the threads slowed a
pipelined explorer: every burst of replies woke the reader thread, which then had to take the
interpreter lock from the caller, and every flush woke the writer.  Against the reference
adapter the select transport runs 1.13x-1.22x the steps/s of the threads
(`benchmarks/bench_explore.py`, its "thread transport" row).
"""

from __future__ import annotations

import collections
import contextlib
import io
import os
import queue
import selectors
import threading
import time
from typing import IO, Final, Protocol

READ_BUFFER_BYTES: Final = 64 * 1024
MAX_REPLY_BYTES: Final = 16 * 1024 * 1024


class Eof:
    """The adapter closed its stdout."""


class TooLong:
    """A reply line grew past `MAX_REPLY_BYTES`; nothing after it is read."""


Item = bytes | Eof | TooLong


class Transport(Protocol):
    def send(self, data: bytes) -> None: ...

    def take(self, timeout: float) -> Item | None: ...

    def close_input(self, grace: float) -> bool: ...

    def shut(self) -> None: ...


class _LineSplitter:
    """Bytes in, complete lines (and the sticky end items) out, in order.

    The start of an unfinished line is kept as the chunks it came in and joined once, when its
    newline (or the end) arrives: joining it again at every read made a line of n reads cost
    n² bytes copied (most of a second of CPU, inside the caller's timeout, for a line at the
    limit).  A line longer than the limit is `TooLong` whether or not its newline came in the
    read that took it past the limit.
    """

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self._size = 0
        self.ended = False

    def feed(self, chunk: bytes) -> list[Item]:
        if self.ended:
            return []
        if not chunk:
            self.ended = True
            rest = b"".join(self._pieces)
            return [rest, Eof()] if rest else [Eof()]
        *lines, rest = chunk.split(b"\n")
        items: list[Item] = []
        if lines:
            if self._pieces:
                lines[0] = b"".join([*self._pieces, lines[0]])
                self._pieces, self._size = [], 0
            if len(lines[0]) > MAX_REPLY_BYTES or len(chunk) > MAX_REPLY_BYTES:
                long = next((i for i, ln in enumerate(lines) if len(ln) > MAX_REPLY_BYTES), None)
                if long is not None:  # the lines before it, then the end
                    self.ended = True
                    return [*(line + b"\n" for line in lines[:long]), TooLong()]
            items = [line + b"\n" for line in lines]
        if rest:
            self._pieces.append(rest)
            self._size += len(rest)
            if self._size > MAX_REPLY_BYTES:
                self.ended = True
                items.append(TooLong())
        return items


class _Ready:
    """Reply items waiting to be taken; an end item stays at the head once reached."""

    def __init__(self) -> None:
        self._items: collections.deque[Item] = collections.deque()

    def extend(self, items: list[Item]) -> None:
        self._items.extend(items)

    def pop(self) -> Item | None:
        if not self._items:
            return None
        item = self._items[0]
        if isinstance(item, bytes):
            self._items.popleft()
        return item


class SelectPipes:
    """Non-blocking pipes driven from the caller's thread (POSIX)."""

    def __init__(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self._stdin: IO[bytes] | None = stdin
        self._stdout: IO[bytes] | None = stdout
        self._in, self._out = stdin.fileno(), stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._queued = bytearray()
        self._lines = _LineSplitter()
        self._ready = _Ready()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._out, selectors.EVENT_READ)
        self._watching_input = False

    def send(self, data: bytes) -> None:
        if self._stdin is None:
            return  # closed or broken: the reader reports the crash
        self._queued += data
        self._write()

    def _write(self) -> None:
        """Write what the pipe takes now; watch stdin for room while anything is left."""
        if self._stdin is not None and self._queued:
            try:
                written = os.write(self._in, self._queued)
            except BlockingIOError:
                written = 0
            except OSError:  # the adapter is gone; its stdout's EOF tells the caller
                self._queued.clear()
                self._drop_input()
                return
            del self._queued[:written]
        self._watch_input(bool(self._queued) and self._stdin is not None)

    def _watch_input(self, watch: bool) -> None:
        if watch != self._watching_input:
            if watch:
                self._selector.register(self._in, selectors.EVENT_WRITE)
            else:
                self._selector.unregister(self._in)
            self._watching_input = watch

    def _read(self) -> None:
        if self._stdout is None:
            return
        try:
            chunk = os.read(self._out, READ_BUFFER_BYTES)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        self._ready.extend(self._lines.feed(chunk))
        if self._lines.ended:
            self._selector.unregister(self._out)
            self._stdout.close()
            self._stdout = None

    def _pump(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for room on stdin or bytes on stdout, move them."""
        if self._stdout is None and not self._watching_input:
            return  # nothing can move any more (the end item is ready)
        for key, events in self._selector.select(timeout):
            if key.fd == self._in and events & selectors.EVENT_WRITE:
                self._write()
            if key.fd == self._out and events & selectors.EVENT_READ:
                self._read()

    def take(self, timeout: float) -> Item | None:
        item = self._ready.pop()
        if item is not None:
            return item
        self._read()  # replies are usually already there: no wait, no selector call
        item = self._ready.pop()
        deadline = time.monotonic() + timeout
        while item is None:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self._pump(left)
            item = self._ready.pop()
        return item

    def close_input(self, grace: float) -> bool:
        deadline = time.monotonic() + grace
        while self._queued and self._stdin is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._pump(min(left, 0.05))  # keep reading too: the adapter may wait on stdout
            self._write()
        flushed = not self._queued
        self._queued.clear()
        self._drop_input()
        return flushed

    def _drop_input(self) -> None:
        self._watch_input(False)
        if self._stdin is not None:
            with contextlib.suppress(OSError):
                self._stdin.close()
            self._stdin = None

    def shut(self) -> None:
        self._drop_input()
        if self._stdout is not None:
            self._selector.unregister(self._out)
            with contextlib.suppress(OSError):
                self._stdout.close()
            self._stdout = None
            self._ready.extend(self._lines.feed(b""))  # what was read, then the end
        self._selector.close()


class ThreadPipes:
    """The same transport with one daemon thread per pipe (where pipes cannot be selected)."""

    def __init__(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        # A buffered reader: ``read1`` returns what one system call brought.
        stdout = io.BufferedReader(stdout, READ_BUFFER_BYTES)  # type: ignore[type-var]
        self._items: queue.Queue[list[Item]] = queue.Queue()
        self._ready = _Ready()
        self._requests: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._open = True
        self._written = threading.Event()
        self._reader = threading.Thread(target=self._pump_stdout, args=(stdout,), daemon=True)
        self._writer = threading.Thread(target=self._pump_stdin, args=(stdin,), daemon=True)
        self._reader.start()
        self._writer.start()

    def _pump_stdout(self, stream: IO[bytes]) -> None:
        # Only this thread closes the stream: closing it from the caller while a read is in
        # flight lets the fd number be reused by the next adapter's pipe and bytes get stolen.
        lines = _LineSplitter()
        try:
            while not lines.ended:
                try:
                    chunk = stream.read1(READ_BUFFER_BYTES)  # type: ignore[attr-defined]
                except (OSError, ValueError):
                    chunk = b""
                items = lines.feed(chunk)
                if items:  # one hand-over per chunk, not per line
                    self._items.put(items)
        finally:
            with contextlib.suppress(OSError):
                stream.close()

    def _pump_stdin(self, stream: IO[bytes]) -> None:
        # Only this thread writes to or closes stdin (``None`` asks it to close): a write
        # blocked on a full pipe then never holds up the caller.
        try:
            while True:
                chunk = self._requests.get()
                if chunk is None:
                    break
                parts = [chunk]
                while True:  # coalesce whatever else is queued into one write
                    try:
                        more = self._requests.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        self._requests.put(None)
                        break
                    parts.append(more)
                stream.write(b"".join(parts))
                stream.flush()
        except (OSError, ValueError):
            pass  # the adapter is gone; the reader sees EOF and reports the crash
        finally:
            self._written.set()
            with contextlib.suppress(OSError, ValueError):
                stream.close()

    def send(self, data: bytes) -> None:
        if self._open:
            self._requests.put(data)

    def take(self, timeout: float) -> Item | None:
        item = self._ready.pop()
        if item is not None:
            return item
        try:
            chunk = self._items.get(timeout=timeout) if timeout else self._items.get_nowait()
        except queue.Empty:
            return None
        self._ready.extend(chunk)
        return self._ready.pop()

    def close_input(self, grace: float) -> bool:
        if self._open:
            self._open = False
            self._requests.put(None)
        return self._written.wait(grace)

    def shut(self) -> None:
        self.close_input(0)
        self._writer.join(timeout=1.0)
        self._reader.join(timeout=1.0)


def open_transport(stdin: IO[bytes], stdout: IO[bytes], *, threads: bool = False) -> Transport:
    """The select transport where pipes can be selected (POSIX), else (or asked) threads."""
    if threads or os.name != "posix":
        return ThreadPipes(stdin, stdout)
    return SelectPipes(stdin, stdout)
