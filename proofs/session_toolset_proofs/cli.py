"""`session-toolset prove [--profile P | --all-profiles] [-k PATTERN] [--json FILE] [--junit FILE]
[--jobs N] [--cache-dir DIR | --no-cache] [--emit-vectors DIR] [--hazards]
[--emit-hazard-vectors DIR] [--quiet | --verbose]`.

Exit 0 only when every default-profile obligation is proved, every expected refutation
(profiles and mutants) happens and every witness is satisfiable; ``unknown`` is a failure; bad
flags exit 2 with one line.  SIGINT (and SIGTERM, where the caller turns it into a
`KeyboardInterrupt` carrying ``signum``, as ``session-toolset`` does) kill the proof processes,
write the reports with the checks that finished, marked incomplete, print the summary line and
exit 130 (143).  With ``--emit-vectors`` every counterexample is
also written as a PROTOCOL.md vector (`vectors`); a vector its own variant would pass (one that
does not discriminate) is reported on stderr and fails the run.  ``--hazards`` also checks
the hazards (`hazards`: what SPEC.md does not promise, each with a minimal trace) and fails the
run if one is not refuted or proved as expected; ``--emit-hazard-vectors`` writes their vectors.
Each check's rows are cached with the functions that computed them, and Z3's answers by each
query's exact text (`cache`), unless ``--no-cache``.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, Protocol

from session_toolset_model import keyword
from session_toolset_model.profiles import DEFAULT_PROFILE, PROFILES

from . import cache
from .hazards import Result as HazardResult
from .hazards import UnderProfile, check_all, under_profiles
from .hazards.report import profiles_json, profiles_text
from .hazards.report import text as hazard_text
from .hazards.report import to_json as hazard_json
from .hazards.vectors import hazard_vectors
from .report import Report, Tally, counterexample_vectors, report_variants, run
from .vectors import replay, write

PROG = "session-toolset prove"


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line, like every other subcommand's (not argparse's usage text)."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG,
        description="Check the model's proof obligations with Z3.",
        epilog="Exit status: 0 everything as expected, 1 an obligation not proved, a witness "
        "not found, an expected refutation missing or an unknown; 2 usage error; 130/143 "
        "interrupted by SIGINT/SIGTERM (the reports hold the checks that finished).",
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default=DEFAULT_PROFILE,
        help=f"the drift-rule profile to prove under (default: {DEFAULT_PROFILE})",
    )
    g.add_argument("--all-profiles", action="store_true", help="prove under every profile")
    p.add_argument(
        "-k", dest="pattern", metavar="PATTERN", help=keyword.HELP.format(what="obligations")
    )
    p.add_argument("--json", type=Path, metavar="FILE", help="write the JSON report here")
    p.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report here")
    p.add_argument(
        "--jobs",
        type=_jobs,
        default=2,
        metavar="N",
        help="worker processes (default 2; the split of the checks is fixed for a given N)",
    )
    p.add_argument(
        "--emit-vectors",
        type=Path,
        metavar="DIR",
        help="write every counterexample as a PROTOCOL.md vector file into DIR",
    )
    stored = p.add_mutually_exclusive_group()
    stored.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help="keep each check's rows here, keyed by the functions it ran, and Z3's answers, "
        f"keyed by each query's exact text (default: {_home(cache.default_dir())})",
    )
    stored.add_argument(
        "--no-cache", action="store_true", help="run every check, read and write no cache"
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument(
        "--quiet",
        action="store_true",
        help="no progress line even on a terminal: only unexpected results and the summary",
    )
    out.add_argument(
        "--verbose", action="store_true", help="the full table: every check, expected or not"
    )
    p.add_argument(
        "--hazards",
        action="store_true",
        help="also check the hazards: properties SPEC.md does not promise, each with a minimal "
        "trace (docs/spec-authors.md)",
    )
    p.add_argument(
        "--emit-hazard-vectors",
        type=Path,
        metavar="DIR",
        help="write every hazard's trace as a PROTOCOL.md vector file into DIR (implies --hazards)",
    )
    return p


def _home(path: Path) -> str:
    """``path`` with the home directory written ``~`` (for the help text)."""
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def _store(args: argparse.Namespace) -> tuple[cache.Cache | None, str | None]:
    """The cache of this run and, for an explicit ``--cache-dir`` that cannot hold it, the
    error.  The default directory silently falls back to no cache.  A run that writes vectors
    uses none: its counterexamples must be the ones a run from scratch finds (`search.Hint`)."""
    if args.no_cache or args.emit_vectors or args.emit_hazard_vectors:
        return None, None
    root = args.cache_dir or cache.default_dir()
    problem = cache.usable(root)
    if problem is None:
        return cache.Cache(root), None
    return None, (f"cannot use --cache-dir {problem}" if args.cache_dir else None)


def _write(path: Path, text: str) -> bool:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        print(f"{PROG}: error: cannot write {path}: {err.strerror or err}", file=sys.stderr)
        return False
    return True


def _hazards(
    args: argparse.Namespace, profiles: list[str]
) -> tuple[list[HazardResult], dict[str, Any]] | None:
    """Check and print the hazards when asked (``--hazards`` / ``--emit-hazard-vectors``),
    re-checked under every other selected profile; returns the results and their JSON."""
    if not (args.hazards or args.emit_hazard_vectors):
        return None
    results = check_all()
    print(hazard_text(results, only_unexpected=args.quiet))
    matrix = under_profiles([p for p in profiles if p != DEFAULT_PROFILE])
    table = profiles_text(results, matrix)
    if table and not args.quiet:
        print(table)
    doc = hazard_json(results)
    if matrix:
        doc["profiles"] = profiles_json(results, matrix)
    doc["ok"] = _hazards_ok(results, matrix)
    return results, doc


def _hazards_ok(results: list[HazardResult], matrix: dict[str, list[UnderProfile]]) -> bool:
    return all(r.passed for r in results) and all(u.sound for us in matrix.values() for u in us)


class IndependentReplay(Protocol):
    """What the harness hands in as ``main``'s ``independent``: the model's expected world
    replayed against the hand-written corpus and the recorded walkthroughs.  The
    proofs import only the model, so the replay, which reads the harness's corpus, comes from
    the caller (``session-toolset prove`` passes it; ``check`` runs it as its own stage)."""

    @property
    def ok(self) -> bool: ...

    def line(self) -> str: ...

    def failures(self) -> list[str]: ...

    def to_json(self) -> dict[str, Any]: ...


def _unwritable(flag: str, path: Path | None) -> str | None:
    """Why a report file cannot be written, checked before any proof runs (None when it can).
    Opening for append meets every refusal the real write would without truncating a file; a
    file created only to probe is removed again.  (The harness has the same check; the proofs
    import the model only.)"""
    if path is None:
        return None
    existed = path.exists()
    try:
        with path.open("a", encoding="utf-8"):
            pass
        if not existed:
            path.unlink()
    except OSError as err:
        return f"cannot write {flag} {path}: {err.strerror or err}"
    return None


class ProgressLine(Protocol):
    """A progress line (the harness's `session_toolset_harness.progress.Progress`)."""

    def update(self, done: int, note: str = "", *, force: bool = False) -> None: ...

    def close(self) -> None: ...


ShowProgress = Callable[[int, bool], ProgressLine]
"""Makes the progress line of a run of ``total`` checks (``quiet``: ``--quiet`` was given)."""


def _unwritable_directory(flag: str, path: Path | None) -> str | None:
    """Why vector files cannot be written into the directory ``path``, checked before any proof
    runs (None when they can): the directory is made (the vectors would make it anyway) and a
    probe file written into it and removed."""
    if path is None:
        return None
    probe = path / ".session-toolset-probe"
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as err:
        return f"cannot write {flag} {path}: {err.strerror or err}"
    return None


def main(
    argv: list[str],
    independent: Callable[[], IndependentReplay] | None = None,
    progress: ShowProgress | None = None,
) -> int:
    try:
        args = _parser().parse_args(argv)
    except _UsageError as err:
        print(f"{PROG}: error: {err} (see --help)", file=sys.stderr)
        return 2
    problems = [
        _unwritable(flag, path) for flag, path in (("--json", args.json), ("--junit", args.junit))
    ]
    problems += [
        _unwritable_directory(flag, path)
        for flag, path in (
            ("--emit-vectors", args.emit_vectors),
            ("--emit-hazard-vectors", args.emit_hazard_vectors),
        )
    ]
    for problem in problems:
        if problem is not None:
            print(f"{PROG}: error: {problem}", file=sys.stderr)
            return 2
    store, problem = _store(args)
    if problem is not None:
        print(f"{PROG}: error: {problem}", file=sys.stderr)
        return 2
    profiles = list(PROFILES) if args.all_profiles else [args.profile]
    if DEFAULT_PROFILE in profiles:
        profiles.remove(DEFAULT_PROFILE)
        profiles.insert(0, DEFAULT_PROFILE)
    tally = Tally()
    try:
        return _prove(args, profiles, tally, independent, progress, store)
    except KeyboardInterrupt as stop:
        return _interrupted(args, tally, getattr(stop, "signum", signal.SIGINT), store)


def _interrupted(
    args: argparse.Namespace, tally: Tally, signum: int, store: cache.Cache | None
) -> int:
    """SIGINT/SIGTERM: the checks that finished, in the reports marked incomplete, and the
    summary line; exit ``128 + signum``."""
    name = signal.Signals(signum).name
    report = tally.report(
        f"interrupted by {name} after {tally.done} of {tally.total} checks",
        cached=store is not None,
    )
    table = report.table(only_unexpected=not args.verbose)
    if table:
        print(table)
    if args.json:
        _write(args.json, report.to_json())
    if args.junit:
        _write(args.junit, report.to_junit())
    print(report.summary(), flush=True)
    return 128 + signum


def _run(
    args: argparse.Namespace,
    profiles: list[str],
    tally: Tally,
    progress: ShowProgress | None,
    store: cache.Cache | None,
) -> Report:
    """The checks, with a progress line when the caller offers one (a terminal, no --quiet),
    made once `run` knows how many checks there are."""
    if progress is None:
        return run(profiles, args.pattern, args.jobs, tally, store)
    shown: list[ProgressLine] = []

    def update(done: int) -> None:
        if not shown:
            shown.append(progress(tally.total, args.quiet))
        shown[0].update(done)

    tally.on_rows = update
    try:
        return run(profiles, args.pattern, args.jobs, tally, store)
    finally:
        for line in shown:
            line.close()


def _prove(
    args: argparse.Namespace,
    profiles: list[str],
    tally: Tally,
    independent: Callable[[], IndependentReplay] | None,
    progress: ShowProgress | None,
    store: cache.Cache | None,
) -> int:
    try:
        report = _run(args, profiles, tally, progress, store)
    except Exception as err:  # a check raised: say which, not a traceback
        # An edited model (or obligation) that breaks one of its own assertions stops its check
        # with an exception; the proofs can then not be judged, which is a failure (exit 1),
        # reported in one line a spec author can act on.
        text = " ".join(str(err).split())
        print(
            f"{PROG}: error: a check raised {type(err).__name__}: {text[:400]} (the model or "
            "an obligation broke an assertion of its own; nothing was judged)",
            file=sys.stderr,
        )
        return 1
    if not report.rows:
        print(f"{PROG}: error: no obligation name contains -k {args.pattern!r}", file=sys.stderr)
        return 2
    table = report.table(only_unexpected=not args.verbose)
    if table:
        print(table)
    hazards = _hazards(args, profiles)
    replayed = independent() if independent is not None else None
    if replayed is not None:
        for failure in replayed.failures():  # failures only; the verdict joins the summary
            print(failure)
    if args.json:
        doc = json.loads(report.to_json())
        ok = report.ok
        if hazards is not None:
            doc["hazards"] = hazards[1]
            ok = ok and bool(hazards[1]["ok"])
        if replayed is not None:
            doc["independent"] = replayed.to_json()
            ok = ok and replayed.ok
        doc.update(report.envelope(ok))
        if not _write(args.json, json.dumps(doc, indent=1)):
            return 2
    if args.junit and not _write(args.junit, report.to_junit()):
        return 2
    ok = report.ok and (hazards is None or bool(hazards[1]["ok"]))
    ok = ok and (replayed is None or replayed.ok)
    if args.emit_hazard_vectors and hazards is not None:
        try:
            written = write(hazard_vectors(hazards[0]), args.emit_hazard_vectors)
        except OSError as err:
            print(
                f"{PROG}: error: cannot write vectors to {args.emit_hazard_vectors}: "
                f"{err.strerror}",
                file=sys.stderr,
            )
            return 2
        print(f"{len(written)} hazard vectors written to {args.emit_hazard_vectors}")
    if args.emit_vectors:
        docs = counterexample_vectors(report)
        try:
            paths = write(docs, args.emit_vectors)
        except OSError as err:
            print(
                f"{PROG}: error: cannot write vectors to {args.emit_vectors}: {err.strerror}",
                file=sys.stderr,
            )
            return 2
        blind = [
            d["id"] for d, v in zip(docs, report_variants(report), strict=True) if not replay(d, v)
        ]
        print(f"{len(paths)} counterexample vectors written to {args.emit_vectors}")
        for vid in blind:
            print(f"--emit-vectors: {vid} does not discriminate its variant", file=sys.stderr)
        ok = ok and not blind
    summary = report.summary()
    print(summary if replayed is None else f"{summary}; {replayed.line()}")
    return 0 if ok else 1
