"""``--coverage``: which (op, outcome) pairs the vectors reach, and which known codes none do.

Counts *vectors*, not steps: a pair hit by ten steps of one vector counts once, so the table says
how many independent scenarios would notice a regression there. Observations come from adapter
replies when vectors run, or from the vectors' ``expect`` when used with ``--validate`` (no
adapter needed, which is what a corpus author wants).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from session_toolset_harness.conform import codes
from session_toolset_harness.conform.checks import op_of
from session_toolset_harness.conform.results import Hit


@dataclass(frozen=True)
class Coverage:
    """Vector counts per (op, outcome) and per error code, over all ops."""

    pairs: dict[tuple[str, str], int]
    codes: dict[str, int]

    def missing(self, *, reachable_only: bool = True) -> list[str]:
        """Known codes no vector hit, in ``codes.KNOWN_CODES`` order."""
        universe = codes.REACHABLE_CODES if reachable_only else codes.KNOWN_CODES
        return [code for code in universe if self.codes.get(code, 0) == 0]


def compute(hits_per_vector: Iterable[Iterable[Hit]]) -> Coverage:
    """Aggregate per-vector hit lists into vector counts."""
    pairs: dict[tuple[str, str], int] = defaultdict(int)
    code_counts: dict[str, int] = defaultdict(int)
    for hits in hits_per_vector:
        distinct = set(hits)
        for hit in distinct:
            pairs[(hit.op, hit.outcome)] += 1
        for outcome in {hit.outcome for hit in distinct}:
            if outcome != "ok":
                code_counts[outcome] += 1
    return Coverage(dict(pairs), dict(code_counts))


def expected_hits(steps: Iterable[tuple[object, dict[str, object]]]) -> tuple[Hit, ...]:
    """Hits a vector *expects*: ``ok`` when ``expect.ok`` is true, else ``expect.error``."""
    outcomes = (("ok" if e.get("ok") is True else e.get("error"), send) for send, e in steps)
    return tuple(Hit(op_of(send), o) for o, send in outcomes if isinstance(o, str))


def render(coverage: Coverage) -> str:
    """The human-readable coverage table and the list of codes at zero."""
    lines = ["coverage: vectors per (op, outcome)"]
    width = max((len(op) for op, _ in coverage.pairs), default=2)
    for (op, outcome), count in sorted(coverage.pairs.items()):
        lines.append(f"  {op:<{width}}  {outcome:<50} {count}")
    missing = coverage.missing(reachable_only=True)
    lines.append(f"known reachable codes at zero: {len(missing)} of {len(codes.REACHABLE_CODES)}")
    lines.extend(f"  {code}" for code in missing)
    unreachable = [c for c in codes.UNREACHABLE if coverage.codes.get(c, 0) == 0]
    if unreachable:
        lines.append("not counted (unreachable through the host entry points):")
        lines.extend(f"  {code}  ({codes.UNREACHABLE[code]})" for code in unreachable)
    unknown = sorted(code for code in coverage.codes if not codes.is_known(code))
    if unknown:
        lines.append("codes seen that SPEC.md does not name:")
        lines.extend(f"  {code}" for code in unknown)
    return "\n".join(lines) + "\n"
