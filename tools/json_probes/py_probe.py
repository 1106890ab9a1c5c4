"""Probe program for Python readers: ``example`` (docs/implementers.md's adapter) or ``reference``.

python tools/json_probes/probes.py -- python tools/json_probes/py_probe.py example
"""

from __future__ import annotations

import re
import struct
import sys
from collections.abc import Callable
from pathlib import Path

from session_toolset.json_value import JsonInputError, parse_json

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "implementers.md"


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
    found = re.search(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert found is not None
    namespace: dict[str, object] = {"__name__": "example"}
    exec(found.group(1), namespace)  # the guide's own text, as a newcomer would copy it
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
