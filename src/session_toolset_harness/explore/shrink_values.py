"""Shrinking the values of a reduced failing sequence: simpler requests, same divergence.

Candidates, each kept only when the sequence still diverges at the same operation: a name
segment (between ``.`` and ``:``) renamed to one fresh letter across the whole sequence; an
object member or list element removed, a container emptied; integers towards 0, a string cut to
its first character, a double to 0.  A schema change is made in every request carrying that
schema, and strings equal to its old digest are re-derived by the expected world.  Raw lines are
left as they are."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from typing import Any

from session_toolset_model.world import World

from ..conform.jsonio import RawLine

Path = tuple[Any, ...]
Still = Callable[[list[Any]], "list[Any] | None"]
"""Replays a candidate: the requests up to the divergence if it still diverges there, else None."""

_SEGMENT = re.compile(r"[^.:]+")
_DIGEST = re.compile(r"[0-9a-f]{64}")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def shrink_values(requests: list[Any], still: Still, budget: Callable[[], bool]) -> list[Any]:
    """The simplest sequence found; ``still(candidate)`` replays it (and spends budget),
    ``budget()`` says whether any replay is left."""
    current = list(requests)
    changed = True
    while changed and budget():
        changed = False
        tried: set[str] = set()
        while budget():
            names = _segments(current)
            segment = next((s for s in names if len(s) > 1 and s not in tried), None)
            if segment is None:
                break
            tried.add(segment)
            fresh = next((c for c in _LETTERS if c not in names), None)
            if fresh is None:
                break
            found = still(_rename(current, segment, fresh))
            if found is not None:
                current, changed = found, True
                tried.add(fresh)
        index = 0
        while index < len(current) and budget():
            found = _shrink_request(current, index, still, budget)
            if found is not None:
                current, changed = found, True
            else:
                index += 1
    return current


def size(requests: list[Any]) -> int:
    """What a person reads: the characters of the requests' values (raw lines: their bytes)."""
    return sum(len(r.data) if isinstance(r, RawLine) else len(repr(r)) for r in requests)


# -- renames across the sequence -------------------------------------------------------------


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k != "schema":  # a schema's text is its digest: not a name
                yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _map_strings(value: Any, fn: Callable[[str], str], *, schemas: bool = True) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {
            k: v if (k == "schema" and not schemas) else _map_strings(v, fn, schemas=schemas)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_map_strings(v, fn, schemas=schemas) for v in value]
    return value


def _segments(requests: list[Any]) -> list[str]:
    """The name segments of the sequence's string values (outside `op` and schemas), longest
    first: the parts between ``.`` and ``:``, digests excepted."""
    found = {
        m.group()
        for r in requests
        if isinstance(r, dict)
        for k, v in r.items()
        if k not in ("op", "schema")
        for s in _strings(v)
        if not _DIGEST.fullmatch(s)
        for m in _SEGMENT.finditer(s)
    }
    return sorted(found, key=lambda s: (-len(s), s))


def _rename(requests: list[Any], segment: str, fresh: str) -> list[Any]:
    """``segment`` replaced by ``fresh`` wherever it stands as a segment of a string value."""
    pattern = re.compile(rf"(?<![^.:]){re.escape(segment)}(?![^.:])")

    def rename(s: str) -> str:
        return s if _DIGEST.fullmatch(s) else pattern.sub(fresh, s)

    return [
        r
        if not isinstance(r, dict)
        else {
            k: v if k in ("op", "schema") else _map_strings(v, rename, schemas=False)
            for k, v in r.items()
        }
        for r in requests
    ]


# -- one request's structure and scalars -----------------------------------------------------


def _shrink_request(
    requests: list[Any], index: int, still: Still, budget: Callable[[], bool]
) -> list[Any] | None:
    """The sequence with request ``index`` simplified by the first candidate that keeps the
    divergence, or None."""
    request = requests[index]
    if not isinstance(request, dict):
        return None
    for path, replacement in _candidates(request):
        if not budget():
            return None
        changed = _replace(request, path, replacement)
        candidate = [*requests[:index], changed, *requests[index + 1 :]]
        found = still(_rederive_digests(candidate, request, changed, path))
        if found is not None:
            return found
    return None


_REMOVE = object()
"""A replacement meaning "remove this member / element"."""


def _candidates(request: dict[str, Any]) -> Iterator[tuple[Path, Any]]:
    """(path, replacement) pairs, outside-in; `op` and object keys are never changed."""
    for key, value in request.items():
        if key == "op":
            continue
        yield (key,), _REMOVE
        yield from _node((key,), value)


def _node(path: Path, value: Any) -> Iterator[tuple[Path, Any]]:
    if isinstance(value, dict):
        if value:
            yield path, {}
        for key, child in value.items():
            yield (*path, key), _REMOVE
            yield from _node((*path, key), child)
    elif isinstance(value, list):
        if value:
            yield path, []
        for i, child in enumerate(value):
            yield (*path, i), _REMOVE
            yield from _node((*path, i), child)
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        for smaller in dict.fromkeys((0, 1, value // 2, value - 1 if value > 0 else value + 1)):
            if abs(smaller) < abs(value):
                yield path, smaller
    elif isinstance(value, float):
        if value != 0.0:
            yield path, 0.0
    elif isinstance(value, str) and len(value) > 1:
        yield path, value[:1]  # not "": an empty name reads as a second fault


def _replace(request: dict[str, Any], path: Path, replacement: Any) -> dict[str, Any]:
    out = copy.deepcopy(request)
    parent: Any = out
    for step in path[:-1]:
        parent = parent[step]
    if replacement is _REMOVE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    return out


def _schema_path(path: Path) -> Path | None:
    """The path of the schema value ``path`` lies in (a member named `schema`), if any."""
    for i, step in enumerate(path):
        if step == "schema":
            return path[: i + 1]
    return None


def _digest(schema: Any) -> str | None:
    reply = World().handle({"op": "digest", "schema": schema})
    found = reply.get("digest") if reply.get("ok") else None
    return found if isinstance(found, str) else None


def _at(value: Any, path: Path) -> Any:
    for step in path:
        in_dict = isinstance(value, dict) and step in value
        if in_dict or (isinstance(value, list) and isinstance(step, int) and step < len(value)):
            value = value[step]
        else:
            return _REMOVE
    return value


def _rederive_digests(
    requests: list[Any], before: dict[str, Any], after: dict[str, Any], path: Path
) -> list[Any]:
    """A schema change made everywhere that schema occurs (the same tool's records), and every
    string equal to its old digest re-derived by the world."""
    where = _schema_path(path)
    if where is None:
        return requests
    old, new = _at(before, where), _at(after, where)
    if old is _REMOVE or new is _REMOVE:
        return requests
    requests = [_same_schema(r, where, old, new) for r in requests]
    old_digest, new_digest = _digest(old), _digest(new)
    if old_digest is None or new_digest is None or old_digest == new_digest:
        return requests

    def swap(s: str) -> str:
        return new_digest if s == old_digest else s

    return [
        r if not isinstance(r, dict) else {k: _map_strings(v, swap) for k, v in r.items()}
        for r in requests
    ]


def _same_schema(request: Any, where: Path, old: Any, new: Any) -> Any:
    if not isinstance(request, dict) or _at(request, where) != old:
        return request
    return _replace(request, where, new)
