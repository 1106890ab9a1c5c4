"""Probe program for Python readers: ``example`` (docs/examples/adapter-minimal.py) or the
``reference`` reader.

python tools/json_probes/probes.py -- python tools/json_probes/py_probe.py example
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Callable
from pathlib import Path

from session_toolset.json_value import JsonInputError, parse_json

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "adapter-minimal.py"


def render(v: object) -> str:
    if v is None:
        return "n"
    if isinstance(v, bool):
        return "t" if v else "f"
    if isinstance(v, int):
        return f"i{v}"
    if isinstance(v, float):
        return "d" + struct.pack(">d", v).hex()
    if isinstance(v, str):
        return "s" + v.encode("utf-8", "surrogatepass").hex()
    if isinstance(v, list):
        return "[" + ",".join(map(render, v)) + "]"
    assert isinstance(v, dict)
    return "{" + ",".join(f"{render(k)}:{render(x)}" for k, x in v.items()) + "}"


def example_reader() -> Callable[[bytes], object]:
    namespace: dict[str, object] = {"__name__": "example"}
    exec(EXAMPLE.read_text(encoding="utf-8"), namespace)  # the file as a newcomer would copy it
    reader = namespace["parse_line"]
    assert callable(reader)
    return reader


def main(argv: list[str]) -> int:
    reader = example_reader() if argv == ["example"] else parse_json
    for line in sys.stdin:
        try:
            print("OK " + render(reader(bytes.fromhex(line.strip()))))
        except (ValueError, RecursionError, JsonInputError) as error:
            print("REJECT " + str(error)[:60].replace("\n", " "))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
