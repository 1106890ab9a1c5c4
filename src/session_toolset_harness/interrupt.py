"""Stopping a long command cleanly on Ctrl-C (SIGINT) or SIGTERM.

Inside `raising_on_signals` either signal raises `Interrupted` (a `KeyboardInterrupt`) in the
main thread; the command catches it where it holds its partial results, stops its children,
writes its reports marked incomplete and exits ``128 + signal``.  A SIGINT ignored by whatever
started the process stays ignored, as Python does; SIGTERM is always handled.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; ``exit_status`` is what the command exits with."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


def exit_status(error: KeyboardInterrupt) -> int:
    """130 for a plain Ctrl-C, ``128 + signal`` for an `Interrupted`."""
    return error.exit_status if isinstance(error, Interrupted) else 128 + signal.SIGINT


@contextlib.contextmanager
def raising_on_signals(
    before: Callable[[int], None] | None = None, signals: tuple[int, ...] = SIGNALS
) -> Iterator[None]:
    """``signals`` (SIGINT and SIGTERM) raise `Interrupted` inside the block (main thread only:
    elsewhere signals cannot be handled, and the block runs unchanged).  An ignored SIGINT stays
    ignored (see the module's docstring).  ``before``: called first, in the handler, with the
    signal number (say, to stop worker processes a library would otherwise wait for)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    owner = os.getpid()

    def handler(signum: int, _frame: FrameType | None) -> None:
        if os.getpid() != owner:  # a forked child inherited the handler: end it as the
            os._exit(128 + signum)  # default action would, without a traceback
        if before is not None:
            before(signum)
        raise Interrupted(signum)

    # an ignored SIGINT was inherited from whatever started the process: Python keeps it ignored
    ignored = signal.SIGINT if signal.getsignal(signal.SIGINT) == signal.SIG_IGN else None
    handled = [s for s in signals if s != ignored]
    previous = {signum: signal.signal(signum, handler) for signum in handled}
    try:
        yield
    finally:
        for signum, handler_before in previous.items():
            signal.signal(signum, handler_before)


def stop_child_processes() -> None:
    """Terminate this process's `multiprocessing` children (a pool's workers, say)."""
    for child in multiprocessing.active_children():
        child.terminate()


def exit_later(signum: int, seconds: float, last_words: Callable[[], None]) -> None:
    """Unless the process has exited within ``seconds``, call ``last_words`` (write what can be
    written), kill its `multiprocessing` children and exit with ``128 + signum``.

    For code that can sit in a C extension for long (a solver call): a Python signal handler
    only runs between bytecodes, and the `Interrupted` it raises may come too late."""

    def watchdog() -> None:
        time.sleep(seconds)
        with contextlib.suppress(Exception):
            last_words()
        for child in multiprocessing.active_children():
            with contextlib.suppress(OSError):
                os.kill(child.pid or 0, signal.SIGKILL)
        os._exit(128 + signum)

    threading.Thread(target=watchdog, name="exit-later", daemon=True).start()
