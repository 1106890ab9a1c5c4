"""The harness against deliberately broken adapters: fail fast, stop after repeated adapter
failures, name crashes, timeouts and extra lines as such, check output paths before any work,
and stop cleanly on SIGINT/SIGTERM (exit 130/143, partial report, no process left behind).

The fakes: ``fakes/broken.py`` (broken from the start) and the explorer's
``tests/explore/fakes/faulty_reference.py`` (the reference adapter with one fault mid-run).
Timeouts are short, through ``--timeout`` (conform) or a patched `make_sut` (explore).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path

import pytest

from session_toolset_harness import check
from session_toolset_harness.conform import cli as conform_cli
from session_toolset_harness.explore import cli as explore_cli
from session_toolset_harness.interrupt import Interrupted, raising_on_signals
from session_toolset_harness.progress import Progress

from .test_reports import assert_valid

HERE = Path(__file__).parent
BROKEN = HERE / "fakes" / "broken.py"
FAULTY = HERE.parent / "explore" / "fakes" / "faulty_reference.py"
VECTORS = Path(str(resources.files("session_toolset_harness") / "vectors"))
GATE = VECTORS / "gate"  # 7 vectors, each with an authorize request
START_MODES = ["exit-now", "die-before-hello", "wrong-hello", "close-stdout", "hang"]


def broken(mode: str) -> str:
    return shlex.join([sys.executable, str(BROKEN), "--mode", mode])


def faulty(*flags: str) -> str:
    return shlex.join([sys.executable, str(FAULTY), *flags])


def run_cli(*argv: str, timeout: float = 60) -> tuple[int, str, str, float]:
    """``session-toolset ARGV`` in a subprocess: exit status, stdout, stderr, seconds."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "session_toolset_harness.cli", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr, time.monotonic() - started


def descendants(pid: int) -> set[int]:
    """Every living descendant of ``pid`` (Linux: /proc/PID/task/*/children)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def adapters_busy(pid: int, cpu_seconds: float) -> bool:
    """Whether the reference adapters under ``pid`` used ``cpu_seconds`` of CPU between them:
    requests are being answered, so the exploration is under way."""
    used = 0.0
    for child in descendants(pid):
        try:
            if b"session_toolset.adapter" not in Path(f"/proc/{child}/cmdline").read_bytes():
                continue
            fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return used >= cpu_seconds


def wait_for(condition: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


# --- fail fast --------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", START_MODES)
def test_conform_stops_at_once_with_one_line_for_an_adapter_broken_from_the_start(
    capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    started = time.monotonic()
    status = conform_cli.main(["--adapter", broken(mode), "--timeout", "1"])
    seconds = time.monotonic() - started
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "failed its hello" in lines[0] and f"broken adapter: mode {mode}" in lines[0]
    assert seconds < 5


@pytest.mark.parametrize("mode", START_MODES)
def test_explore_stops_at_once_with_one_line_for_an_adapter_broken_from_the_start(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setattr(explore_cli, "REQUEST_TIMEOUT_SECONDS", 1.0)
    started = time.monotonic()
    status = explore_cli.main(["--adapter", broken(mode), "--seed", "1"])
    seconds = time.monotonic() - started
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and "failed its hello" in err, err
    assert seconds < 5


def test_a_hung_program_behind_a_wrapper_script_does_not_outlive_the_run(tmp_path: Path) -> None:
    """An adapter is often a script that runs the real program without ``exec``: the harness
    kills the adapter's whole process group, so the hung program goes with its wrapper."""
    pid_file = tmp_path / "adapter.pid"
    program = shlex.join([*shlex.split(broken("hang")), "--pid-file", str(pid_file)])
    wrapper = shlex.join(["sh", "-c", f"{program}; true"])
    status = conform_cli.main(["--adapter", wrapper, "--timeout", "1", "--quiet"])
    assert status == 2
    pid = int(pid_file.read_text())
    wait_for(lambda: not alive(pid), 5.0)
    assert not alive(pid)


def test_conform_stops_after_max_failures_in_a_row(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    status, out, _, seconds = run_cli(
        "conform",
        "--adapter",
        faulty("--fault", "hang", "--on", "reset"),
        "--timeout",
        "0.5",
        "--max-failures",
        "2",
        "--json",
        str(report),
    )
    assert status == 1
    assert "INCOMPLETE: stopped after 2 vectors in a row ended in adapter failures (timeout" in out
    assert "0 passed, 0 failed, 0 skipped, 2 errored" in out
    errors = [line for line in out.splitlines() if line.startswith("ERROR ")]
    assert len(errors) == 2 and all("no reply within 0.5 s" in line for line in errors)
    found = json.loads(report.read_text())
    assert found["verdict"] == "incomplete" and "--max-failures" in found["stopped"]
    assert_valid("conform", found, complete=False)
    assert seconds < 10


def test_conform_max_failures_0_runs_everything(capsys: pytest.CaptureFixture[str]) -> None:
    adapter = faulty("--fault", "crash", "--on", "authorize")
    argv = ["--adapter", adapter, "--vectors", str(GATE), "--quiet"]
    assert conform_cli.main([*argv, "--max-failures", "0"]) == 1
    assert "0 passed, 0 failed, 0 skipped, 7 errored" in capsys.readouterr().out
    assert conform_cli.main(argv) == 1  # the default, 5, stops
    out = capsys.readouterr().out
    assert "0 passed, 0 failed, 0 skipped, 5 errored" in out and "2 vectors not run" in out


# --- crash, timeout and extra line as what they are --------------------------------------------


def test_conform_names_an_extra_reply_line(capsys: pytest.CaptureFixture[str]) -> None:
    adapter = faulty("--fault", "extra", "--on", "hello")
    status = conform_cli.main(["--adapter", adapter, "--vectors", str(GATE), "--quiet"])
    out = capsys.readouterr().out
    assert status == 1
    assert "extra-reply: the adapter wrote 1 reply line(s) more than it was sent requests" in out
    assert "0 passed, 0 failed, 0 skipped, 5 errored" in out


def test_conform_still_calls_a_wrong_reply_a_mismatch(capsys: pytest.CaptureFixture[str]) -> None:
    adapter = faulty("--fault", "wrong", "--on", "authorize")
    status = conform_cli.main(["--adapter", adapter, "--vectors", str(GATE), "--quiet"])
    out = capsys.readouterr().out
    assert status == 1
    assert "extra-reply" not in out and "mismatch at $" in out
    assert "0 passed, 7 failed" in out  # mismatches never stop a run


def test_conform_shows_the_stderr_tail_of_a_crash(capsys: pytest.CaptureFixture[str]) -> None:
    adapter = faulty("--fault", "crash", "--on", "authorize")
    conform_cli.main(["--adapter", adapter, "--vectors", str(GATE), "--max-failures", "1"])
    out = capsys.readouterr().out
    assert "crash: adapter closed stdout without replying (exit status 3)" in out
    assert "adapter stderr (tail):\n    injected crash" in out


def _explore(tmp_path: Path, adapter: str, *flags: str) -> tuple[int, str, dict[str, object]]:
    out_file, report = tmp_path / "found.json", tmp_path / "report.json"
    argv = ["--adapter", adapter, "--seed", "1", "--quiet", "--out", str(out_file)]
    status = explore_cli.main([*argv, "--json", str(report), *flags])
    return status, out_file.read_text(), json.loads(report.read_text())


def test_explore_reports_a_crash_as_a_crash_and_the_vector_reproduces_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    adapter = faulty("--fault", "crash", "--on", "authorize")
    status, _, found = _explore(tmp_path, adapter)
    out = capsys.readouterr().out
    assert status == 1
    assert "adapter failure (crash): no usable reply: crash: adapter closed stdout" in out
    assert "adapter stderr ends: injected crash" in out
    divergence = found["divergence"]
    assert isinstance(divergence, dict) and divergence["kind"] == "crash"
    assert_valid("explore", found)
    vector = str(tmp_path / "found.json")
    assert conform_cli.main(["--adapter", adapter, "--vectors", vector]) == 1
    assert "crash: adapter closed stdout" in capsys.readouterr().out
    assert conform_cli.main(["--vectors", vector]) == 0  # the reference passes it


def test_explore_reports_a_hang_as_a_timeout_within_seconds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    hang = faulty("--fault", "hang", "--on", "authorize")
    status, _, found = _explore(tmp_path, hang, "--timeout", "0.5")
    assert time.monotonic() - started < 15  # not shrunk: every replay would wait again
    assert status == 1
    assert "adapter failure (timeout)" in capsys.readouterr().out
    divergence = found["divergence"]
    assert isinstance(divergence, dict) and divergence["kind"] == "timeout"
    assert_valid("explore", found)


@pytest.mark.parametrize("fault", ["crash", "hang"])
def test_explore_names_a_failure_on_the_first_request_after_hello_and_writes_its_vector(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    # explore's first request after hello is a digest of the preflight: a crash or hang
    # there is found like one later in the run (kind, stderr tail, a vector), not an error
    adapter = faulty("--fault", fault, "--on", "digest")
    status, _, found = _explore(tmp_path, adapter, "--timeout", "0.5")
    out = capsys.readouterr().out
    kind = "crash" if fault == "crash" else "timeout"
    assert status == 1 and found["verdict"] == "divergence"
    assert f"adapter failure ({kind})" in out
    divergence = found["divergence"]
    assert isinstance(divergence, dict) and divergence["kind"] == kind
    if fault == "crash":
        assert "adapter stderr ends: injected crash" in divergence["reason"]
    assert_valid("explore", found)
    vector = str(tmp_path / "found.json")
    argv = ["--vectors", vector, "--timeout", "0.5"]
    assert conform_cli.main(["--adapter", adapter, *argv]) == 1
    assert f"{kind}:" in capsys.readouterr().out
    assert conform_cli.main(["--vectors", vector]) == 0  # the reference passes it


def test_explore_reports_an_extra_line_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, found = _explore(tmp_path, faulty("--fault", "extra", "--on", "tool_id_parse"))
    assert status == 1
    out = capsys.readouterr().out
    # seen as a line nobody asked for, or as a sync probe answered by another reply, depending
    # on when the extra line arrives; either way, named
    assert "adapter failure (extra-reply)" in out and "(replies shifted)" in out
    divergence = found["divergence"]
    assert isinstance(divergence, dict) and divergence["kind"] == "extra-reply"
    assert_valid("explore", found)


def _never(*_args: object, **_kwargs: object) -> object:
    raise AssertionError("the work ran")


# --- output paths before any work --------------------------------------------------------------


def test_check_refuses_an_unwritable_json_before_proving(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr("session_toolset_proofs.report.run", _never)
    assert check.main(["--json", str(tmp_path / "missing" / "c.json")]) == 2
    err = capsys.readouterr().err
    assert "cannot write --json" in err and "No such file or directory" in err


@pytest.mark.parametrize("adapter", [broken("exit-now"), broken("wrong-hello"), ""])
def test_check_refuses_an_adapter_that_fails_its_hello_before_proving(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, adapter: str
) -> None:
    monkeypatch.setattr("session_toolset_proofs.report.run", _never)
    assert check.main(["--adapter", adapter]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("session-toolset check: error: ")
    assert ("failed its hello" in lines[0]) or ("--adapter is empty" in lines[0])


@pytest.mark.parametrize("flag", ["--json", "--junit", "--emit-vectors", "--emit-hazard-vectors"])
def test_prove_refuses_an_unwritable_report_before_proving(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, flag: str
) -> None:
    from session_toolset_proofs import cli as prove_cli

    monkeypatch.setattr(prove_cli, "run", _never)
    monkeypatch.setattr(prove_cli, "check_all", _never)  # the hazards
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    assert prove_cli.main([flag, str(blocker / "p.out")]) == 2  # a file where a directory goes
    err = capsys.readouterr().err
    assert f"cannot write {flag}" in err and "Not a directory" in err, err


@pytest.mark.parametrize("flag", ["--out", "--json"])
def test_explore_refuses_an_unwritable_output_before_exploring(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, flag: str
) -> None:
    monkeypatch.setattr(explore_cli, "run_plan", _never)
    assert explore_cli.main([flag, str(tmp_path / "missing" / "f.json")]) == 2
    assert f"cannot write {flag}" in capsys.readouterr().err


def test_conform_refuses_an_unwritable_report_before_starting_the_adapter(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    started = tmp_path / "started"
    adapter = shlex.join([sys.executable, "-c", f"open({str(started)!r}, 'w')"])
    status = conform_cli.main(["--adapter", adapter, "--json", str(tmp_path / "no" / "r.json")])
    assert status == 2 and not started.exists()
    assert "cannot write --json" in capsys.readouterr().err


# --- signals -------------------------------------------------------------------------------------


def _start(*argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "session_toolset_harness.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )


def _interrupt(proc: subprocess.Popen[str], signum: int, timeout: float) -> tuple[str, str]:
    """Stop ``proc`` as a user or a supervisor would; it must exit ``128 + signum`` with no
    traceback.  Its (stdout, stderr)."""
    if signum == signal.SIGINT:
        os.killpg(proc.pid, signum)  # Ctrl-C: every process of the job gets it
    else:
        proc.send_signal(signum)  # a supervisor's SIGTERM: the parent alone
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err
    return out, err


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_conform_interrupted_writes_the_partial_report_and_kills_the_adapter(
    tmp_path: Path, signum: int
) -> None:
    report = tmp_path / "r.json"
    adapter = faulty("--fault", "hang", "--on", "authorize")
    proc = _start("conform", "--adapter", adapter, "--timeout", "60", "--json", str(report))
    wait_for(lambda: len(descendants(proc.pid)) >= 1, 10)
    time.sleep(2.0)  # the vectors before the first authorize pass, then it hangs
    children = descendants(proc.pid)
    _interrupt(proc, signum, 10)
    found = json.loads(report.read_text())
    assert found["verdict"] == "incomplete"
    assert found["stopped"].startswith(f"interrupted by {signal.Signals(signum).name} after ")
    assert found["counts"]["passed"] > 0
    assert_valid("conform", found, complete=False)
    assert not [pid for pid in children if alive(pid)]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_explore_jobs_interrupted_writes_the_partial_report_and_leaves_no_process(
    tmp_path: Path, signum: int
) -> None:
    report = tmp_path / "x.json"
    reference = shlex.join([sys.executable, "-m", "session_toolset.adapter"])
    argv = ["explore", "--jobs", "2", "--seed", "7", "--examples", "100000", "--quiet"]
    junit = tmp_path / "x.xml"
    proc = _start(*argv, "--adapter", reference, "--json", str(report), "--junit", str(junit))
    # two workers, each with its adapter (and multiprocessing's resource tracker)
    wait_for(lambda: len(descendants(proc.pid)) >= 5, 30)
    wait_for(lambda: adapters_busy(proc.pid, 0.5), 30)
    children = descendants(proc.pid)
    _, err = _interrupt(proc, signum, 20)
    assert f"interrupted by {signal.Signals(signum).name} after " in err
    found = json.loads(report.read_text())
    assert found["verdict"] == "incomplete" and found["stopped"].startswith("interrupted by")
    assert found["seed"] == 7 and found["steps"] > 0 and found["coverage"]
    assert_valid("explore", found, complete=False)
    assert 'errors="1"' in junit.read_text() and "incomplete: interrupted by" in junit.read_text()
    wait_for(lambda: not [pid for pid in children if alive(pid)], 5)


def test_explore_workers_and_adapters_go_when_the_parent_is_killed() -> None:
    reference = shlex.join([sys.executable, "-m", "session_toolset.adapter"])
    argv = ["explore", "--jobs", "2", "--seed", "7", "--examples", "100000", "--quiet"]
    proc = _start(*argv, "--adapter", reference)
    wait_for(lambda: len(descendants(proc.pid)) >= 5, 30)
    children = descendants(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)  # no chance to stop anything
    proc.communicate(timeout=10)
    wait_for(lambda: not [pid for pid in children if alive(pid)], 10)


def test_check_interrupted_during_the_proofs_leaves_no_worker(tmp_path: Path) -> None:
    report = tmp_path / "c.json"
    proc = _start("check", "--json", str(report))
    children: set[int] = set()

    def some_checks_finished() -> bool:  # the proofs' forked workers, one child per obligation
        children.update(descendants(proc.pid))
        return len(children) >= 2 + 4

    wait_for(some_checks_finished, 60)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 143, err
    assert "Traceback" not in err and "interrupted by SIGTERM" in err
    assert "check: proofs interrupted (" in out and "conformance not run" in out
    found = json.loads(report.read_text())
    assert found["verdict"] == "incomplete"
    assert found["stopped"] == "interrupted by SIGTERM after 0 of 4 stages"
    assert_valid("check", found, complete=False)
    proved = found["prove"]  # the checks that finished before the signal
    assert proved["exit_status"] == 143 and proved["report"]["verdict"] == "incomplete"
    assert proved["report"]["counts"]["checks"] == len(proved["report"]["rows"]) > 0
    wait_for(lambda: not [pid for pid in children if alive(pid)], 5)


def test_check_interrupted_during_the_proofs_reports_each_stage_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from session_toolset_proofs.report import Row, Tally

    def proofs_cut_short(_console: object, tally: Tally) -> object:  # 2 of 5 checks finished
        tally.total = 5
        rows = [
            Row(f"p{i}", "per-tool-pinned", "proof", "proof", "proved", "proved", 0.01)
            for i in range(2)
        ]
        tally.add([(0, rows)])
        time.sleep(0.05)
        raise Interrupted(signal.SIGINT)

    monkeypatch.setattr(check, "_prove", proofs_cut_short)
    report = tmp_path / "c.json"
    assert check.main(["--json", str(report), "--quiet"]) == 130
    out = capsys.readouterr().out
    assert "check: proofs interrupted (2 of 5 checks finished" in out
    assert "conformance not run" in out and "model vs implementation not run" in out
    found = json.loads(report.read_text())
    assert_valid("check", found, complete=False)
    assert found["stopped"] == "interrupted by SIGINT after 0 of 4 stages"
    counts = {"stages": 4, "passed": 0, "failed": 0, "not_run": 3, "interrupted": 1}
    assert found["counts"] == counts
    proved = found["prove"]  # the proofs' own partial report, as `prove` would write it
    assert proved["exit_status"] == 130 and proved["seconds"] >= 0.05
    assert proved["report"]["stopped"] == "interrupted by SIGINT after 2 of 5 checks"
    assert [row["name"] for row in proved["report"]["rows"]] == ["p0", "p1"]


def test_an_inherited_ignored_sigint_stays_ignored() -> None:
    """A process started with SIGINT ignored (``cmd &`` in a script, ``trap '' INT``) keeps
    ignoring it, as Python does; SIGTERM still stops it."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with raising_on_signals():
            assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
            assert callable(signal.getsignal(signal.SIGTERM))
        # SIGTERM, unlike the ignored SIGINT, is handled
        with pytest.raises(Interrupted), raising_on_signals():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_conform_started_with_sigint_ignored_runs_on_through_a_sigint(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    adapter = faulty("--fault", "hang", "--on", "authorize")
    argv = ["conform", "--adapter", adapter, "--timeout", "60", "--json", str(report)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "session_toolset_harness.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    wait_for(lambda: len(descendants(proc.pid)) >= 1, 10)
    time.sleep(1.0)
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(1.0)
    assert proc.poll() is None  # still running: the SIGINT was not for it
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=10)
    assert proc.returncode == 143, err
    assert json.loads(report.read_text())["stopped"].startswith("interrupted by SIGTERM after ")


def test_an_interrupted_explore_reports_the_examples_it_ran_not_the_planned_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class InterruptedAfterFive(Progress):
        def update(self, done: int, note: str = "", *, force: bool = False) -> None:
            if done == 5:  # Ctrl-C after the fifth example, at a point the test controls
                raise Interrupted(signal.SIGINT)

    monkeypatch.setattr(explore_cli, "Progress", InterruptedAfterFive)
    report = tmp_path / "x.json"
    argv = ["--seed", "3", "--examples", "400", "--quiet", "--json", str(report)]
    assert explore_cli.main(argv) == 130
    found = json.loads(report.read_text())
    assert found["complete"] is False and found["examples"] == 400  # the plan, as asked
    assert found["stopped"] == "interrupted by SIGINT after 5 examples"
    assert found["counts"]["examples"] == 5 == sum(s["examples"] for s in found["streams"])
    assert_valid("explore", found, complete=False)
    assert "interrupted by SIGINT after " in capsys.readouterr().err


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_prove_interrupted_writes_the_checks_that_finished_and_leaves_no_process(
    tmp_path: Path, signum: int
) -> None:
    report, junit = tmp_path / "p.json", tmp_path / "p.xml"
    proc = _start("prove", "--jobs", "2", "--json", str(report), "--junit", str(junit))
    seen: set[int] = set()

    def some_checks_finished() -> bool:
        # each group process forks one child per obligation: once a few have come and gone,
        # some checks are finished and many more are still to run
        seen.update(descendants(proc.pid))
        return len(seen) >= 2 + 4

    wait_for(some_checks_finished, 60)
    out, _ = _interrupt(proc, signum, 20)
    found = json.loads(report.read_text())
    assert_valid("prove", found, complete=False)
    done, rows = found["counts"]["checks"], found["rows"]
    assert found["verdict"] == "incomplete" and 0 < done == len(rows)
    name = signal.Signals(signum).name
    assert found["stopped"].startswith(f"interrupted by {name} after {done} of ")
    summary = out.splitlines()[-1]  # the one summary line, last, saying it is incomplete
    assert summary.startswith(f"{done} checks, ") and found["stopped"] in summary
    assert 'errors="1"' in junit.read_text() and f"incomplete: interrupted by {name}" in (
        junit.read_text()
    )
    wait_for(lambda: not [pid for pid in seen | descendants(proc.pid) if alive(pid)], 5)


@pytest.mark.parametrize("command", ["conform", "conform --merge", "explore", "explore --merge"])
def test_an_unwritable_step_summary_is_refused_before_any_work(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    command: str,
) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "missing" / "s.md"))
    monkeypatch.setattr(conform_cli, "execute", _never)
    monkeypatch.setattr("session_toolset_harness.conform.merge.read_all", _never)
    monkeypatch.setattr(explore_cli, "run_plan", _never)
    monkeypatch.setattr("session_toolset_harness.explore.report.read", _never)
    name, _, merge = command.partition(" ")
    argv = [merge, str(tmp_path / "r.json")] if merge else ["--quiet"]
    main = conform_cli.main if name == "conform" else explore_cli.main
    assert main(argv) == 2
    err = capsys.readouterr().err
    wanted = f"cannot write $GITHUB_STEP_SUMMARY {tmp_path}/missing/s.md:"
    assert err.startswith(f"session-toolset {name}: error: {wanted}"), err
    assert err.count("\n") == 1 and not (tmp_path / "missing").exists()


def test_check_refuses_an_unwritable_step_summary_before_proving(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "missing" / "s.md"))
    monkeypatch.setattr("session_toolset_proofs.report.run", _never)
    assert check.main(["--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("session-toolset check: error: cannot write $GITHUB_STEP_SUMMARY ")
    assert err.count("\n") == 1, err
