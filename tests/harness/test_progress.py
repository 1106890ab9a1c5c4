"""The shared progress line: count, rate and time left on a terminal; nothing otherwise."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys

from session_toolset_harness.progress import Progress, on_terminal, render

EXPLORE = [sys.executable, "-m", "session_toolset_harness.cli", "explore", "--seed", "1"]


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_render_gives_count_rate_and_time_left() -> None:
    assert render("conform", 30, 120, "vectors", 10.0, "") == (
        "conform: 30/120 vectors (3.0 vectors/s, ETA 30 s)"
    )
    assert render("explore", 500, 10_000, "examples", 5.0, "1 failed") == (
        "explore: 500/10,000 examples (100 examples/s, ETA 1 min 35 s); 1 failed"
    )
    assert "ETA" not in render("x", 5, None, "steps", 1.0, "")  # no total, no ETA


def test_the_line_is_redrawn_in_place_at_most_ten_times_a_second_and_erased() -> None:
    stream, clock = io.StringIO(), _Clock()
    line = Progress("conform", 4, "vectors", enabled=True, stream=stream, clock=clock)
    clock.now += 1.0
    line.advance()
    line.advance()  # no time passed: not redrawn
    clock.now += 1.0
    line.advance()
    drawn = stream.getvalue()
    assert "\n" not in drawn
    assert drawn.count("\r") == 2 and "1/4 vectors" in drawn and "3/4 vectors" in drawn
    line.close()
    assert stream.getvalue().endswith("\r")


def test_nothing_when_disabled_or_not_a_terminal() -> None:
    stream = io.StringIO()
    line = Progress("conform", 4, "vectors", enabled=on_terminal(False, stream), stream=stream)
    line.advance()
    line.close()
    assert stream.getvalue() == ""
    assert not on_terminal(True, stream)


def test_explore_shows_progress_on_a_terminal() -> None:
    def stderr_of(*flags: str) -> str:
        leader, follower = pty.openpty()
        proc = subprocess.Popen(
            [*EXPLORE, "--examples", "8", "--steps", "10", *flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=follower,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        os.close(leader)
        assert proc.wait(timeout=60) == 0
        return b"".join(chunks).decode()

    # (``--quiet`` turns it off: `on_terminal`, tested above)
    assert re.search(r"\rexplore: \d+/8 examples \([\d.,]+ examples/s", stderr_of())
