"""SharedSessionToolSet (SPEC.md 5): one lock-protected set; no torn state under contention."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from impl.impl_support import CountingFactory, builtin, catalog_of, mcp, set_state, sid
from session_toolset import (
    ExactBasis,
    ResolvedToolCall,
    SessionToolSet,
    SharedSessionToolSet,
    ToolId,
    issue_exact_grant,
)
from session_toolset.errors import (
    BulkActivationError,
    BulkGrant,
    RevocationNotActivated,
    ToolAuthorizationError,
)

pytestmark = pytest.mark.spec("5")

THREADS = 8
ITERATIONS = 400
TOOLS = [ToolId.mcp("srv", f"t{i}") for i in range(12)]
BASH = ToolId.builtin("bash")


def test_shared_set_owns_a_copy() -> None:
    catalog = catalog_of(builtin("bash"), mcp("srv", "t0"))
    plain = SessionToolSet.progressive_core_for_catalog(sid(), catalog)
    shared = SharedSessionToolSet(plain)
    plain.activate(issue_exact_grant(catalog, sid(), TOOLS[0]), catalog)
    assert shared.snapshot().activated() == ()
    snap = shared.snapshot()
    snap.activate(issue_exact_grant(catalog, sid(), TOOLS[0]), catalog)
    assert shared.snapshot().activated() == ()  # snapshots are copies too
    shared.replace(snap)
    assert set_state(shared.snapshot()) == set_state(snap)


def test_rejections_through_the_shared_set_change_nothing() -> None:
    catalog = catalog_of(builtin("bash"), mcp("srv", "t0"))
    shared = SharedSessionToolSet(SessionToolSet.progressive_core_for_catalog(sid(), catalog))
    before = set_state(shared.snapshot())
    with pytest.raises(RevocationNotActivated):
        shared.revoke_exact(TOOLS[0])
    catalog.insert(builtin("other"))
    with pytest.raises(BulkGrant):
        shared.activate_many([issue_exact_grant(catalog, sid(), TOOLS[0])], catalog)
    assert set_state(shared.snapshot()) == before
    assert shared.rebuild(catalog, progressive=True) == ()
    assert shared.snapshot().catalog_generation == catalog.generation


@dataclass
class Tally:
    activated: int = 0
    revoked: int = 0
    authorized: int = 0


def run_workers(work: Callable[[int], None], count: int) -> list[BaseException]:
    """Run ``work(0) .. work(count - 1)`` in threads started together; every exception raised in
    any of them, whatever its type.  An exception left to escape a thread would only become a
    warning and the test would pass, so each is caught here and handed back to the test."""
    start = threading.Barrier(count)
    errors: list[BaseException] = []
    lock = threading.Lock()

    def body(index: int) -> None:
        try:
            start.wait()
            work(index)
        except BaseException as err:  # any failure in any worker fails the test
            start.abort()  # a worker still waiting must not hang on the barrier
            with lock:
                errors.append(err)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return errors


@pytest.mark.parametrize("error", [KeyError("k"), TypeError("t"), AssertionError("a")])
def test_run_workers_reports_any_exception_in_any_worker(error: Exception) -> None:
    def work(index: int) -> None:
        if index == 3:
            raise error

    errors = run_workers(work, THREADS)
    # the failing worker's own exception; the others may have seen the barrier broken or not
    assert [e for e in errors if not isinstance(e, threading.BrokenBarrierError)] == [error]


def test_run_workers_reports_nothing_when_every_worker_succeeds() -> None:
    seen: list[int] = []
    lock = threading.Lock()

    def work(index: int) -> None:
        with lock:
            seen.append(index)

    assert run_workers(work, THREADS) == []
    assert sorted(seen) == list(range(THREADS))


def _check_invariants(tool_set: SessionToolSet) -> tuple[int, frozenset[ToolId]]:
    core = {t for t, _ in tool_set.core()}
    activated = {t for t, _ in tool_set.activated()}
    assert not core & activated, "core and activations overlap"
    for _, item in tool_set.activated():
        assert item.grant.session_id == tool_set.session
    return tool_set.schema_generation, frozenset(activated)


def test_eight_threads_hammering_one_shared_set() -> None:
    factory = CountingFactory()
    catalog = catalog_of(
        builtin("bash", factory=factory), *(mcp("srv", f"t{i}", factory=factory) for i in range(12))
    )
    session = sid("shared-session")
    shared = SharedSessionToolSet(SessionToolSet.progressive_core_for_catalog(session, catalog))
    log: list[tuple[int, frozenset[ToolId]]] = []  # appended under the set's lock: total order
    tallies = [Tally() for _ in range(THREADS)]

    def worker(seed: int) -> None:
        tally = tallies[seed]
        rng = random.Random(seed)
        last_seen = -1
        for _ in range(ITERATIONS):
            op = rng.randrange(6)
            tool = rng.choice(TOOLS)
            if op == 0:
                grant = issue_exact_grant(catalog, session, tool)
                try:
                    tally.activated += shared.activate_many([grant], catalog)
                except BulkActivationError as err:
                    assert err.code == "BulkActivationError.Grant.AlreadyActivated"
            elif op == 1:
                try:
                    shared.revoke_exact(tool)
                    tally.revoked += 1
                except RevocationNotActivated:
                    pass
            elif op == 2:
                target = rng.choice([*TOOLS, BASH])
                try:
                    call = shared.authorize(catalog, ResolvedToolCall.for_tool(target))
                    tally.authorized += 1
                    if target != BASH:
                        assert call.basis == ExactBasis(catalog.generation)
                except ToolAuthorizationError as err:
                    assert err.code == "ToolAuthorizationError.NotActivated"
                    assert target != BASH
            elif op == 3:
                assert shared.rebuild(catalog, progressive=True) == ()
            elif op == 4:
                snap = shared.snapshot()
                generation, _ = _check_invariants(snap)
                assert generation >= last_seen, "schema_generation went backwards"
                last_seen = generation
            else:
                shared.with_set(lambda s: log.append(_check_invariants(s)))

    assert run_workers(worker, THREADS) == []

    generations = [generation for generation, _ in log]
    assert generations == sorted(generations), "schema_generation decreased between snapshots"
    assert len(log) > 0

    final = shared.snapshot()
    final_generation, final_activated = _check_invariants(final)
    activated = sum(t.activated for t in tallies)
    revoked = sum(t.revoked for t in tallies)
    assert activated - revoked == len(final_activated)
    # the catalog never changed, so no rebuild dropped anything: every successful activation
    # and revocation advanced schema_generation by exactly one
    assert final_generation == activated + revoked
    assert factory.calls == sum(t.authorized for t in tallies)
    assert [t for t, _ in final.core()] == [BASH]


def test_pytest_here_fails_a_test_whose_thread_raises(tmp_path: Path) -> None:
    # pyproject.toml turns PytestUnhandledThreadExceptionWarning into an error: an exception
    # escaping a thread of some future test cannot leave it green.
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "import threading\n\n"
        "def test_escape():\n"
        "    thread = threading.Thread(target=lambda: {}['missing'])\n"
        "    thread.start()\n"
        "    thread.join()\n",
        encoding="utf-8",
    )
    config = Path(__file__).resolve().parents[2] / "pyproject.toml"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            "-c",
            str(config),
            "--rootdir",
            str(tmp_path),
            str(probe),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "PytestUnhandledThreadExceptionWarning" in done.stdout
