"""Probe JSON parsers of other languages against the SPEC.md 1.4 reading rules.

docs/implementers.md recommends parsers per language; this is how those recommendations were
checked. Each probe program beside this file reads one hex-encoded input per line on stdin and
prints, per input, ``OK <rendering>`` or ``REJECT <reason>``; the rendering is a tagged tree
(grammar below) that says exactly which value the parser produced. This script feeds every probe
to every program whose toolchain is installed and compares with what SPEC.md 1.4 requires (the
reference implementation's strict reader, itself checked against the recorded digest rows).

Rendering: ``n`` ``t`` ``f``; ``i<decimal>`` an integer kept exact; ``d<16 hex digits>`` a double
by its IEEE bits; ``s<hex>`` a string by its UTF-8 bytes or ``u<hex>`` by its UTF-16 code units;
``[a,b]``; ``{k:v,...}`` with keys rendered as strings, in the parser's own order.

    python tools/json_probes/probes.py --list            # the probes
    python tools/json_probes/probes.py -- node tools/json_probes/lossless.mjs
"""

from __future__ import annotations

import argparse
import struct
import subprocess
import sys
from pathlib import Path
from typing import Final

from session_toolset.json_value import JsonInputError, JsonValue, parse_json

HERE: Final = Path(__file__).resolve().parent
MAX_EXACT: Final = str(int(sys.float_info.max))  # the exact decimal of the largest double
ANY: Final = "accept or refuse"  # SPEC.md 1.4: deeper than 127 "may be refused"

PROBES: Final[list[tuple[str, bytes]]] = [
    ("2^64-1 stays an integer", b"18446744073709551615"),
    ("-2^63 stays an integer", b"-9223372036854775808"),
    ("2^53+1 stays exact", b"9007199254740993"),
    ("2^64 becomes a double", b"18446744073709551616"),
    ("-2^63-1 becomes a double", b"-9223372036854775809"),
    ("1 and 1.0 differ", b"[1,1.0]"),
    ("-0 is the double -0.0", b"-0"),
    ("-0.0", b"-0.0"),
    ("1e2 is a double", b"1e2"),
    ('lone high surrogate "\\ud800"', b'"\\ud800"'),
    ('lone low surrogate "\\udc00"', b'"\\udc00"'),
    ("lone surrogate in a key", b'{"\\ud800":1}'),
    ("high surrogate then a non-surrogate", b'"\\ud83d\\u0041"'),
    ("surrogate pair", b'"\\ud83d\\ude00"'),
    ("1e400 is beyond the range", b"1e400"),
    ("-1e400", b"-1e400"),
    ("1.7976931348623158e308 (rounds to max, beyond it)", b"1.7976931348623158e308"),
    ("1.7976931348623157e308 (max)", b"1.7976931348623157e308"),
    ("exact decimal of the max double", MAX_EXACT.encode()),
    (
        "... negated, with .000 and as 0.000...e312",
        f"[-{MAX_EXACT}.000,0.000{MAX_EXACT}e312]".encode(),
    ),
    ("... plus 1, an integer literal", str(int(MAX_EXACT) + 1).encode()),
    ("... minus, plus a tiny fraction", f"-{MAX_EXACT}.0000000001".encode()),
    ("... as digits before e-1", f"{MAX_EXACT}0e-1".encode()),
    ("... plus 1 as 0.000...e312", f"0.000{int(MAX_EXACT) + 1}e312".encode()),
    ("9007199254740993.0 rounds correctly", b"9007199254740993.0"),
    ("123456789012345680000.0 rounds correctly", b"123456789012345680000.0"),
    ("1e-400 underflows to 0.0", b"1e-400"),
    ("1e-99999999999 underflows to 0.0", b"1e-99999999999"),
    ("1e99999999999 is beyond the range", b"1e99999999999"),
    ("repeated key: last wins", b'{"a":1,"a":2}'),
    ("repeated key, bad discarded value", b'{"a":"\\ud800","a":1}'),
    ("repeated key, 1e400 discarded", b'{"a":1e400,"a":1}'),
    ("nesting 127", b"[" * 127 + b"]" * 127),
    ("nesting 128", b"[" * 128 + b"]" * 128),
    ("nesting 100000 (must not crash)", b"[" * 100_000 + b"]" * 100_000),
    ("invalid UTF-8", b'"\xff"'),
    ("UTF-8-encoded surrogate", b'"\xed\xa0\x80"'),
    ("BOM before the value", b"\xef\xbb\xbf1"),
    ("U+00A0 is not JSON whitespace", b"\xc2\xa01"),
    ("NaN", b"NaN"),
    ("leading zero", b"01"),
    ("trailing comma", b"[1,]"),
    ("raw tab in a string", b'"a\tb"'),
    ("text after the value", b"1 2"),
]
# Outcomes fixed here rather than by the reference: what SPEC.md leaves open, and PROTOCOL.md's
# "inside a value a repeated key discards too" (the reference reader accepted that line when
# this was written: it checks surrogates only in the values it keeps).
FIXED: Final = {
    "nesting 128": ANY,
    "nesting 100000 (must not crash)": ANY,
    "repeated key, bad discarded value": "REJECT",
}


def render(value: JsonValue) -> str:
    """The tagged rendering of a value as SPEC.md 1.4 reads it."""
    if value is None:
        return "n"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, int):
        return f"i{value}"
    if isinstance(value, float):
        return "d" + struct.pack(">d", value).hex()
    if isinstance(value, str):
        return "s" + value.encode("utf-8").hex()
    if isinstance(value, list):
        return "[" + ",".join(render(x) for x in value) + "]"
    return "{" + ",".join(sorted(f"{render(k)}:{render(v)}" for k, v in value.items())) + "}"


def expected(name: str, text: bytes) -> str:
    if name in FIXED:
        return FIXED[name]
    try:
        return render(parse_json(text))
    except JsonInputError:
        return "REJECT"


class _Reader:
    """Reads a rendering back into the same canonical form (strings by value, keys sorted)."""

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def value(self) -> str:
        c = self.text[self.pos]
        if c in "ntf":
            self.pos += 1
            return c
        if c in "[{":
            close = "]" if c == "[" else "}"
            self.pos += 1
            items: list[str] = []
            while self.text[self.pos] != close:
                item = self.value()
                if c == "{":
                    assert self.text[self.pos] == ":"
                    self.pos += 1
                    item += ":" + self.value()
                items.append(item)
                if self.text[self.pos] == ",":
                    self.pos += 1
            self.pos += 1
            if c == "{":
                keys = [i.split(":", 1)[0] for i in items]
                if len(set(keys)) != len(keys):
                    return "{duplicate keys kept}"
                items.sort()
            return c + ",".join(items) + close
        end = self.pos + 1
        while end < len(self.text) and self.text[end] not in ",:]}":
            end += 1
        token, self.pos = self.text[self.pos : end], end
        if token[0] == "u":  # UTF-16 code units: back to a string, lone surrogates kept
            units = bytes.fromhex(token[1:])
            raw = units.decode("utf-16-be", "surrogatepass")
            try:
                return "s" + raw.encode("utf-8").hex()
            except UnicodeEncodeError:
                return "s<lone surrogate>"
        if token[0] == "s":
            try:
                bytes.fromhex(token[1:]).decode("utf-8")
            except UnicodeDecodeError:
                return "s<invalid UTF-8>"
        return token


def canonical(output: str) -> str:
    if output.startswith("REJECT"):
        return "REJECT"
    if output.startswith("OK "):
        return _Reader(output[3:]).value()
    return f"bad output: {output[:60]}"


def run(command: list[str]) -> list[str]:
    feed = "".join(text.hex() + "\n" for _, text in PROBES).encode()
    done = subprocess.run(command, input=feed, capture_output=True, timeout=300, check=False)
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    if len(lines) != len(PROBES):
        tail = done.stderr.decode("utf-8", "replace")[-400:]
        sys.exit(f"{command}: {len(lines)} outputs for {len(PROBES)} probes; stderr: {tail}")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print the probes and exit")
    parser.add_argument("command", nargs="*", help="probe program command line")
    args = parser.parse_args(argv)
    if args.list or not args.command:
        for name, text in PROBES:
            print(f"{name:55} {expected(name, text)[:60]}")
        return 0
    deviations = 0
    for (name, text), output in zip(PROBES, run(args.command), strict=True):
        want = expected(name, text)
        got = output.split(" ", 1)[0] if want == ANY else canonical(output)
        fine = got in ("OK", "REJECT") if want == ANY else got == want
        deviations += not fine
        verdict = "ok  " if fine else "DIFF"
        shown = output if fine else f"{output[:70]}  (SPEC.md 1.4: {want[:40]})"
        print(f"{verdict} {name:52} {shown[:110]}")
    print(f"{deviations} deviations from SPEC.md 1.4 in {len(PROBES)} probes")
    return 1 if deviations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
