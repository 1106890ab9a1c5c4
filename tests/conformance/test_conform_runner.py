"""Runner statuses against fake adapters: pass, fail, crash, hang, bad replies, restarts."""

from __future__ import annotations

import shlex
from pathlib import Path

from session_toolset_harness.conform import vectors
from session_toolset_harness.conform.client import STDERR_TAIL_BYTES
from session_toolset_harness.conform.results import RunResult, Status, VectorResult
from session_toolset_harness.conform.runner import Runner, RunOptions

from .conftest import WriteVector, mini, parse_error, parse_ok, step

AUTHORIZE = step(
    {"op": "authorize", "set": "A", "tool": "a:b"},
    {"ok": False, "error": "ToolAuthorizationError.NotCataloged", "tool": "a:b"},
)


def run(adapter: str, *paths: Path, timeout: float = 10.0, strict: bool = False) -> RunResult:
    items = vectors.load_all(vectors.discover(paths))
    options = RunOptions(
        adapter=tuple(shlex.split(adapter)), timeout=timeout, strict_replies=strict
    )
    return Runner(options).run(items)


def only(result: RunResult) -> VectorResult:
    assert len(result.results) == 1
    return result.results[0]


def test_a_matching_adapter_passes(write_vector: WriteVector) -> None:
    path = write_vector("t/basic", parse_ok("a:b"), parse_error("", "ToolIdError.Empty"))
    result = run(mini(), path)
    assert only(result).status is Status.PASSED
    assert result.ok and result.requests == 4


def test_a_mismatch_fails_with_the_step_details(write_vector: WriteVector) -> None:
    wrong = step({"op": "tool_id_parse", "raw": "a:b"}, {"ok": True, "id": "a:c"})
    result = only(run(mini(), write_vector("t/wrong", parse_ok("x:y"), wrong)))
    assert result.status is Status.FAILED
    failure = result.failure
    assert failure is not None
    assert failure.index == 3
    assert failure.request == {"op": "tool_id_parse", "raw": "a:b"}
    assert failure.expected == {"ok": True, "id": "a:c"}
    assert failure.reply == {"ok": True, "id": "a:b"}
    assert failure.path == "$.id"


def test_a_crash_errors_and_the_next_vector_gets_a_fresh_adapter(write_vector: WriteVector) -> None:
    first = write_vector("t/1-crashes", parse_ok("a:b"), AUTHORIZE)
    second = write_vector("t/2-fine", parse_ok("a:b"))
    result = run(mini("--fault", "crash", "--on", "authorize"), first, second)
    crashed, fine = result.results
    assert crashed.status is Status.ERRORED
    assert crashed.failure is not None and crashed.failure.index == 3
    assert crashed.failure.message.startswith("crash:")
    assert "boom" in crashed.failure.stderr_tail
    assert fine.status is Status.PASSED


def test_a_hung_adapter_times_out_and_is_replaced(write_vector: WriteVector) -> None:
    first = write_vector("t/1-hangs", AUTHORIZE)
    second = write_vector("t/2-fine", parse_ok("a:b"))
    result = run(mini("--fault", "hang", "--on", "authorize"), first, second, timeout=1.0)
    hung, fine = result.results
    assert hung.status is Status.ERRORED
    assert hung.failure is not None and hung.failure.message.startswith("timeout:")
    assert fine.status is Status.PASSED


def test_replies_that_are_not_json_objects_error(write_vector: WriteVector) -> None:
    path = write_vector("t/bad-reply", parse_ok("a:b"))
    for fault, kind in [
        ("invalid-json", "invalid-json"),
        ("non-object", "not-object"),
        ("nan", "invalid-json"),
        ("silent-exit", "crash"),
    ]:
        result = only(run(mini("--fault", fault), path))
        assert result.status is Status.ERRORED, fault
        assert result.failure is not None and result.failure.message.startswith(kind + ":"), fault


def test_an_extra_reply_line_after_the_last_step_is_caught_by_the_sync_probe(
    write_vector: WriteVector,
) -> None:
    result = only(run(mini("--fault", "twice"), write_vector("t/twice", parse_ok("a:b"))))
    assert result.status is Status.ERRORED
    assert result.failure is not None
    assert "more reply lines" in result.failure.message or "extra-reply" in result.failure.message


def test_an_extra_reply_line_mid_vector_never_passes(write_vector: WriteVector) -> None:
    path = write_vector("t/twice-mid", parse_ok("a:b"), parse_error("", "ToolIdError.Empty"))
    result = only(run(mini("--fault", "twice", "--on", "tool_id_parse"), path))
    assert result.status in (Status.FAILED, Status.ERRORED)


def test_gate_denial_message_bound_fails_even_when_the_subset_matches(
    write_vector: WriteVector,
) -> None:
    result = only(run(mini("--fault", "long-message"), write_vector("t/long", AUTHORIZE)))
    assert result.status is Status.FAILED
    assert result.failure is not None and result.failure.path == "$.message"
    assert "600 bytes" in result.failure.message


def test_a_rejection_without_message_fails(write_vector: WriteVector) -> None:
    path = write_vector("t/no-message", parse_error("", "ToolIdError.Empty"))
    result = only(run(mini("--fault", "no-message"), path))
    assert result.status is Status.FAILED
    assert result.failure is not None and result.failure.path == "$.message"


def test_an_integer_answered_as_a_float_fails(write_vector: WriteVector) -> None:
    send = {"op": "catalog_set_generation", "value": 5}
    path = write_vector("t/float", step(send, {"ok": True, "generation": 5}))
    assert only(run(mini(), path)).status is Status.PASSED
    result = only(run(mini("--fault", "float-generation"), path))
    assert result.status is Status.FAILED
    assert result.failure is not None and result.failure.path == "$.generation"


def test_strict_replies_checks_the_reply_schema(write_vector: WriteVector) -> None:
    send = {"op": "catalog_set_generation", "value": -1}
    path = write_vector("t/negative", step(send, {"ok": True}))
    assert only(run(mini(), path)).status is Status.PASSED
    strict = only(run(mini(), path, strict=True))
    assert strict.status is Status.FAILED
    assert strict.failure is not None and "reply schema" in strict.failure.message
    assert strict.failure.path == "$.generation"
    extra = only(
        run(mini("--fault", "extra-field"), write_vector("t/extra", parse_ok("a:b")), strict=True)
    )
    assert extra.status is Status.PASSED


def test_non_object_requests_can_be_sent(write_vector: WriteVector) -> None:
    hostile = step([1, 2], {"ok": False, "error": "Protocol"})
    assert only(run(mini(), write_vector("t/hostile", hostile))).status is Status.PASSED


def test_a_nonzero_exit_on_eof_is_an_adapter_problem(write_vector: WriteVector) -> None:
    result = run(mini("--eof-status", "5"), write_vector("t/eof", parse_ok("a:b")))
    assert only(result).status is Status.PASSED
    assert not result.ok
    assert "status 5" in result.adapter_problems[0]


def test_stderr_tail_is_bounded_and_keeps_the_end(write_vector: WriteVector) -> None:
    path = write_vector("t/spam", AUTHORIZE)
    result = only(run(mini("--stderr-spam", "5000", "--fault", "crash", "--on", "authorize"), path))
    assert result.failure is not None
    tail = result.failure.stderr_tail
    assert len(tail.encode()) <= STDERR_TAIL_BYTES
    assert "boom" in tail


def test_load_problems_become_errored_or_skipped(tmp_path: Path, write_vector: WriteVector) -> None:
    good = write_vector("t/good", parse_ok("a:b"))
    folder = good.parent
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    (folder / "other.json").write_text('{"rows": []}', encoding="utf-8")
    (folder / "shapeless.json").write_text('{"protocol": 1, "steps": 3}', encoding="utf-8")
    by_path = {Path(r.path).name: r for r in run(mini(), folder).results}
    assert by_path["broken.json"].status is Status.ERRORED
    assert "invalid JSON" in by_path["broken.json"].reason
    assert by_path["other.json"].status is Status.SKIPPED
    assert by_path["other.json"].reason == "not a vector file"
    assert by_path["shapeless.json"].status is Status.ERRORED
    assert by_path[good.name].status is Status.PASSED


def test_duplicate_ids_are_errored(write_vector: WriteVector, tmp_path: Path) -> None:
    first = write_vector("t/same", parse_ok("a:b"))
    second = tmp_path / "copy.json"
    second.write_text(first.read_text(encoding="utf-8"), encoding="utf-8")
    statuses = [r.status for r in run(mini(), first, second).results]
    assert statuses == [Status.PASSED, Status.ERRORED]
