"""Print the gate's speed figures against their targets: a script, not a test.

Run: ``python benchmarks/bench_gate.py`` (``--quick`` for a smaller, faster run).

(a) ``ExecutionGate.authorize`` ns/call on a set of 10,000 core tools over a catalog of 100,000
    records vs on a 10-tool set over a 10-record catalog (target: ratio <= 1.5x).
(b) ``activate_many`` of 1k and 10k grants, and ``rebuilt_for_catalog`` of sets with 1k and 10k
    activations: ns per item at each size (target: no worse than n log n).
(c) ``authorize`` ns/call beside an inline baseline in the same run (target: <= 3x).  The
    baseline does, for the same tool, what the gate's core path must do at minimum, inline:
    1 dict lookup of the record (``records.get(id)``) and a ``None`` test; 1 dict lookup of the
    core pin (``core.get(id)``) and a ``None`` test; 1 comparison of the pin's digest with the
    record's digest; 1 comparison of the pinned provenance with the record's provenance; 1
    identity comparison of a *precomputed* trust verdict; 1 call of the same factory; and a
    tuple of (resolved call, implementation, basis) as the result.  It uses the very same
    record, pin, digest and provenance objects.  The gate additionally evaluates the
    source-trust rule on every call and builds an ``AuthorizedToolCall``.

Figures compared in a ratio are timed round-robin in the same rounds, and each ratio is the
median of the per-round ratios.  Every figure is the median of several timed runs after a
warm-up run, timed with ``time.perf_counter_ns``, the cyclic garbage collector paused.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable

from session_toolset import (
    BuiltinRuntime,
    BuiltinSource,
    CapabilityRecord,
    CoreBasis,
    ExecutionGate,
    McpConfig,
    McpSource,
    ResolvedToolCall,
    SessionActivationGrant,
    SessionId,
    SessionToolSet,
    SourceTrust,
    ToolCatalog,
    ToolId,
)

SESSION = SessionId.parse("bench-session")


def _implementation() -> object:
    return None


def mcp_record(i: int) -> CapabilityRecord:
    server = f"srv{i % 97}"
    name = f"tool{i}"
    return CapabilityRecord.new(
        ToolId.mcp(server, name),
        McpSource(server, name),
        McpConfig(server),
        {"type": "object", "i": i},
        factory=_implementation,
    )


def catalog_of(n: int) -> ToolCatalog:
    catalog = ToolCatalog()
    catalog.insert(
        CapabilityRecord.new(
            ToolId.builtin("bash"), BuiltinSource(), BuiltinRuntime(), {}, factory=_implementation
        )
    )
    for i in range(n - 1):
        catalog.insert(mcp_record(i))
    return catalog


def median_ns(run: Callable[[], int], repeats: int) -> float:
    """``run`` returns the ns it measured; warm up once, then the median of ``repeats`` runs.

    The cyclic garbage collector is paused while a run is timed (as ``timeit`` does), so a
    full collection of the benchmark's large heap is not charged to whichever run triggers it.
    """
    gc.collect()
    run()
    samples = []
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            samples.append(run())
        finally:
            gc.enable()
    return statistics.median(samples)


def time_authorize(
    catalog: ToolCatalog, tool_set: SessionToolSet, calls: list[ResolvedToolCall], loops: int
) -> Callable[[], int]:
    authorize = ExecutionGate.authorize

    def run() -> int:
        start = time.perf_counter_ns()
        for _ in range(loops):
            for call in calls:
                authorize(catalog, tool_set, call)
        return (time.perf_counter_ns() - start) // (loops * len(calls))

    return run


def time_baseline(
    catalog: ToolCatalog, tool_set: SessionToolSet, calls: list[ResolvedToolCall], loops: int
) -> Callable[[], int]:
    records = {r.id: r for r in catalog}
    core = dict(tool_set.core())
    trusted = {tool_id: records[tool_id].trust for tool_id in core}
    basis = CoreBasis()
    ok = SourceTrust.TRUSTED

    def run() -> int:
        start = time.perf_counter_ns()
        for _ in range(loops):
            for call in calls:
                tool_id = call.tool_id
                record = records.get(tool_id)
                if record is None:
                    raise LookupError
                pin = core.get(tool_id)
                if pin is None:
                    raise LookupError
                if pin.schema_digest != record.schema_digest:
                    raise ValueError
                if pin.provenance != record.provenance:
                    raise ValueError
                if trusted[tool_id] is not ok:
                    raise ValueError
                result = (call, record.factory(), basis)
                del result
        return (time.perf_counter_ns() - start) // (loops * len(calls))

    return run


def interleaved(runs: list[Callable[[], int]], repeats: int) -> list[list[int]]:
    """Time ``runs`` round-robin, ``repeats`` rounds after one warm-up round, so that every
    figure compared in a ratio was measured under the same machine load."""
    for run in runs:
        run()
    rounds: list[list[int]] = []
    for _ in range(repeats):
        row = []
        for run in runs:
            gc.collect()
            gc.disable()
            try:
                row.append(run())
            finally:
                gc.enable()
        rounds.append(row)
    return rounds


def bench_authorize(
    big_records: int, big_core: int, repeats: int
) -> tuple[float, float, float, float, float, float]:
    """Medians of (small, big, baseline) ns/call and of the per-round ratios big/small,
    small/baseline, and big/small for the inline baseline itself.

    The last ratio separates what the gate costs from what the machine costs: the big run
    cycles through 1,000 distinct tools of a 100,000-record catalog, so its working set no
    longer fits the CPU caches, and plain inline dict lookups slow down by that much too.
    """
    small_catalog = catalog_of(10)
    small_set = SessionToolSet.default_core_for_catalog(SESSION, small_catalog)
    small_calls = [ResolvedToolCall.for_tool(t) for t, _ in small_set.core()]

    big_catalog = catalog_of(big_records)
    core_ids = list(big_catalog.ids())[:big_core]
    big_set = SessionToolSet.new(SESSION, core_ids, big_catalog)
    step = max(1, big_core // 1000)
    big_calls = [ResolvedToolCall.for_tool(t) for t in core_ids[::step]]

    total = 100_000
    rounds = interleaved(
        [
            time_authorize(small_catalog, small_set, small_calls, total // len(small_calls)),
            time_authorize(big_catalog, big_set, big_calls, total // len(big_calls)),
            time_baseline(small_catalog, small_set, small_calls, total // len(small_calls)),
            time_baseline(big_catalog, big_set, big_calls, total // len(big_calls)),
        ],
        repeats,
    )
    small, big, base, _ = (statistics.median(col) for col in zip(*rounds, strict=True))
    size_ratio = statistics.median(r[1] / r[0] for r in rounds)
    base_ratio = statistics.median(r[0] / r[2] for r in rounds)
    base_size_ratio = statistics.median(r[3] / r[2] for r in rounds)
    return small, big, base, size_ratio, base_ratio, base_size_ratio


def bench_activate_many(n: int, repeats: int) -> float:
    catalog = catalog_of(n + 1)
    ids = [t for t in catalog.ids() if t != ToolId.builtin("bash")][:n]
    template = SessionToolSet.new(SESSION, [], catalog)
    grants = [
        SessionActivationGrant(SESSION, t, catalog.generation, rec.schema_digest)
        for t in ids
        if (rec := catalog.get(t)) is not None
    ]
    grants.reverse()  # request order differs from ToolId order

    def run() -> int:
        tool_set = template.copy()
        start = time.perf_counter_ns()
        applied = tool_set.activate_many(grants, catalog)
        elapsed = time.perf_counter_ns() - start
        assert applied == n
        return elapsed

    return median_ns(run, repeats) / n


def bench_rebuild(n: int, repeats: int) -> float:
    catalog = catalog_of(n + 1)
    ids = [t for t in catalog.ids() if t != ToolId.builtin("bash")][:n]
    tool_set = SessionToolSet.progressive_core_for_catalog(SESSION, catalog)
    tool_set.activate_many(
        [
            SessionActivationGrant(SESSION, t, catalog.generation, rec.schema_digest)
            for t in ids
            if (rec := catalog.get(t)) is not None
        ],
        catalog,
    )
    catalog.insert(
        CapabilityRecord.new(ToolId.builtin("unrelated"), BuiltinSource(), BuiltinRuntime(), {})
    )

    def run() -> int:
        start = time.perf_counter_ns()
        rebuilt, dropped = tool_set.rebuilt_for_catalog(catalog, progressive=True)
        elapsed = time.perf_counter_ns() - start
        assert len(rebuilt.activated()) == n and dropped == ()
        return elapsed

    return median_ns(run, repeats) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    args = parser.parse_args()
    repeats = 3 if args.quick else 7
    big_records, big_core = (20_000, 2_000) if args.quick else (100_000, 10_000)

    print(f"Python authorize benchmark (median of {repeats} runs after warm-up)\n")
    small_ns, big_ns, base_ns, size_ratio, base_ratio, base_size_ratio = bench_authorize(
        big_records, big_core, repeats
    )
    print("(a) authorize, core tool")
    print(f"    {'10-tool set / 10-record catalog':<46} {small_ns:>9.0f} ns/call")
    label = f"{big_core:,}-tool set / {big_records:,}-record catalog"
    print(f"    {label:<46} {big_ns:>9.0f} ns/call")
    print(f"    {'median per-round ratio big/small (target <= 1.5x)':<46} {size_ratio:>9.2f} x")
    print(f"    {'same ratio for the inline baseline (machine)':<46} {base_size_ratio:>9.2f} x\n")

    print("(b) batch operations, ns per item")
    print(f"    {'n':>8} {'activate_many':>15} {'rebuilt_for_catalog':>21}")
    sizes = (1_000, 10_000)
    per_item = {n: (bench_activate_many(n, repeats), bench_rebuild(n, repeats)) for n in sizes}
    for n, (act, reb) in per_item.items():
        print(f"    {n:>8,} {act:>15.0f} {reb:>21.0f}")
    act_growth = per_item[10_000][0] / per_item[1_000][0]
    reb_growth = per_item[10_000][1] / per_item[1_000][1]
    print(
        f"    per-item growth 1k->10k: activate_many {act_growth:.2f}x, "
        f"rebuilt_for_catalog {reb_growth:.2f}x (n log n would be ~1.33x)\n"
    )

    print("(c) authorize vs inline baseline (same run, 10-tool set)")
    print(f"    {'ExecutionGate.authorize':<46} {small_ns:>9.0f} ns/call")
    print(f"    {'inline baseline (2 lookups, 3 compares, 1 call)':<46} {base_ns:>9.0f} ns/call")
    print(f"    {'median per-round ratio (target <= 3x)':<46} {base_ratio:>9.2f} x")


if __name__ == "__main__":
    main()
