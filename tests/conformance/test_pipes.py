"""The transport of `conform.pipes` keeps the client's contract: ``send`` never blocks, replies
come back whole and in order however many are in flight, the end of stdout (and an over-long
line) stays visible, nothing waits past its timeout, and closing writes what was queued first.

Each test runs its adapter as a tiny Python script and a hang as a failure (a watchdog thread),
so a transport that blocks fails here instead of stalling the suite.
"""

from __future__ import annotations

import functools
import os
import selectors
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from session_toolset_harness.conform import pipes
from session_toolset_harness.conform.client import AdapterProcess, ExchangeError, Reply

T = TypeVar("T")
Start = Callable[[str], tuple["subprocess.Popen[bytes]", pipes.SelectPipes]]

ECHO = (
    "import sys\n"
    "for line in sys.stdin.buffer:\n"
    "    sys.stdout.buffer.write(line)\n"
    "    sys.stdout.flush()\n"
)
DEAF = "import time\ntime.sleep(60)\n"  # never reads stdin, never replies
COUNT = (  # reads to EOF, then says how many bytes came
    "import sys\nn = len(sys.stdin.buffer.read())\nsys.stdout.write(f'{n}\\n')\n"
)
PARTIAL = "import sys\nsys.stdout.write('one\\ntwo')\n"  # a last line without newline, then EOF
HUGE = (  # one line longer than the client accepts, and no end to it
    f"import sys, time\nsys.stdout.write('x' * {pipes.MAX_REPLY_BYTES + 1})\n"
    "sys.stdout.flush()\ntime.sleep(60)\n"
)


def _within(seconds: float, work: Callable[[], T]) -> T:
    """``work()``'s result; a failure if it does not return within ``seconds``."""
    box: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            box.append(work())
        except BaseException as err:  # re-raised in the test's thread
            errors.append(err)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"blocked for more than {seconds} s"
    if errors:
        raise errors[0]
    return box[0]


@pytest.fixture
def start() -> Iterator[Start]:
    started: list[tuple[subprocess.Popen[bytes], pipes.SelectPipes]] = []

    def launch(script: str) -> tuple[subprocess.Popen[bytes], pipes.SelectPipes]:
        proc = subprocess.Popen(
            [sys.executable, "-c", script],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        assert proc.stdin is not None and proc.stdout is not None
        transport = pipes.SelectPipes(proc.stdin, proc.stdout)
        started.append((proc, transport))
        return proc, transport

    yield launch
    for proc, transport in started:
        proc.kill()
        proc.wait()
        transport.shut()


def test_many_pipelined_lines_come_back_whole_and_in_order(
    start: Start,
) -> None:
    # 4,000 lines of 100 bytes: far more than either pipe holds, so the echo blocks on its stdout
    # while requests are still queued; the transport must keep both directions moving.
    _, transport = start(ECHO)
    lines = [f"{i:06d}:".encode() + b"y" * 92 + b"\n" for i in range(4000)]

    def exchange() -> list[pipes.Item | None]:
        transport.send(b"".join(lines))
        return [transport.take(10.0) for _ in lines]

    assert _within(30.0, exchange) == lines


def test_send_never_blocks_on_an_adapter_that_stopped_reading(
    start: Start,
) -> None:
    _, transport = start(DEAF)
    block = b"z" * 1023 + b"\n"

    def flood() -> int:
        for _ in range(2048):  # 2 MiB
            transport.send(block)
        return 2048

    assert _within(10.0, flood) == 2048
    assert _within(10.0, lambda: transport.take(0.3)) is None  # the timeout, not a hang
    assert _within(10.0, lambda: transport.close_input(0.3)) is False  # it could not be written


def test_closing_writes_everything_queued_first(
    start: Start,
) -> None:
    _, transport = start(COUNT)
    data = b"q" * (1 << 20)
    transport.send(data)
    assert _within(20.0, lambda: transport.close_input(10.0)) is True
    assert _within(20.0, lambda: transport.take(10.0)) == f"{len(data)}\n".encode()


def test_the_end_of_stdout_stays_visible_after_a_last_unterminated_line(
    start: Start,
) -> None:
    _, transport = start(PARTIAL)
    taken = _within(10.0, lambda: [transport.take(5.0) for _ in range(4)])
    assert taken[:2] == [b"one\n", b"two"]
    assert all(isinstance(item, pipes.Eof) for item in taken[2:])


def test_an_over_long_line_ends_reading(
    start: Start,
) -> None:
    _, transport = start(HUGE)
    taken = _within(30.0, lambda: [transport.take(10.0) for _ in range(2)])
    assert all(isinstance(item, pipes.TooLong) for item in taken)


def test_nothing_is_waited_for_with_a_zero_timeout(
    start: Start,
) -> None:
    _, transport = start(DEAF)
    assert _within(5.0, lambda: transport.take(0)) is None


def test_a_killed_adapter_reads_as_the_end(
    start: Start,
) -> None:
    proc, transport = start(DEAF)
    proc.kill()
    proc.wait()
    transport.send(b"after the end\n")  # a broken pipe is not an error of send
    assert isinstance(_within(10.0, lambda: transport.take(5.0)), pipes.Eof)


def test_the_client_answers_pipelined_requests_in_order() -> None:
    script = (
        "import sys, json\n"
        "for line in sys.stdin:\n"
        "    print(json.dumps({'ok': True, 'n': json.loads(line)['n']}), flush=True)\n"
    )
    adapter = AdapterProcess([sys.executable, "-c", script])
    try:
        answers = _within(
            30.0, lambda: list(adapter.exchange_pipelined([{"n": i} for i in range(500)], 10.0))
        )
    finally:
        status = adapter.close()
    assert [a.value["n"] for a in answers if isinstance(a, Reply)] == list(range(500))
    assert not any(isinstance(a, ExchangeError) for a in answers)
    assert status == 0


def test_waiting_for_a_reply_selects_once_and_never_past_the_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A wait with nothing left to write must sleep in one select call bounded by what is left
    # of the timeout: neither spin on a writable stdin (still watched once its queue is empty)
    # nor sleep past the deadline.
    proc = subprocess.Popen(
        [sys.executable, "-c", DEAF], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
    )
    assert proc.stdin is not None and proc.stdout is not None
    transport = pipes.SelectPipes(proc.stdin, proc.stdout)
    timeouts: list[float | None] = []
    select = transport._selector.select

    def counting(timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        timeouts.append(timeout)
        return select(timeout)

    monkeypatch.setattr(transport._selector, "select", counting)
    try:
        transport.send(b"fits in the pipe at once\n")
        assert _within(10.0, lambda: transport.take(0.2)) is None
    finally:
        proc.kill()
        proc.wait()
        transport.shut()
    assert 1 <= len(timeouts) <= 3, timeouts[:5]
    assert all(t is not None and 0 <= t <= 0.2 for t in timeouts), timeouts


def test_send_starts_writing_at_once(
    start: Start,
) -> None:
    # The adapter must get a request while the caller is busy elsewhere (the explorer generates
    # its next steps before it reads replies): no take() is needed to move the bytes.
    proc, transport = start("import sys\nsys.stdin.buffer.readline()\nsys.exit(5)\n")
    transport.send(b"go\n")
    assert proc.wait(timeout=30) == 5


def test_a_terminated_line_longer_than_the_limit_is_too_long(
    start: Start,
) -> None:
    # The newline may arrive in the very read that takes the line past the limit.
    _, transport = start(
        f"import sys, time\nsys.stdout.buffer.write(b'x' * {pipes.MAX_REPLY_BYTES + 1} + b'\\n')\n"
        "sys.stdout.flush()\ntime.sleep(60)\n"
    )
    taken = _within(30.0, lambda: [transport.take(10.0) for _ in range(2)])
    assert all(isinstance(item, pipes.TooLong) for item in taken)


GOODBYE = (  # reads to EOF, then writes more than a pipe holds before exiting 0
    "import sys\nsys.stdin.buffer.read()\nsys.stdout.write('x' * 300000 + '\\n')\n"
)


@pytest.mark.parametrize("script", [ECHO, GOODBYE], ids=["unread-replies", "goodbye"])
def test_close_reports_the_exit_status_of_an_adapter_still_writing(
    script: str,
) -> None:
    # Replies nobody read (and lines written after EOF) must not keep the adapter blocked on
    # a full stdout pipe until close() kills it: close() reads them while it waits.
    adapter = AdapterProcess([sys.executable, "-c", script])
    adapter.send([{"pad": "p" * 1000, "n": i} for i in range(1000)])  # 1 MB, no reply read
    assert _within(30.0, adapter.close) == 0


def test_close_after_the_adapter_shut_its_stdin_reports_its_exit_status() -> None:
    # A request that can never be written (the pipe is broken) is not a hang to kill for.
    script = (
        "import os, sys\nos.close(0)\n"
        "sys.stdout.write('{\"closed\": true}\\n')\nsys.stdout.flush()\nos._exit(3)\n"
    )
    adapter = AdapterProcess([sys.executable, "-c", script])
    adapter.send([{"op": "hello"}])  # not exchange(): the line may come before it is sent
    first = _within(30.0, lambda: adapter.receive(10.0))
    assert isinstance(first, Reply) and first.value == {"closed": True}
    adapter.send([{"op": "after the pipe broke"}])
    assert _within(30.0, adapter.close) == 3


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc/self/fd")
def test_a_finished_adapter_holds_no_file_descriptor() -> None:
    # Counted while every AdapterProcess is still referenced: the garbage collector must not
    # be what closes the pipes, the selector or the process's streams.
    crash = "import sys\nsys.stdin.readline()\nsys.exit(3)\n"
    kept: list[AdapterProcess] = []
    before = len(os.listdir("/proc/self/fd"))
    for end in ("close", "kill", "crash"):
        for _ in range(5):
            adapter = AdapterProcess([sys.executable, "-c", crash if end == "crash" else ECHO])
            kept.append(adapter)
            answer = _within(30.0, functools.partial(adapter.exchange, {"n": 1}, 10.0))
            assert isinstance(answer, ExchangeError if end == "crash" else Reply)
            _within(30.0, adapter.close if end == "close" else adapter.kill)
    assert len(os.listdir("/proc/self/fd")) <= before


def _split(chunks: list[bytes]) -> list[object]:
    lines = pipes._LineSplitter()
    return [
        item if isinstance(item, bytes) else type(item).__name__
        for chunk in chunks
        for item in lines.feed(chunk)
    ]


def test_the_splitter_joins_lines_across_reads_and_enforces_the_limit_exactly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pipes, "MAX_REPLY_BYTES", 10)
    ten = b"0123456789"
    assert _split([b"ab", b"c\nde", b"f\ng", b"", b"more"]) == [b"abc\n", b"def\n", b"g", "Eof"]
    assert _split([ten[:4], ten[4:], b"\n", b""]) == [ten + b"\n", "Eof"]  # at the limit: a line
    # one byte past it: too long, wherever the newline is and however the bytes were read
    assert _split([b"ok\n" + ten + b"x\nlater\n"]) == [b"ok\n", "TooLong"]
    assert _split([ten[:6], ten[6:] + b"x\nlater\n"]) == ["TooLong"]
    assert _split([ten[:6], ten[6:] + b"x", b"\n"]) == ["TooLong"]
    assert _split([b"a\n" * 8 + b"b", b"\n"]) == [b"a\n"] * 8 + [b"b\n"]  # a big read of lines
