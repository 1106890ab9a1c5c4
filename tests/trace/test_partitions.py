"""A log of many partitions is checked in bounded memory: at most `partitions.LIVE` worlds live
per process, the others spilled to a temporary file and reloaded exactly as they were."""

from __future__ import annotations

import itertools
import json
import tracemalloc
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from session_toolset_harness.trace import jobs, partial_run, partitions, report
from session_toolset_harness.trace.jobs import check_logs_parallel
from session_toolset_harness.trace.partial import CATALOG_GROUP, check_partial
from session_toolset_harness.trace.partial_run import check_partitions, read_partitions
from session_toolset_harness.trace.run import WINDOW, PartialSettings, TraceResult

from .support import LineSource, check, line, recorded_corpus, violations

PARSE = {"op": "tool_id_parse", "raw": "a:b"}


def sessions(count: int) -> Iterator[str]:
    """``count`` short runtime sessions, one stream each, one after the other."""
    for n in range(count):
        yield line({"op": "reset"}, {"ok": True}, stream=f"s{n}")
        yield line(PARSE, {"ok": True, "id": "a:b"}, stream=f"s{n}")


def peak(run: Callable[[int], None], count: int) -> int:
    tracemalloc.start()
    try:
        run(count)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def flat(run: Callable[[int], None], small: int = 300) -> None:
    """Ten times the partitions, less than twice the peak memory."""
    low, high = peak(run, small), peak(run, 10 * small)
    assert high < 2 * low, (low, high)


def test_the_parent_of_jobs_workers_stays_flat_when_partitions_grow_tenfold() -> None:
    def run(count: int) -> None:
        result = check_logs_parallel(["-"], LineSource(sessions(count)), jobs=2, keep_going=True)
        assert result.ok and len(result.partitions) == count

    flat(run, small=600)  # the line batches handed to the workers fill up from about 1000 lines


class _Inbox:
    """A worker's inbox fed lazily from the log, as the parent's bounded queue feeds it."""

    def __init__(self, count: int) -> None:
        self.messages = self._messages(count)

    @staticmethod
    def _messages(count: int) -> Iterator[Any]:
        batch: list[tuple[int, str]] = []
        for number, text in enumerate(sessions(count), 1):
            batch.append((number, text))
            if len(batch) == jobs.BATCH:
                yield (0, "-", batch)
                batch = []
        yield (0, "-", batch)
        yield (0, "-", None)
        yield None

    def get(self) -> Any:
        return next(self.messages)


class _Outbox:
    def __init__(self) -> None:
        self.partitions = 0
        self.other: list[Any] = []

    def put(self, message: Any) -> None:
        if message[0] == "partitions":
            self.partitions += len(message[1])
        else:
            self.other.append(message)


def test_a_jobs_worker_stays_flat_when_its_partitions_grow_tenfold() -> None:
    def run(count: int) -> None:
        outbox = _Outbox()
        jobs.serve(_Inbox(count), outbox, keep_going=True)
        assert (outbox.partitions, outbox.other) == (count, [("done", False)])

    flat(run)


def _interleaved(forged_at: int | None = None) -> list[str]:
    """120 vectors' transcripts with every vector's lines dealt round-robin across the log, so
    each stream's lines are far apart; ``forged_at``: one authorize reply forged that far
    into the log."""
    streams: dict[str, list[str]] = {}
    for text in recorded_corpus():
        streams.setdefault(json.loads(text)["stream"], []).append(text)
    queues = list(streams.values())[:120]
    out: list[str] = []
    while queues:
        out += [q.pop(0) for q in queues]
        queues = [q for q in queues if q]
    if forged_at is not None:
        at = next(
            i
            for i, text in enumerate(out)
            if i >= forged_at
            and json.loads(text)["request"].get("op") == "authorize"
            and json.loads(text)["reply"].get("ok") is False
        )
        entry = json.loads(out[at])
        entry["reply"] = {
            "ok": True,
            "tool": entry["request"].get("tool"),
            "basis": {"kind": "core"},
        }
        out[at] = json.dumps(entry) + "\n"
    return out


def _summary(result: TraceResult) -> tuple[Any, ...]:
    parts = [(p.stream, p.first, p.violations, p.counts) for p in result.partitions]
    found = [(v.line, v.stream, v.path) for v in violations(result)]
    return parts, found, result.counts


@pytest.mark.parametrize("jobs_", [1, 2])
def test_spilled_partitions_are_reloaded_as_they_were(
    monkeypatch: pytest.MonkeyPatch, jobs_: int
) -> None:
    log = _interleaved(forged_at=1000)

    def run() -> TraceResult:
        if jobs_ == 1:
            return check(log, keep_going=True)
        return check_logs_parallel(["-"], LineSource(log), jobs=jobs_, keep_going=True)

    monkeypatch.setattr(partitions, "LIVE", 10**6)  # nothing spilled: the reference
    monkeypatch.setattr(partitions, "KEPT", 10**6)
    kept = run()
    assert len(violations(kept)) == 1 and kept.counts.checked > 1500
    monkeypatch.setattr(partitions, "LIVE", 3)  # nearly every line reloads a spilled world
    monkeypatch.setattr(partitions, "KEPT", 5)  # and the results go to disk
    spilled = run()
    assert _summary(spilled) == _summary(kept)
    assert [p.first for p in spilled.partitions] == sorted(p.first for p in spilled.partitions)


def test_the_reports_are_written_one_partition_at_a_time(tmp_path: Path) -> None:
    json_path, junit_path = tmp_path / "r.json", tmp_path / "r.xml"

    def write(result: TraceResult) -> int:
        tracemalloc.start()
        try:
            report.write_json(result, json_path)
            report.write_junit(result, junit_path)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = check(sessions(300)), check(sessions(3000))
    low, high = write(small), write(large)
    assert high < 2 * low, (low, high)
    written = json.loads(json_path.read_text(encoding="utf-8"))
    assert written == json.loads(json.dumps(report.build_json(large)))
    assert [p["stream"] for p in written["partitions"]] == [f"s{n}" for n in range(3000)]
    cases = ET.parse(junit_path).getroot().iter("testcase")
    assert [case.get("name") for case in cases] == [f"s{n}" for n in range(3000)]


def _partial_settings(window: int = WINDOW) -> PartialSettings:
    kinds = frozenset(CATALOG_GROUP)
    limits = check_partial([], kinds, 2, window=window).limits
    return PartialSettings(tuple(sorted(kinds)), 2, limits, window=window)


def test_a_partial_run_stays_flat_when_its_partitions_grow_tenfold() -> None:
    """Partial mode's parent files the lines in the temporary file and hands the partitions
    out a chunk at a time: neither the log nor the list of partitions is held."""

    def run(count: int) -> None:
        result = check_partitions(
            ["-"], LineSource(sessions(count)), _partial_settings(), jobs=1, keep_going=True
        )
        assert result.ok and len(result.partitions) == count

    flat(run)


def test_a_partial_worker_streams_its_partition_from_the_file() -> None:
    """One long partition filed, then checked as a worker checks it: ten times the lines, less
    than twice the peak memory."""
    settings = _partial_settings(window=20)

    def run(count: int) -> None:
        spill = partitions.Spill()
        try:
            lines = sessions(1)  # reset, then one tool id parsed: repeated in one stream
            text = itertools.chain([next(lines)], itertools.repeat(next(lines), count))
            assert read_partitions(["-"], LineSource(text), frozenset(), spill) == count + 1
            verdict, length = partial_run._solve(((0, 0, "s0", 1), settings, spill.path))
            assert verdict.consistent and verdict.checked == length == count + 1
        finally:
            spill.close()

    flat(run, small=600)  # the rows filed a batch at a time fill up from 512 lines
