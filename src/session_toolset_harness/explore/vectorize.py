"""A failing sequence as a PROTOCOL.md vector file and as text for humans.

The vector's expectations come from the oracle (never from the system under test): it starts with
``hello`` + ``reset``, then the ``digest`` requests whose replies supplied the run's digest labels
(so a replay against another implementation says up front if its digests differ), then the
operations, then — when the divergence was in the observable state — the observation requests of
the failing step.  Replaying it with ``session-toolset conform --vectors FILE`` fails against
the implementation that diverged and passes against a conforming one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..conform.jsonio import RawLine, render
from ..conform.matcher import first_difference
from .observe import Divergence, StepRecord, digest_requests
from .pools import schema_key

Reply = dict[str, Any]


def _step(send: Reply | RawLine, expect: Reply) -> dict[str, Any]:
    if isinstance(send, RawLine):  # send_line / send_hex, as PROTOCOL.md vectors write it
        data = send.data
        try:
            return {"send_line": data.decode("utf-8"), "expect": expect}
        except UnicodeDecodeError:
            return {"send_hex": data.hex(), "expect": expect}
    return {"send": send, "expect": expect}


def vector_steps(
    records: Iterable[StepRecord], digests: dict[str, str] | None
) -> list[dict[str, Any]]:
    """hello, reset, the digest steps (unless ``digests`` is None), then the records."""
    steps = [
        _step({"op": "hello"}, {"ok": True, "protocol": 1}),
        _step({"op": "reset"}, {"ok": True}),
    ]
    for request in digest_requests():
        if digests is not None:
            expected = {"ok": True, "digest": digests[schema_key(request["schema"])]}
            steps.append(_step(request, expected))
    steps += [_step(r.request, r.expected) for r in records]
    return steps


def failure_vector(
    failure: Divergence, digests: dict[str, str], seed: int, *, preflight: bool = False
) -> dict[str, Any]:
    """The vector of a divergence; a preflight failure's records are the digest steps."""
    if failure.literal and not preflight:
        return literal_vector(failure, digests, seed)
    records = [*failure.steps, *failure.observation]
    return {
        "protocol": 1,
        "id": f"explore/divergence-seed-{seed}",
        "description": "Minimal failing sequence found by `session-toolset explore` "
        f"(seed {seed}): {failure.reason[:300]}. Expectations come from the model's oracle.",
        "tags": ["explore", "divergence" if not failure.adapter_failure else failure.kind],
        "steps": vector_steps(records, None if preflight else digests),
    }


def diverging_index(records: Iterable[StepRecord]) -> int | None:
    """The position (0-based) of the last record whose actual reply differs or is missing."""
    found = None
    for index, record in enumerate(records):
        if record.actual is None or first_difference(record.expected, record.actual) is not None:
            found = index
    return found


def literal_vector(failure: Divergence, digests: dict[str, str], seed: int) -> dict[str, Any]:
    """The exact exchange of the example that diverged (hello, digests, reset, then every request
    sent after the reset, each expecting the oracle's reply): nothing is cut."""
    steps = [_step({"op": "hello"}, {"ok": True, "protocol": 1})]
    for request in digest_requests():
        steps.append(_step(request, {"ok": True, "digest": digests[schema_key(request["schema"])]}))
    steps.append(_step({"op": "reset"}, {"ok": True}))
    first = len(steps)
    steps += [_step(r.request, r.expected) for r in failure.exchange]
    index = diverging_index(failure.exchange)
    seen = ""
    if index is not None:
        actual = failure.exchange[index].actual
        got = "no usable reply" if actual is None else render(actual, 300)
        seen = f" The implementation answered step {first + index} (0-based) with: {got}."
    if failure.flaky is not None:
        kind, tags = "flaky-divergence", ["explore", "divergence", "flaky"]
        why = (
            f" It did NOT reproduce on replay ({failure.flaky[:300]}): this vector fails "
            "against the implementation only if it diverges again, and passes against a "
            "conforming one."
        )
    else:
        kind, tags = "divergence", ["explore", "divergence", "literal"]
        why = (
            " A replay of its operations alone did not reproduce it, the exact exchange does: "
            "nothing was cut."
        )
    return {
        "protocol": 1,
        "id": f"explore/{kind}-seed-{seed}",
        "description": f"Failing exchange found by `session-toolset explore` (seed {seed}): "
        f"{failure.reason[:300]}.{seen}{why} Every request the explorer sent after the "
        "example's reset, in order; expectations come from the model's oracle.",
        "tags": tags,
        "steps": steps,
    }


def write_vector(path: Path, vector: dict[str, Any]) -> None:
    path.write_text(json.dumps(vector, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def describe(failure: Divergence) -> str:
    """The failing sequence as requests with expected vs actual replies."""
    if failure.flaky is not None:
        lines = [
            f"{_what(failure)} (flaky: not reproduced on replay): {failure.reason}",
            f"replay: {failure.flaky}",
            "",
            "the operations of the example as it ran (after reset; not shrunk, and the "
            f"vector holds all {len(failure.exchange)} requests sent, observations included):",
        ]
    elif failure.literal:
        lines = [
            f"{_what(failure)}: {failure.reason}",
            "(not reproduced by the operations alone: the vector is the exact exchange, "
            f"{len(failure.exchange)} requests)",
            "",
            "the operations of the example as it ran (after reset):",
        ]
    elif failure.adapter_failure:
        lines = [
            f"{_what(failure)}: {failure.reason}",
            "",
            "the sequence that led to it (after reset):",
        ]
    else:
        lines = [f"divergence: {failure.reason}", "", "minimal failing sequence (after reset):"]
    records = list(failure.steps)
    for index, record in enumerate(records, 1):
        lines.append(f"{index:3}. > {render(record.request, 300)}")
        lines.append(f"       expected: {render(record.expected, 300)}")
        if record.actual is None:
            lines.append("       actual:   (no usable reply)")
        elif first_difference(record.expected, record.actual) is not None:
            lines.append(f"       actual:   {render(record.actual, 300)}   <-- differs")
    bad = [
        r
        for r in failure.observation
        if r.actual is None or first_difference(r.expected, r.actual) is not None
    ]
    if failure.observation:
        lines.append("observable state after the last step:")
        for record in bad or failure.observation[:1]:
            lines.append(f"     > {render(record.request, 300)}")
            lines.append(f"       expected: {render(record.expected, 600)}")
            lines.append(f"       actual:   {render(record.actual, 600)}")
        if not bad:
            lines.append("     (each observation matches the oracle, but the rejected step")
            lines.append("      changed the SUT's state: compare with the step before)")
    return "\n".join(lines)


def _what(failure: Divergence) -> str:
    return f"adapter failure ({failure.kind})" if failure.adapter_failure else "divergence"
