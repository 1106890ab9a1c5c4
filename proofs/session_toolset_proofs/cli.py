"""`session-toolset prove [--profile P | --all-profiles] [-k PATTERN] [--json F] [--junit F]`.

Exit 0 only when every default-profile obligation is proved, every expected refutation
(profiles and mutants) happens and every witness is satisfiable; ``unknown`` is a failure; bad
flags exit 2 with argparse's usage message.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from session_toolset_model.profiles import DEFAULT_PROFILE, PROFILES

from .report import run


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="session-toolset prove", description="Check the model's proof obligations with Z3."
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument("--profile", choices=sorted(PROFILES), default=DEFAULT_PROFILE)
    g.add_argument("--all-profiles", action="store_true")
    p.add_argument("-k", dest="pattern", help="only obligations whose name matches (regex)")
    p.add_argument("--json", type=Path, help="write the JSON report here")
    p.add_argument("--junit", type=Path, help="write a JUnit XML report here")
    p.add_argument(
        "--emit-vectors", type=Path, help="(not implemented yet: counterexample vectors)"
    )
    return p


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    profiles = list(PROFILES) if args.all_profiles else [args.profile]
    if DEFAULT_PROFILE in profiles:
        profiles.remove(DEFAULT_PROFILE)
        profiles.insert(0, DEFAULT_PROFILE)
    report = run(profiles, args.pattern)
    print(report.table())
    print(report.summary())
    if args.json:
        args.json.write_text(report.to_json())
    if args.junit:
        args.junit.write_text(report.to_junit())
    if args.emit_vectors:
        print("--emit-vectors: counterexample vectors are not implemented yet", file=sys.stderr)
        return 1
    return 0 if report.ok else 1
