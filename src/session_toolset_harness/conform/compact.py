"""Compact vector files: named setups and repeated text, expanded to PROTOCOL.md's form.

A file with ``setup`` (a setup name, or a list) holds only its own steps; it expands to
``hello``, ``reset``, each named setup's steps (``corpus/setups.json``), then its steps.  In any
``send`` or ``expect``, ``{"$repeat": TEXT, "times": N}`` and ``{"$concat": [PART, ...]}`` stand
for long text (a request carrying such an object literally is written as a ``send_line``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any, Final

from session_toolset_harness.conform.matcher import child_path

HELLO: Final = {"send": {"op": "hello"}, "expect": {"ok": True, "protocol": 1}}
RESET: Final = {"send": {"op": "reset"}, "expect": {"ok": True}}
REPEAT: Final = "$repeat"
CONCAT: Final = "$concat"
#: The longest text a ``$repeat`` / ``$concat`` may stand for (characters).
MAX_TEXT: Final = 1 << 24

Json = Any


class CompactError(ValueError):
    """A compact vector (or setup) that cannot be expanded; the message says where and why."""


def render_expanded(document: Mapping[str, Any]) -> str:
    """A vector in PROTOCOL.md's expanded form: ASCII JSON, one-space indent, final newline."""
    return json.dumps(document, indent=1, ensure_ascii=True) + "\n"


def is_compact(document: object) -> bool:
    return isinstance(document, dict) and "setup" in document


def setup_problem(loaded: object) -> str | None:
    """What is wrong with the shape of a parsed ``setups.json``, or None."""
    if not isinstance(loaded, dict) or not all(
        isinstance(entry, dict)
        and set(entry) == {"description", "steps"}
        and isinstance(entry["description"], str)
        and isinstance(entry["steps"], list)
        and entry["steps"]
        for entry in loaded.values()
    ):
        return 'each setup must be {"description": TEXT, "steps": [STEP, ...]}'
    return None


@cache
def setups() -> dict[str, tuple[Json, ...]]:
    """Every packaged setup: name -> its steps, text expanded."""
    text = (resources.files("session_toolset_harness") / "corpus" / "setups.json").read_text(
        encoding="utf-8"
    )
    try:
        loaded = json.loads(text)
    except ValueError as exc:
        raise CompactError(f"setups.json: {exc}") from None
    problem = setup_problem(loaded)
    if problem is not None:
        raise CompactError(f"setups.json: {problem}")
    return {
        name: tuple(
            expand_values(step, f"setup {name!r} steps[{index}]")
            for index, step in enumerate(entry["steps"])
        )
        for name, entry in loaded.items()
    }


def setup_names(document: Mapping[str, object]) -> list[str]:
    """The setup names a compact vector lists, each a known setup."""
    value = document.get("setup")
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise CompactError("$.setup: must be a setup name or a list of setup names")
    known = setups()
    for index, name in enumerate(names):
        if name not in known:
            where = "$.setup" if isinstance(value, str) else f"$.setup[{index}]"
            raise CompactError(f"{where}: unknown setup {name!r} (known: {', '.join(known)})")
    return names


def own_steps(document: Mapping[str, object]) -> list[Json]:
    """The file's own steps with their text expanded (same indices as in the file)."""
    steps = document.get("steps")
    if not isinstance(steps, list) or not steps:
        raise CompactError("$.steps: must be a non-empty list")
    return [expand_values(step, f"$.steps[{index}]") for index, step in enumerate(steps)]


def expand(document: Mapping[str, object]) -> dict[str, Json]:
    """The PROTOCOL.md form of a compact vector (a file without ``setup`` is returned as is)."""
    if "setup" not in document:
        return dict(document)
    names = setup_names(document)
    steps: list[Json] = [HELLO, RESET]
    for name in names:
        steps.extend(setups()[name])
    steps.extend(own_steps(document))
    expanded = {key: value for key, value in document.items() if key != "setup"}
    expanded["steps"] = copy.deepcopy(steps)  # no two vectors share a step object
    return expanded


def expand_values(value: Json, where: str = "$") -> Json:
    """``value`` with every ``$repeat`` / ``$concat`` object replaced by its text."""
    if isinstance(value, list):
        return [expand_values(item, child_path(where, i)) for i, item in enumerate(value)]
    if not isinstance(value, dict):
        return value
    if REPEAT in value or CONCAT in value:
        return _text(value, where)
    return {key: expand_values(item, child_path(where, key)) for key, item in value.items()}


def _text(value: dict[str, Json], where: str) -> str:
    if set(value) == {REPEAT, "times"}:
        unit: object = value[REPEAT]
        times: object = value["times"]
        if not isinstance(unit, str) or isinstance(times, bool) or not isinstance(times, int):
            raise CompactError(f"{where}: $repeat needs a string and an integer times")
        if times < 0:
            raise CompactError(f"{where}: $repeat times must be 0 or more")
        if len(unit) * times > MAX_TEXT:
            raise CompactError(f"{where}: $repeat stands for more than {MAX_TEXT} characters")
        return unit * times
    if set(value) == {CONCAT} and isinstance(value[CONCAT], list):
        parts: list[str] = []
        for index, part in enumerate(value[CONCAT]):
            at = child_path(child_path(where, CONCAT), index)
            parts.append(part if isinstance(part, str) else _part(part, at))
        joined = "".join(parts)
        if len(joined) > MAX_TEXT:
            raise CompactError(f"{where}: $concat is longer than {MAX_TEXT} characters")
        return joined
    raise CompactError(
        f'{where}: write {{"$repeat": TEXT, "times": N}} or {{"$concat": [PART, ...]}} '
        "(a request holding such an object literally needs send_line)"
    )


def _part(part: Json, where: str) -> str:
    if isinstance(part, dict) and set(part) == {REPEAT, "times"}:
        return _text(part, where)
    raise CompactError(f"{where}: a $concat part is a string or a $repeat")
