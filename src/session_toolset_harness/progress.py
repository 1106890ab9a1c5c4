"""One progress line for long commands: done/total, rate and time left, redrawn in place.

Shown only on a terminal (stderr is a TTY) and never with ``--quiet``; a log or a pipe gets
nothing from it.  Redrawn at most ten times a second, and erased again by `close`, so the
command's own output is not interleaved with it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Final, TextIO

REDRAW_SECONDS: Final = 0.1
WIDTH: Final = 79


def on_terminal(quiet: bool, stream: TextIO | None = None) -> bool:
    """Whether a progress line belongs on ``stream`` (default stderr)."""
    target = sys.stderr if stream is None else stream
    return not quiet and target.isatty()


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def render(label: str, done: int, total: int | None, unit: str, seconds: float, note: str) -> str:
    """The progress text: ``label: done/total unit (rate/s, ETA t)`` plus ``note``."""
    rate = done / seconds if seconds > 0 else 0.0
    count = f"{done:,}" if total is None else f"{done:,}/{total:,}"
    parts = [f"{rate:,.1f} {unit}/s" if rate < 10 else f"{rate:,.0f} {unit}/s"]
    if total is not None and rate > 0 and done < total:
        parts.append(f"ETA {_duration((total - done) / rate)}")
    text = f"{label}: {count} {unit} ({', '.join(parts)})"
    return f"{text}; {note}" if note else text


class Progress:
    """A progress line on ``stream``; every method does nothing when not ``enabled``."""

    def __init__(
        self,
        label: str,
        total: int | None,
        unit: str,
        *,
        enabled: bool,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label, self.total, self.unit = label, total, unit
        self.enabled = enabled
        self._stream = sys.stderr if stream is None else stream
        self._clock = clock
        self._started = clock()
        self._drawn = float("-inf")
        self._shown = False
        self.done = 0

    def update(self, done: int, note: str = "", *, force: bool = False) -> None:
        """Now ``done`` units are finished; redraw unless drawn less than 0.1 s ago."""
        self.done = done
        if not self.enabled:
            return
        now = self._clock()
        if not force and now - self._drawn < REDRAW_SECONDS:
            return
        self._drawn = now
        text = render(self.label, done, self.total, self.unit, now - self._started, note)
        self._stream.write("\r" + text[:WIDTH].ljust(WIDTH))
        self._stream.flush()
        self._shown = True

    def advance(self, count: int = 1, note: str = "") -> None:
        self.update(self.done + count, note)

    def close(self) -> None:
        """Erase the line (the command prints its own summary)."""
        if self.enabled and self._shown:
            self._stream.write("\r" + " " * WIDTH + "\r")
            self._stream.flush()
            self._shown = False
