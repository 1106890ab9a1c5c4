"""Check a number-text program against SPEC.md 1.4 on many doubles.

The program reads one double per line as 16 hex digits (its IEEE bits) and prints its canonical
number text. Expected texts come from the reference implementation's
``canonical_number_text``, itself checked against every row of the recorded digest reference.
The doubles: every double in those rows, the layout thresholds (1e15/1e16, 1e-5/1e-6 and their
neighbours), powers of two and ten across the range, subnormals, and seeded random bit patterns.

    python tools/json_probes/number_text.py [--count N] -- node tools/json_probes/js_number_text.mjs
"""

from __future__ import annotations

import argparse
import json
import math
import random
import struct
import subprocess
import sys
from pathlib import Path
from typing import Final

from session_toolset.digest import canonical_number_text

DIGEST_JSON: Final = (
    Path(__file__).resolve().parents[2]
    / "src"
    / "session_toolset_harness"
    / "reference"
    / "digest.json"
)


def bits(x: float) -> str:
    return struct.pack(">d", x).hex()


def doubles(count: int, seed: int = 0) -> list[float]:
    found: list[float] = []
    for row in json.loads(DIGEST_JSON.read_text(encoding="utf-8"))["rows"]:
        found += [float(t) for t in row["number_texts"] if any(c in t for c in ".e")]
    for base in (1e15, 1e16, 1e-5, 1e-6, 1e-4, 9.999999999999999e15, 123456789012345.6):
        found += [base, math.nextafter(base, 0), math.nextafter(base, math.inf)]
    found += [2.0**e for e in range(-1074, 1024)] + [10.0**e for e in range(-323, 309)]
    found += [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1 / 3]
    rng = random.Random(seed)
    while len(found) < count:
        x = struct.unpack(">d", rng.getrandbits(64).to_bytes(8, "big"))[0]
        if math.isfinite(x):
            found.append(x)
    return found + [-x for x in found[:200]] + [0.0, -0.0]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Check number text against SPEC.md 1.4.")
    parser.add_argument("--count", type=int, default=20_000, help="doubles to try (at least)")
    parser.add_argument("command", nargs="+", help="number-text program command line")
    args = parser.parse_args(argv)
    values = doubles(args.count)
    feed = "".join(bits(x) + "\n" for x in values).encode()
    done = subprocess.run(args.command, input=feed, capture_output=True, timeout=600, check=False)
    texts = done.stdout.decode("utf-8", "replace").splitlines()
    if len(texts) != len(values):
        sys.exit(f"{len(texts)} outputs for {len(values)} doubles: {done.stderr[-400:]!r}")
    wrong = [(x, t) for x, t in zip(values, texts, strict=True) if t != canonical_number_text(x)]
    for x, text in wrong[:10]:
        print(f"DIFF {x!r}: got {text}, SPEC.md 1.4: {canonical_number_text(x)}")
    print(f"{len(wrong)} of {len(values)} doubles differ from SPEC.md 1.4")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
