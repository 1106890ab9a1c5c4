"""``python -m session_toolset_proofs.traceability [--root DIR] [--out FILE] [--check]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .collect import build
from .render import markdown


def find_root(start: Path) -> Path | None:
    for p in [start, *start.parents]:
        if (p / "docs" / "spec" / "SPEC.md").is_file() and (p / "tests").is_dir():
            return p
    return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m session_toolset_proofs.traceability",
        description="Generate the SPEC.md traceability table (docs/traceability.md).",
    )
    p.add_argument("--root", type=Path, help="repository root (default: found from the cwd)")
    p.add_argument("--out", type=Path, help="write the table here (default: stdout)")
    p.add_argument(
        "--check", action="store_true", help="exit 1 if --out differs from a fresh table"
    )
    args = p.parse_args(argv)
    root = args.root or find_root(Path.cwd())
    if root is None or not (root / "docs" / "spec" / "SPEC.md").is_file():
        print(
            "traceability: no repository root with docs/spec/SPEC.md (use --root)", file=sys.stderr
        )
        return 2
    text = markdown(build(root))
    if args.check:
        if args.out is None:
            print("traceability: --check needs --out", file=sys.stderr)
            return 2
        current = args.out.read_text(encoding="utf-8") if args.out.is_file() else ""
        if current != text:
            print(f"traceability: {args.out} is stale; regenerate it with --out", file=sys.stderr)
            return 1
        return 0
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.write_text(text, encoding="utf-8")
    except OSError as err:
        print(f"traceability: cannot write {args.out}: {err.strerror}", file=sys.stderr)
        return 2
    return 0
