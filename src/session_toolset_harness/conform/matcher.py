"""The PROTOCOL.md subset rule: does a reply contain what a vector expects?

Objects match when every expected key is present with a matching value (extra reply keys are fine);
lists must have the same length and order; scalars must be equal *and* of the same JSON type.
Python's ``==`` is too loose for the last rule (``True == 1`` and ``1 == 1.0``), so the JSON type is
compared first. The first difference is reported with its JSON path so a failure points at it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from session_toolset_harness.conform.jsonio import json_type, render

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Mismatch:
    """The first place where a reply departs from the expected subset."""

    path: str
    message: str


def child_path(path: str, key: str | int) -> str:
    """Extend a ``$``-rooted JSON path by an object key or a list index."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _IDENTIFIER.match(key):
        return f"{path}.{key}"
    return f"{path}[{render(key, 80)}]"


def first_difference(expected: object, actual: object, path: str = "$") -> Mismatch | None:
    """Return the first mismatch of ``actual`` against the subset ``expected``, or None."""
    expected_type = json_type(expected)
    actual_type = json_type(actual)
    if expected_type != actual_type:
        return Mismatch(
            path,
            f"expected {expected_type} {render(expected, 200)}, "
            f"got {actual_type} {render(actual, 200)}",
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return _object_difference(expected, actual, path)
    if isinstance(expected, list) and isinstance(actual, list):
        return _list_difference(expected, actual, path)
    if expected != actual:
        return Mismatch(path, f"expected {render(expected, 200)}, got {render(actual, 200)}")
    return None


def _object_difference(
    expected: dict[object, object], actual: dict[object, object], path: str
) -> Mismatch | None:
    for key, value in expected.items():
        key_path = child_path(path, str(key))
        if key not in actual:
            return Mismatch(key_path, f"missing key (expected {render(value, 200)})")
        found = first_difference(value, actual[key], key_path)
        if found is not None:
            return found
    return None


def _list_difference(expected: list[object], actual: list[object], path: str) -> Mismatch | None:
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        found = first_difference(want, got, child_path(path, index))
        if found is not None:
            return found
    if len(expected) != len(actual):
        return Mismatch(path, f"expected {len(expected)} elements, got {len(actual)}")
    return None


_ENCODE = json.JSONEncoder(allow_nan=False, check_circular=False, separators=(",", ":")).encode


def same_json(left: object, right: object) -> bool:
    """Exact equality of two decoded JSON values, the JSON type of every scalar included
    (Python says ``1 == 1.0 == True``).  Fast answers first: values ``==`` calls unequal differ,
    and equal values with equal JSON texts are the same; anything else (keys in another order,
    ``-0.0`` against ``0.0``, a type ``==`` blurs) takes the walk."""
    try:
        if left != right:
            return False
        if _ENCODE(left) == _ENCODE(right):
            return True
    except (TypeError, ValueError, RecursionError):
        pass
    return _same_json(left, right)


def _same_json(left: object, right: object) -> bool:
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        assert isinstance(right, dict)
        return left.keys() == right.keys() and all(
            _same_json(value, right[key]) for key, value in left.items()
        )
    if isinstance(left, list):
        assert isinstance(right, list)
        return len(left) == len(right) and all(
            _same_json(a, b) for a, b in zip(left, right, strict=True)
        )
    return left == right
