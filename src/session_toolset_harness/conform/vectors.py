"""Finding and loading vector files (PROTOCOL.md, Vectors; compact ones expanded first).

Paths named on the command line are always vectors, so a broken one is errored; in a directory
scan (recursive ``*.json``, sorted) a JSON file that is no object with ``steps`` or ``protocol``
is *not a vector file* and is skipped.  Loading never raises: a problem is a `LoadProblem`.

Choosing by tag: ``--tag`` selects (the others are neither run nor reported, like ``-k``),
``--exclude-tag`` sets aside (each is reported skipped with the tag, so the reports show how
much of the corpus was not attempted).  A tag is a non-empty word without whitespace.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from session_toolset_harness.conform import compact
from session_toolset_harness.conform.jsonio import JsonTextError, RawLine, parse_strict

PROTOCOL_VERSION = 1

#: The three ways a step can give its request; exactly one per step.
SEND_KEYS: Final = ("send", "send_line", "send_hex")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")


@dataclass(frozen=True)
class Step:
    """One request (an object, or the `RawLine` of ``send_line`` / ``send_hex``) and the subset
    of the reply it must produce."""

    send: object
    expect: dict[str, object]


class StepShapeError(ValueError):
    """A step whose request keys are unusable; the message says why, without the step index."""


def read_send(step: Mapping[str, object]) -> object:
    """The request of one step as the runner sends it: the ``send`` value or a `RawLine`;
    `StepShapeError` unless exactly one of ``send``, ``send_line``, ``send_hex`` is there and
    holds one line (``send_line`` UTF-8 encodable, ``send_hex`` pairs of hex digits)."""
    present = [key for key in SEND_KEYS if key in step]
    if len(present) != 1:
        found = ", ".join(present) if present else "none"
        raise StepShapeError(f"needs exactly one of send, send_line, send_hex (found {found})")
    key = present[0]
    value = step[key]
    if key == "send":
        return value
    if not isinstance(value, str):
        raise StepShapeError(f"{key} must be a string")
    if key == "send_line":
        if "\n" in value:
            raise StepShapeError("send_line holds a newline; a step sends exactly one line")
        try:
            return RawLine(value.encode("utf-8"))
        except UnicodeEncodeError:
            raise StepShapeError(
                "send_line is not UTF-8 encodable (a lone surrogate); write it as send_hex"
            ) from None
    if _HEX.fullmatch(value) is None:
        raise StepShapeError("send_hex must be pairs of hex digits (0-9, a-f)")
    data = bytes.fromhex(value)
    newline = data.find(b"\n")
    if newline >= 0:
        raise StepShapeError(
            f"send_hex holds a newline byte (0a) at byte {newline}; a step sends exactly one line"
        )
    return RawLine(data, hex=True)


@dataclass(frozen=True)
class Vector:
    """A loaded, well-shaped vector file."""

    id: str
    description: str
    tags: tuple[str, ...]
    steps: tuple[Step, ...]
    path: Path

    @property
    def display_id(self) -> str:
        return self.id


@dataclass(frozen=True)
class LoadProblem:
    """A file that could not be used as a vector (``not_a_vector``: some other JSON document
    found by a directory scan, reported as skipped rather than as an error)."""

    path: Path
    message: str
    not_a_vector: bool = False

    @property
    def display_id(self) -> str:
        return str(self.path)


@dataclass(frozen=True)
class Candidate:
    """A file to load, and whether it was named explicitly or found by a scan."""

    path: Path
    explicit: bool


class VectorPathError(Exception):
    """A ``--vectors`` argument that names nothing usable (a usage error, exit 2)."""


def discover(paths: Iterable[Path]) -> list[Candidate]:
    """Expand files and directories into candidates, keeping the argument order."""
    found: list[Candidate] = []
    for path in paths:
        if path.is_dir():
            found.extend(Candidate(p, explicit=False) for p in sorted(path.rglob("*.json")))
        elif path.is_file():
            found.append(Candidate(path, explicit=True))
        else:
            raise VectorPathError(f"no such file or directory: {path}")
    return found


def read_document(candidate: Candidate) -> object | LoadProblem:
    """The parsed JSON of a candidate, or why it cannot be used (unreadable, not JSON, other)."""
    path = candidate.path
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return LoadProblem(path, f"cannot read: {exc}")
    try:
        document = parse_strict(text)
    except JsonTextError as exc:
        return LoadProblem(path, f"invalid JSON: {exc}")
    if not candidate.explicit and not (
        isinstance(document, dict) and ("steps" in document or "protocol" in document)
    ):
        return LoadProblem(path, "not a vector file", not_a_vector=True)
    return document


def shape(document: object, path: Path) -> Vector | LoadProblem:
    """Turn a parsed document into a Vector, or say what is wrong with its shape."""
    if not isinstance(document, dict):
        return LoadProblem(path, "a vector file must be a JSON object")
    if compact.is_compact(document):
        try:
            document = compact.expand(document)
        except compact.CompactError as exc:
            return LoadProblem(path, str(exc))
    problem = _top_level_problem(document)
    if problem is not None:
        return LoadProblem(path, problem)
    steps: list[Step] = []
    for index, raw in enumerate(document["steps"]):
        if not isinstance(raw, dict) or "expect" not in raw:
            return LoadProblem(path, f"steps[{index}] must be an object with expect and a send")
        expect = raw["expect"]
        if not isinstance(expect, dict):
            return LoadProblem(path, f"steps[{index}].expect must be an object")
        try:
            send = read_send(raw)
        except StepShapeError as exc:
            return LoadProblem(path, f"steps[{index}]: {exc}")
        steps.append(Step(send=send, expect=expect))
    return Vector(
        id=document["id"],
        description=document.get("description", ""),
        tags=tuple(document.get("tags", [])),
        steps=tuple(steps),
        path=path,
    )


def _top_level_problem(document: dict[str, object]) -> str | None:
    protocol = document.get("protocol")
    if isinstance(protocol, bool) or protocol != PROTOCOL_VERSION:
        return f"protocol must be {PROTOCOL_VERSION}, got {protocol!r}"
    vector_id = document.get("id")
    if not isinstance(vector_id, str) or not vector_id or any(c.isspace() for c in vector_id):
        return "id must be a non-empty string without whitespace"
    if not isinstance(document.get("description", ""), str):
        return "description must be a string"
    tags = document.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        return "tags must be a list of strings"
    steps = document.get("steps")
    if not isinstance(steps, list) or not steps:
        return "steps must be a non-empty list"
    return None


def load_all(candidates: Iterable[Candidate]) -> list[Vector | LoadProblem]:
    """Load every candidate; a second vector reusing an id is a problem, not a silent shadow."""
    seen: dict[str, Path] = {}
    loaded: list[Vector | LoadProblem] = []
    for candidate in candidates:
        document = read_document(candidate)
        item = document if isinstance(document, LoadProblem) else shape(document, candidate.path)
        if isinstance(item, Vector):
            if item.id in seen:
                item = LoadProblem(
                    item.path, f"duplicate vector id {item.id!r} (also in {seen[item.id]})"
                )
            else:
                seen[item.id] = item.path
        loaded.append(item)
    return loaded


def documents(root: Path) -> list[dict[str, Any]]:
    """Every vector file under ``root`` as a PROTOCOL.md document (compact files expanded), in
    the runner's scan order; JSON files that are not vector files are left out.  Raises
    ``ValueError`` naming the file for one that cannot be read or expanded."""
    found: list[dict[str, Any]] = []
    for candidate in discover([root]):
        document = read_document(candidate)
        if isinstance(document, LoadProblem):
            if document.not_a_vector:
                continue
            raise ValueError(f"{document.path}: {document.message}")
        if not isinstance(document, dict):
            raise ValueError(f"{candidate.path}: a vector file must be a JSON object")
        try:
            found.append(compact.expand(document))
        except compact.CompactError as exc:
            raise ValueError(f"{candidate.path}: {exc}") from None
    return found


Item = Vector | LoadProblem


def parse_tag(text: str) -> str:
    """``argparse`` type for ``--tag`` / ``--exclude-tag``."""
    if not text or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError(f"a tag is a non-empty word without spaces: {text!r}")
    return text


def select(items: Iterable[Item], tags: Sequence[str]) -> list[Item]:
    """The items ``--tag`` keeps: vectors carrying any of ``tags`` (all when ``tags`` is empty),
    and every file that could not be loaded (its tags are unknown, and it must not go unnoticed)."""
    if not tags:
        return list(items)
    wanted = set(tags)
    return [
        item for item in items if not isinstance(item, Vector) or wanted.intersection(item.tags)
    ]


def vectors_only(items: Iterable[Item]) -> list[Vector]:
    """The loaded vectors among ``items`` (files that could not be loaded left out)."""
    return [item for item in items if isinstance(item, Vector)]


def unknown_tags(items: Iterable[Item], tags: Sequence[str]) -> list[str]:
    """The given tags that no loaded vector carries, in the order given (each once)."""
    carried = {tag for item in items if isinstance(item, Vector) for tag in item.tags}
    return [tag for tag in dict.fromkeys(tags) if tag not in carried]


def excluded_by(vector: Vector, exclude: Sequence[str]) -> str | None:
    """The first ``--exclude-tag`` (in command-line order) that ``vector`` carries, or None."""
    for tag in exclude:
        if tag in vector.tags:
            return tag
    return None
