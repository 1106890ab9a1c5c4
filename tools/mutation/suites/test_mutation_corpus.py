"""Mutation suite "corpus": every PROTOCOL.md vector under the harness's ``vectors/`` (compact files
expanded as the runner expands them), replayed
in-process against the (mutated) reference adapter, one pytest item per vector so mutmut runs only
the vectors that reach the mutated function.  A mutant is killed when any vector fails.

A reply is judged exactly as ``session-toolset conform --strict-replies`` judges it (the runner's
own pieces, imported, not re-implemented): the request goes out as the runner encodes it
(:func:`~session_toolset_harness.conform.jsonio.encode_line`), the reply line is parsed strictly
(no ``NaN``, must be an object), then the subset rule (``conform.matcher``), the per-reply protocol
rules (``conform.checks.reply_problem``: boolean ``ok``, string ``error`` and ``message`` on every
rejection, gate denials under 512 bytes) and the reply schema (``conform.schemas``).

And the replay goes through the adapter's stdin/stdout loop (``session_toolset.adapter.server.
serve``), which is what the runner talks to through a pipe: in-memory streams stand in for the
pipe, paced like the runner (a request line is handed over only once the reply to the previous one
has been written *and flushed* - a real runner would wait forever otherwise), exactly one reply line
per request, then the runner's sync probe ``hello``, then EOF, on which the loop must return 0.
One item also goes through ``main()`` (``python -m session_toolset.adapter``) with the process
streams replaced, as the runner starts the adapter.

Copied into the mutation work directory by ``tools/mutation/run.py``; never collected by the
project's own ``pytest`` run (it lives outside ``tests/``).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import session_toolset_harness
from session_toolset.adapter.server import main, serve
from session_toolset_harness.conform import checks, schemas
from session_toolset_harness.conform.jsonio import JsonTextError, encode_line, parse_strict, render
from session_toolset_harness.conform.matcher import first_difference
from session_toolset_harness.conform.runner import SYNC_PROBE
from session_toolset_harness.conform.vectors import documents, read_send

VECTORS = Path(session_toolset_harness.__file__).resolve().parent / "vectors"
DOCUMENTS = documents(VECTORS)
#: The vector that also goes through ``main()``.
MAIN_VECTOR = "protocol/malformed-requests"


class Pipe(io.StringIO):
    """The adapter's stdout: remembers how much of what was written has been flushed."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed = ""

    def flush(self) -> None:
        super().flush()
        self.flushed = self.getvalue()


class PacedStdin(io.BytesIO):
    """The adapter's stdin, fed like the runner feeds it: one line, then wait for its reply."""

    def __init__(self, lines: list[bytes], stdout: Pipe) -> None:
        super().__init__(b"".join(lines))
        self._lines = lines
        self._stdout = stdout
        self._given = 0

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        replied = self._stdout.flushed.count("\n")
        # the runner reads one reply line per request before sending the next one
        assert replied == self._given, (
            f"after {self._given} request line(s) the adapter has written and flushed "
            f"{replied} reply line(s)"
        )
        assert self._stdout.getvalue() == self._stdout.flushed, "a reply was not flushed"
        if self._given == len(self._lines):
            raise StopIteration
        self._given += 1
        return self._lines[self._given - 1]

    def readline(self, size: int | None = -1) -> bytes:
        try:
            return next(self)
        except StopIteration:
            return b""


def judge(step: dict[str, Any], line: str) -> str | None:
    """Why this reply line fails its step, as ``conform --strict-replies`` says it; or None."""
    try:
        reply = parse_strict(line)
    except JsonTextError as exc:
        return f"reply is not JSON: {exc}: {line[:200]!r}"
    if not isinstance(reply, dict):
        return f"reply is JSON but not an object: {line[:200]!r}"
    difference = first_difference(step["expect"], reply)
    if difference is not None:
        return f"mismatch at {difference.path}: {difference.message}"
    problem = checks.reply_problem(reply)
    if problem is None:
        found = schemas.validate_reply(checks.op_of(read_send(step)), reply)
        if found:
            problem = (found[0].path, f"reply schema: {found[0].message}")
    if problem is not None:
        return f"protocol rule broken at {problem[0]}: {problem[1]}"
    return None


def _lines(document: dict[str, Any]) -> list[bytes]:
    # read_send: a send_line / send_hex step goes out byte for byte, as the runner sends it
    sends = [read_send(step) for step in document["steps"]] + [SYNC_PROBE]
    return [encode_line(send) for send in sends]


def _check_output(document: dict[str, Any], status: int, stdout: Pipe) -> None:
    assert status == 0, f"the loop returned {status} on EOF (PROTOCOL.md: exit 0)"
    text = stdout.getvalue()
    assert text == stdout.flushed, "the last reply was not flushed"
    assert text.endswith("\n"), "every reply line ends with a newline"
    lines = text[:-1].split("\n")
    steps = document["steps"]
    assert len(lines) == len(steps) + 1, f"{len(lines)} reply lines for {len(steps) + 1} requests"
    for index, (step, line) in enumerate(zip(steps, lines, strict=False)):
        failure = judge(step, line)
        sent = render(read_send(step), 200)
        assert failure is None, f"{document['id']} step {index} {sent}: {failure}"
    probe = parse_strict(lines[-1])
    assert isinstance(probe, dict) and probe.get("ok") is True and probe.get("protocol") == 1, (
        f"the sync probe hello got {lines[-1][:200]!r}"
    )


@pytest.mark.parametrize("document", DOCUMENTS, ids=[str(d["id"]) for d in DOCUMENTS])
def test_vector(document: dict[str, Any]) -> None:
    stdout = Pipe()
    status = serve(PacedStdin(_lines(document), stdout), stdout, io.StringIO())
    _check_output(document, status, stdout)


def test_main_serves_the_process_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    (document,) = [d for d in DOCUMENTS if d["id"] == MAIN_VECTOR]
    stdout = Pipe()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(PacedStdin(_lines(document), stdout)))
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    _check_output(document, main(), stdout)
