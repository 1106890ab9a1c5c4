"""Pipelined replay of one vector: every step and the sync probe are written before any reply
is read.

A vector's expectations are fixed before it runs — no step's request depends on an earlier reply
— so nothing is lost by sending them all at once: PROTOCOL.md guarantees one reply line per
request line, in order.  Each reply is still waited for with the per-request timeout (counted
from the moment the previous reply arrived), a crash or a timeout still ends the vector at the
step that got no reply, and the sync probe at the end still exposes an adapter that wrote more
lines than it was sent (its reply is then not a hello reply).  A line already waiting before the
vector is sent is reported as ``extra-reply`` on its first step.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from session_toolset_harness.conform.client import AdapterProcess, ExchangeError, Reply

SYNC_PROBE: dict[str, object] = {"op": "hello"}


def replies(
    adapter: AdapterProcess, requests: Sequence[object], timeout: float
) -> Iterator[Reply | ExchangeError]:
    """The reply to each of ``requests`` and then to the sync probe, in order; after the first
    `ExchangeError` every further item is that same error (the process is unusable)."""
    last: ExchangeError | None = None
    for answer in adapter.exchange_pipelined([*requests, SYNC_PROBE], timeout):
        if isinstance(answer, ExchangeError):
            last = answer
        yield answer
    while last is not None:
        yield last
