"""The adapter's stdin and stdout as one non-blocking duplex transport (POSIX), driven from the
caller's thread with a selector (no threads: waking a reader thread per burst of replies slowed
a pipelined explorer).  `SelectPipes.send` never blocks; ``take(timeout)`` returns the next reply
line, a sticky `Eof` / `TooLong`, or None after ``timeout`` (0: only what is there), writing
what was queued meanwhile, so a pipelining caller never deadlocks against an adapter blocked on
a full stdout pipe; ``close_input(grace)`` writes the rest and closes stdin (False if it could
not); ``shut()`` closes our ends.
"""

from __future__ import annotations

import collections
import contextlib
import os
import selectors
import time
from typing import IO, Final

READ_BUFFER_BYTES: Final = 64 * 1024
MAX_REPLY_BYTES: Final = 16 * 1024 * 1024


class Eof:
    """The adapter closed its stdout."""


class TooLong:
    """A reply line grew past `MAX_REPLY_BYTES`; nothing after it is read."""


Item = bytes | Eof | TooLong


class _LineSplitter:
    """Bytes in, complete lines (and the sticky end items) out, in order.  An unfinished line
    is kept as its chunks and joined once (joining at every read cost n² bytes copied); a line
    past the limit is `TooLong` wherever its newline came."""

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


class SelectPipes:
    """Non-blocking pipes driven from the caller's thread."""

    def __init__(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self._stdin: IO[bytes] | None = stdin
        self._stdout: IO[bytes] | None = stdout
        self._in, self._out = stdin.fileno(), stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._queued = bytearray()
        self._lines = _LineSplitter()
        self._ready: collections.deque[Item] = collections.deque()
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

    def _pop(self) -> Item | None:
        """The next item read; an end item stays at the head once reached."""
        if not self._ready:
            return None
        item = self._ready[0]
        if isinstance(item, bytes):
            self._ready.popleft()
        return item

    def take(self, timeout: float) -> Item | None:
        item = self._pop()
        if item is not None:
            return item
        self._read()  # replies are usually already there: no wait, no selector call
        item = self._pop()
        deadline = time.monotonic() + timeout
        while item is None:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self._pump(left)
            item = self._pop()
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
