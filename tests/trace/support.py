"""Recording transcripts in-process: every corpus vector run through the reference adapter (or
a miniature's patched one), each as its own stream, written as trace lines."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from session_toolset.adapter import World, handle_line
from session_toolset_harness.conform import vectors
from session_toolset_harness.conform.jsonio import encode_line
from session_toolset_harness.trace.complete import Violation
from session_toolset_harness.trace.record import TraceWriter
from session_toolset_harness.trace.run import TraceResult, check_logs


def corpus() -> list[vectors.Vector]:
    folder = Path(str(resources.files("session_toolset_harness") / "vectors"))
    loaded = vectors.load_all(vectors.discover([folder]))
    return [v for v in loaded if isinstance(v, vectors.Vector)]


class _Sink(io.StringIO):
    """Collects written lines one by one."""

    def __init__(self) -> None:
        super().__init__()
        self.taken: list[str] = []

    def write(self, text: str) -> int:
        self.taken.append(text)
        return len(text)


def transcripts(items: list[vectors.Vector] | None = None) -> Iterator[str]:
    """Trace lines of every vector's exchange with the adapter in this process (lazily: a
    checker that stops early stops the recording too).  Patch the implementation around the
    iteration to record a miniature."""
    sink = _Sink()
    writer = TraceWriter(sink)
    for vector in corpus() if items is None else items:
        world = World()
        for step in vector.steps:
            reply = handle_line(world, encode_line(step.send)[:-1])
            writer.exchange(vector.id, step.send, reply)
            yield from sink.taken
            sink.taken.clear()


@cache
def recorded_corpus() -> tuple[str, ...]:
    """The reference adapter's transcript of the whole corpus, recorded once per session."""
    return tuple(transcripts())


def by_stream(lines: tuple[str, ...]) -> dict[str, list[str]]:
    streams: dict[str, list[str]] = {}
    for text in lines:
        streams.setdefault(json.loads(text)["stream"], []).append(text)
    return streams


class LineSource(io.StringIO):
    """An iterable of lines passed where the checker expects an open text file."""

    def __init__(self, lines: Iterator[str] | list[str]) -> None:
        super().__init__()
        self._lines = lines

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        return iter(self._lines)


def check(lines: Iterator[str] | list[str], *, keep_going: bool = False) -> TraceResult:
    return check_logs(["-"], LineSource(lines), keep_going=keep_going)


def violations(result: TraceResult) -> list[Violation]:
    """A complete-mode run's violations (partial mode's are windows, never listed here)."""
    found = [v for v in result.violations if isinstance(v, Violation)]
    assert len(found) == len(result.violations)
    return found


def line(request: dict[str, Any], reply: dict[str, Any], **extra: Any) -> str:
    return json.dumps({**extra, "request": request, "reply": reply}) + "\n"


@contextlib.contextmanager
def nothing() -> Iterator[None]:
    yield
