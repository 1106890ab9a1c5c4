"""The ``prove`` suite of model mutation testing, run directly (not under pytest/mutmut's stats
pass): everything ``session-toolset prove --all-profiles`` decides its exit status on, in one
process - the model's expected world replayed against the hand-written corpus and the recorded
walkthroughs (``prove`` joins that verdict to its summary and fails on a disagreement), then
every check in report order - stopping at the first failure.

``prove --all-profiles`` fails exactly when the replay disagrees or some row fails, so stopping at
the first failure gives the same verdict sooner (the replay runs first: it takes seconds, the
rows a minute under mutmut's trampolines); an exception raised by a check is a failure too
(``prove`` would crash).  Exit 0: the replay agrees and every row is as expected (the mutant
survives); exit 1: the first disagreement, failing row or exception is printed (the mutant is
killed); exit 3: the suite could not be imported (no verdict: the run is ``other``, never a
kill).  The mutant under test is chosen by mutmut's
trampolines from ``MUTANT_UNDER_TEST``; ``PYTHONPATH`` puts the mutated copy of the model first.
"""

from __future__ import annotations

import json
import sys
import traceback
from types import FrameType
from typing import Any

try:
    from session_toolset_model.enumerate import nodes
    from session_toolset_model.profiles import DEFAULT_PROFILE, PROFILES
    from session_toolset_proofs.report import jobs

    from session_toolset_harness.independent import replay
except ImportError as exc:  # the suite did not start (a mismatched tree): no verdict, exit 3
    print(f"SETUP import error {type(exc).__name__}: {exc}")
    sys.exit(3)


def calls_into(package_dir: str, found: set[str]) -> Any:
    """A profile hook that records the qualified names of the functions of ``package_dir`` that
    are called (``module:qualname``): which functions the prove suite reaches at all."""

    def hook(frame: FrameType, event: str, arg: object) -> None:
        code = frame.f_code
        if event == "call" and code.co_filename.startswith(package_dir):
            module = code.co_filename[len(package_dir) :].lstrip("/").removesuffix(".py")
            found.add(f"{module}:{code.co_qualname}")

    return hook


def main() -> int:
    import session_toolset_model

    if len(sys.argv) == 3 and sys.argv[1] == "--calls":  # the unmutated model, reach only
        found: set[str] = set()
        sys.setprofile(calls_into(str(session_toolset_model.__path__[0]), found))
        ok = run_all()
        sys.setprofile(None)
        with open(sys.argv[2], "w", encoding="utf-8") as out:
            json.dump(sorted(found), out, indent=0)
        return ok
    return run_all()


def run_all() -> int:
    import session_toolset_model

    print(f"model from {session_toolset_model.__file__}", flush=True)
    profiles = [DEFAULT_PROFILE, *(p for p in PROFILES if p != DEFAULT_PROFILE)]
    try:
        # what `session-toolset prove` hands its report as `independent` (same verdict sooner)
        replayed = replay(stop_at_first=True)
        if not replayed.ok:
            first = (replayed.failures() or [replayed.line()])[0]
            print(f"FAILED independent replay: {first[:250]}")
            return 1
        work = jobs(profiles)
        nodes()  # the shared exploration, as `report.run` computes it first
        checked = 0
        for job in work:
            for row in job.execute():
                checked += 1
                if not row.passed:
                    print(
                        f"FAILED {row.name} [{row.profile}] {row.check}: "
                        f"{row.result}, expected {row.expected} (after {checked} rows)"
                    )
                    return 1
    except Exception as exc:  # a crash of prove is a failing suite
        traceback.print_exc(limit=3)
        print(f"FAILED exception {type(exc).__name__}: {str(exc)[:200]}")
        return 1
    print(f"OK {checked} rows as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
