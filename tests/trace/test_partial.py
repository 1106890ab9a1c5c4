"""Partial mode: faithful logs with their catalog lines removed pass, forged decisions fail."""

from __future__ import annotations

import dataclasses
import itertools
import json
import tracemalloc
from collections.abc import Iterator
from importlib.resources import files

import pytest
from session_toolset_model.world import World
from session_toolset_model.world.fields import Fields
from session_toolset_model.world.protocol import RecordInfo

from session_toolset_harness.trace import window
from session_toolset_harness.trace.logline import RecordedLine
from session_toolset_harness.trace.partial import (
    CATALOG_GROUP,
    HiddenStep,
    NegativeBound,
    RecordedHiddenKind,
    UnknownKind,
    UnsolvableKind,
    WindowBound,
    check_partial,
    parse_kinds,
)

from .partial_support import Request, insert, record, session, without

CATALOG = frozenset(CATALOG_GROUP)


def strip(reply: dict[str, object]) -> dict[str, object]:
    """What a reply must match: its message and hello's implementation name are free text."""
    return {k: v for k, v in reply.items() if k not in {"message", "implementation"}}


def replay(lines: list[RecordedLine], steps: tuple[HiddenStep, ...]) -> list[int]:
    """The line numbers whose recorded reply the expected world does not give when the hidden
    steps run where the explanation places them (this test's own replay, not the solver's)."""
    world = World()
    wrong = []
    previous = 0
    for line in lines:
        for step in (s for s in steps if s.after_line == previous):
            if step.digest is None:
                assert world.handle(step.request)["ok"] is True, step
            else:  # the log shows this digest but never its schema: insert it at the oracle
                f = Fields(step.request)
                source, prov, tool = f.source("source"), f.provenance("provenance"), f.tool("id")
                if step.request["op"] == "catalog_upsert":
                    replaced = step.request["replaced"]
                    code, _ = world.oracle.catalog_upsert(replaced, tool, step.digest, source, prov)
                else:
                    code, _ = world.oracle.catalog_insert(tool, step.digest, source, prov)
                assert code == "ok", step
                world.records[tool] = RecordInfo(source, tool)
        if strip(world.handle(line.request)) != strip(line.reply):
            wrong.append(line.line)
        previous = line.line
    return wrong


FAITHFUL = record(session("a", ["x", "y"]))
"""1 reset, 2-3 inserts x y, 4 set_new (empty core), 5 issue_grant x, 6 activate, 7 authorize x
(exact), 8 authorize y (NotActivated), 9 upsert x (new schema), 10 authorize x (drift denied),
11 is_stale, 12 rebuild, 13 authorize x (now core)."""


def test_the_recorded_session_is_what_the_docstring_says() -> None:
    ops = [line.request["op"] for line in FAITHFUL]
    assert ops[1:3] == ["catalog_insert", "catalog_insert"] and ops[8] == "catalog_upsert"
    assert FAITHFUL[9].reply["error"] == "ToolAuthorizationError.SchemaDigestMismatch"
    assert FAITHFUL[7].reply["error"] == "ToolAuthorizationError.NotActivated"
    assert FAITHFUL[12].reply["basis"] == {"kind": "core"}


def test_a_faithful_log_without_its_catalog_lines_passes_and_its_explanation_replays() -> None:
    log = without(FAITHFUL, CATALOG)
    verdict = check_partial(log, CATALOG, 2, explain=True)
    assert verdict.consistent and verdict.window is None and verdict.undecided is None
    assert verdict.checked == len(log)
    assert verdict.explanation is not None
    # the drift denial at line 10 needs a hidden change of x's record after line 7
    assert any(
        s.request.get("id") == "mcp.srv:x"
        and 7 <= s.after_line <= 8
        and s.request["op"] in {"catalog_upsert", "catalog_insert"}
        for s in verdict.explanation
    )
    assert replay(log, verdict.explanation) == []
    # the replay can fail: without the hidden steps the recorded replies are not reproduced
    assert replay(log, ()) != []


def forged_authorization() -> list[RecordedLine]:
    """Line 8 flipped: y, never activated in a set with an empty core, is authorized."""
    log = without(FAITHFUL, CATALOG)
    forged = {"ok": True, "tool": "mcp.srv:y", "basis": {"kind": "exact", "catalog_generation": 2}}
    return [dataclasses.replace(x, reply=forged) if x.line == 8 else x for x in log]


def test_a_forged_authorization_no_catalog_change_explains_fails_with_its_window() -> None:
    """Every catalog line removed, two hidden steps per gap: the faithful log passes (above), the
    forged one fails from the set's creation (empty core, nothing activated for y) to the forged
    reply; any shorter window starts from a world where y may already be activated."""
    verdict = check_partial(forged_authorization(), CATALOG, 2)
    assert not verdict.consistent and verdict.undecided is None
    assert verdict.window == (4, 8)
    assert verdict.checked == 6  # reset, set_new, issue_grant, activate, authorize x, forged y


def test_a_forged_authorization_far_from_reset_keeps_its_window_in_a_short_reach() -> None:
    """30 lines after the reset, the same session (its own reset left out) with line 8's reply
    forged: the window the check may reach back (`--window`) is far shorter than the world,
    yet the shortest unexplained window, a proof from an arbitrary state, is the same."""
    requests = [{"op": "reset"}, *[PARSE] * 30, *session("a", ["x", "y"])[1:]]
    lines = without(record(requests), CATALOG)
    forged = next(x.reply for x in forged_authorization() if x.line == 8)
    log = [dataclasses.replace(x, reply=forged) if x.line == 8 + 30 else x for x in lines]
    wide, short = check_partial(log, CATALOG, 2), check_partial(log, CATALOG, 2, window=8)
    assert (wide.consistent, wide.undecided, wide.window) == (False, None, (34, 38))
    assert (short.consistent, short.undecided, short.window) == (False, None, (34, 38))
    assert short.checked == wide.checked == 36


PARSE: Request = {"op": "tool_id_parse", "raw": "a:b"}


def beyond_reach(fillers: int) -> list[Request]:
    """A set built with x in its core (line 3), ``fillers`` lines that say nothing about the
    catalog, then its snapshot (the pin's digest): only a hidden insert of x before line 3
    explains it."""
    return [
        {"op": "reset"},
        insert("x", {"v": 1}),
        {"op": "set_new", "name": "S", "session": "s", "core": ["mcp.srv:x"]},
        *[PARSE] * fillers,
        {"op": "snapshot", "set": "S"},
    ]


def test_a_line_explained_only_beyond_the_window_is_undecided_never_guessed() -> None:
    log = without(record(beyond_reach(12)), CATALOG)
    wide = check_partial(log, CATALOG, 1, explain=True)
    assert wide.consistent and wide.explanation is not None
    assert replay(log, wide.explanation) == []
    assert [step.after_line for step in wide.explanation] == [1]
    short = check_partial(log, CATALOG, 1, window=8)
    assert not short.consistent and short.window is None and short.checked == 15
    assert short.undecided is not None and "within the last 8 recorded line" in short.undecided
    assert "line 9 onwards was searched; raise --window" in short.undecided
    assert any("at most 8 recorded line(s) before" in limit for limit in short.limits)
    with pytest.raises(WindowBound):
        check_partial(log, CATALOG, 1, window=0)


def long_stream(gate_lines: int) -> Iterator[RecordedLine]:
    """One stream, one reset: the faithful session without its catalog lines, then
    ``gate_lines`` more gate calls, produced one at a time."""
    requests = session("a", ["x", "y"])
    tail = [
        {"op": "authorize", "set": "a-set", "tool": "mcp.srv:x"},
        {"op": "authorize", "set": "a-set", "tool": "mcp.srv:y"},
        {"op": "is_stale", "set": "a-set"},
    ]
    recorded = record(requests + tail)
    yield from without(recorded[: len(requests)], CATALOG)
    gate = recorded[len(requests) :]
    for n in range(gate_lines):
        yield dataclasses.replace(gate[n % 3], line=len(requests) + 1 + n)


def test_one_long_stream_is_checked_in_memory_bounded_by_its_window() -> None:
    """Ten times the lines after the reset, less than twice the peak memory: the checker holds
    a window of lines and saved worlds, not the partition."""

    def peak(gate_lines: int) -> int:
        tracemalloc.start()
        try:
            verdict = check_partial(long_stream(gate_lines), CATALOG, 2, window=50)
            assert verdict.consistent and verdict.checked == 10 + gate_lines, verdict
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    low, high = peak(200), peak(2000)
    assert high < 2 * low, (low, high)


def test_wire_name_gate_calls_constrain_the_hidden_catalog() -> None:
    """The same session with its gate calls at lines 7 and 8 made by wire name: a reply that
    names the resolved tool is that tool's authorization, so the faithful log is explained
    (not left undecided) and the forged one fails with the same window as by tool id."""
    requests = session("a", ["x", "y"])
    for index, tool in ((6, "x"), (7, "y")):
        assert requests[index]["op"] == "authorize"
        requests[index] = {"op": "authorize_wire", "set": "a-set", "wire_name": f"mcp.srv:{tool}"}
    faithful = without(record(requests), CATALOG)
    verdict = check_partial(faithful, CATALOG, 2, explain=True)
    assert verdict.consistent, verdict.undecided
    assert verdict.explanation is not None and replay(faithful, verdict.explanation) == []
    forged = next(x.reply for x in forged_authorization() if x.line == 8)
    log = [dataclasses.replace(x, reply=forged) if x.line == 8 else x for x in faithful]
    verdict = check_partial(log, CATALOG, 2)
    assert (verdict.consistent, verdict.undecided, verdict.window) == (False, None, (4, 8))


def test_the_same_window_when_only_schema_changes_are_unrecorded() -> None:
    upserts = frozenset({"catalog_upsert"})
    forged = next(x.reply for x in forged_authorization() if x.line == 8)
    log = [dataclasses.replace(x, reply=forged) if x.line == 8 else x for x in FAITHFUL]
    assert check_partial(without(FAITHFUL, upserts), upserts, 1).consistent
    verdict = check_partial(without(log, upserts), upserts, 1)
    assert not verdict.consistent and verdict.undecided is None
    assert verdict.window == (4, 8)
    assert verdict.checked == 8


def test_zero_hidden_steps_is_complete_mode_on_the_recorded_kinds() -> None:
    assert check_partial(FAITHFUL, frozenset(), 0).consistent
    assert check_partial(FAITHFUL, CATALOG - {"catalog_insert", "catalog_upsert"}, 0).consistent
    mutated = [
        dataclasses.replace(x, reply={**x.reply, "stale": False}) if x.line == 11 else x
        for x in FAITHFUL
    ]
    verdict = check_partial(mutated, frozenset(), 0)
    assert not verdict.consistent and verdict.window is not None and verdict.window[1] == 11
    # with the catalog lines removed and no hidden step allowed, the first grant is unexplained
    verdict = check_partial(without(FAITHFUL, CATALOG), CATALOG, 0)
    assert not verdict.consistent and verdict.window is not None and verdict.window[1] == 5


def test_the_bound_is_a_bound() -> None:
    """Two records must appear before the set is built (the grant at line 5 reports generation
    2 and the set's pinned generation must match it): one hidden step per gap is too few."""
    verdict = check_partial(without(FAITHFUL, CATALOG), CATALOG, 1)
    assert not verdict.consistent
    assert any("at most 1" in limit for limit in verdict.limits)


def test_arguments_are_validated() -> None:
    log = without(FAITHFUL, CATALOG)
    with pytest.raises(UnknownKind, match="catalog_frobnicate"):
        check_partial(log, frozenset({"catalog_frobnicate"}), 1)
    with pytest.raises(UnsolvableKind, match="authorize"):
        check_partial(log, frozenset({"authorize"}), 1)
    with pytest.raises(NegativeBound):
        check_partial(log, CATALOG, -1)
    with pytest.raises(RecordedHiddenKind, match="line 2"):
        check_partial(FAITHFUL, CATALOG, 1)
    assert UnknownKind.code != NegativeBound.code
    assert issubclass(UnknownKind, ValueError)
    assert parse_kinds("catalog") == CATALOG
    assert parse_kinds("catalog_remove,catalog_set_generation") == {
        "catalog_remove",
        "catalog_set_generation",
    }


CHANGES = frozenset({"catalog_upsert", "catalog_remove", "catalog_rebase_past"})
"""Catalog changes after the initial inserts: what a runtime that logs its start-up catalog but
not its later changes leaves out."""


def vector_requests(name: str) -> list[Request]:
    folder = files("session_toolset_harness") / "vectors"
    steps = json.loads((folder / name).read_text(encoding="utf-8"))["steps"]
    return [step["send"] for step in steps]


def burst(lines: list[RecordedLine], kinds: frozenset[str]) -> int:
    """The longest run of consecutive lines of ``kinds``: hidden steps needed in one gap."""
    ops = [line.request.get("op") in kinds for line in lines]
    return max((len(list(g)) for hidden, g in itertools.groupby(ops) if hidden), default=0)


@pytest.mark.parametrize(
    "name",
    [
        "hazards/activation.survives_reinsertion.json",
        "hazards/gate.source_swap_within_provenance.json",
        "hazards/grant.refused_after_catalog_change.json",
        "rebuild/drops-untrusted-and-source-drift.json",
        "rebuild/unrelated-drift-carries.json",
        "revoke/exact.json",
        "sets/progressive-core.json",
    ],
)
def test_corpus_transcripts_without_their_catalog_changes_pass(name: str) -> None:
    lines = record(vector_requests(name))
    log = without(lines, CHANGES)
    assert len(log) < len(lines)
    verdict = check_partial(log, CHANGES, burst(lines, CHANGES), explain=True)
    assert verdict.consistent, verdict
    assert verdict.explanation is not None
    assert replay(log, verdict.explanation) == []


@pytest.mark.parametrize(
    "name",
    [
        "catalog/upsert-rules.json",
        "hazards/core.default_admits_denied.json",
        "hazards/route.hands_out_stale.json",
        "model-cex/atomic_batch.activate_model--schema_gen_per_grant.json",
    ],
)
def test_corpus_transcripts_without_any_catalog_line_pass(name: str) -> None:
    lines = record(vector_requests(name))
    log = without(lines, CATALOG)
    verdict = check_partial(log, CATALOG, burst(lines, CATALOG), explain=True)
    assert verdict.consistent, verdict
    assert verdict.explanation is not None
    assert replay(log, verdict.explanation) == []


def test_a_generated_long_session_without_its_catalog_lines_passes() -> None:
    requests: list[Request] = []
    for n in range(3):
        requests += session(f"w{n}", ["x", "y"])
        requests += [{"op": "authorize", "set": f"w{n}-set", "tool": "mcp.srv:y"}] * 20
    lines = record(requests)
    log = without(lines, CATALOG)
    verdict = check_partial(log, CATALOG, 2, explain=True)
    assert verdict.consistent and verdict.checked == len(log)
    assert verdict.explanation is not None
    assert replay(log, verdict.explanation) == []


def test_a_solver_that_gives_up_leaves_the_verdict_undecided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(window, "RLIMIT", 1)
    verdict = check_partial(without(FAITHFUL, CATALOG), CATALOG, 2)
    assert not verdict.consistent and verdict.window is None
    assert verdict.undecided is not None and "gave up" in verdict.undecided


def test_a_drift_denial_flipped_to_allowed_is_explained_by_no_drift() -> None:
    """What partial mode cannot conclude: with the schema change unrecorded, "the schema never
    changed" explains an allowed call as well as the denial it replaced (complete mode, which
    sees the change, rejects it)."""
    allowed = {"ok": True, "tool": "mcp.srv:x", "basis": {"kind": "exact", "catalog_generation": 2}}
    log = [dataclasses.replace(x, reply=allowed) if x.line == 10 else x for x in FAITHFUL]
    assert not check_partial(log, frozenset(), 0).consistent
    verdict = check_partial(without(log, CATALOG), CATALOG, 2, explain=True)
    assert verdict.consistent and verdict.explanation is not None
    assert replay(without(log, CATALOG), verdict.explanation) == []


def _nested_extra(reply: dict[str, object]) -> dict[str, object]:
    """``reply`` with a field the model does not produce, also inside its objects."""
    inner = {k: {**v, "note": 1} if isinstance(v, dict) else v for k, v in reply.items()}
    return {**inner, "trace_id": "t-1"}


def test_partial_mode_compares_replies_by_complete_modes_rule() -> None:
    # extra fields are allowed at every depth (as in complete mode), in the concrete replay and
    # in the solver's window; a field the model produces is still required there
    faithful = record(session("a", ["x", "y"]))
    tagged = [dataclasses.replace(x, reply=_nested_extra(x.reply)) for x in faithful]
    catalog = frozenset(CATALOG_GROUP)
    assert check_partial(tagged, frozenset(), 0).consistent
    assert check_partial(without(tagged, catalog), catalog, 2).consistent
    basis = next(i for i, x in enumerate(tagged) if "catalog_generation" in str(x.reply))
    reply = dict(tagged[basis].reply)
    reply["basis"] = {"kind": "exact", "note": 1}
    missing = list(tagged)
    missing[basis] = dataclasses.replace(tagged[basis], reply=reply)
    assert not check_partial(missing, frozenset(), 0).consistent
    assert not check_partial(without(missing, catalog), catalog, 2).consistent
