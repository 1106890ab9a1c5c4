"""Every corpus vector's transcript with the reference adapter is consistent with the model."""

from __future__ import annotations

from session_toolset_harness.trace.jobs import check_logs_parallel

from .support import LineSource, by_stream, check, corpus, recorded_corpus


def test_every_vector_transcript_passes_in_complete_mode() -> None:
    lines = recorded_corpus()
    result = check(list(lines), keep_going=True)
    assert result.violations == []
    streams = by_stream(lines)
    assert len(streams) == len(corpus()) == len(result.partitions)
    # every recorded line was checked: each vector starts hello (stateless), reset
    assert result.counts.checked == result.counts.lines == len(lines)
    assert result.counts.before_reset == result.counts.open == 0


def test_the_corpus_passes_with_jobs_and_the_counts_agree() -> None:
    jobs = 3  # more workers than cores: routing, not speed, is under test
    lines = list(recorded_corpus())[:2000]
    alone = check(lines, keep_going=True)
    result = check_logs_parallel(["-"], LineSource(lines), jobs=jobs, keep_going=True)
    assert result.ok and result.violations == []
    assert result.counts == alone.counts
    assert sorted((p.stream or "", p.counts.lines) for p in result.partitions) == sorted(
        (p.stream or "", p.counts.lines) for p in alone.partitions
    )
