"""``conform --validate``: vector files checked without any adapter.

Each file against vector.schema.json, each step's ``send`` against request.schema.json (except
``send_line`` / ``send_hex`` steps, whose shape is checked, and steps expecting a field error,
which send invalid requests on purpose), each ``expect.error`` against the known codes, ids for
uniqueness; a compact file's setups and ``$repeat`` / ``$concat`` text must expand.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from session_toolset_harness.conform import codes, compact, schemas
from session_toolset_harness.conform.coverage import expected_hits
from session_toolset_harness.conform.jsonio import RawLine
from session_toolset_harness.conform.matcher import child_path
from session_toolset_harness.conform.results import Hit
from session_toolset_harness.conform.vectors import (
    Candidate,
    LoadProblem,
    StepShapeError,
    read_document,
    read_send,
)


@dataclass(frozen=True)
class FileValidation:
    """The verdict on one file."""

    path: str
    vector_id: str | None
    problems: tuple[str, ...]
    not_a_vector: bool = False
    hits: tuple[Hit, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.problems


def step_problems(steps: list[Any]) -> list[str]:
    """Problems of each step's send keys, request and error code (``$.steps[i]`` paths)."""
    problems: list[str] = []
    for index, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        try:
            send = read_send(step)
        except StepShapeError as exc:
            problems.append(f"$.steps[{index}]: {exc}")
            continue
        if not isinstance(step.get("expect"), dict):
            continue
        expect: dict[str, object] = step["expect"]
        where = child_path(child_path("$.steps", index), "send")
        error = expect.get("error")
        if isinstance(error, str) and not codes.is_known(error):
            problems.append(f"$.steps[{index}].expect.error: unknown error code {error!r}")
        if (isinstance(error, str) and codes.is_field_error(error)) or isinstance(send, RawLine):
            continue
        for found in schemas.validate_request(send):
            problems.append(f"{where}{found.path[1:]}: {found.message}")
    return problems


def _sent(step: dict[str, object]) -> object:
    """The request of a step for coverage, or None when its send keys are unusable."""
    try:
        return read_send(step)
    except StepShapeError:
        return None


def validate_file(candidate: Candidate) -> FileValidation:
    """Validate one candidate file."""
    document = read_document(candidate)
    path = str(candidate.path)
    if isinstance(document, LoadProblem):
        return FileValidation(path, None, (document.message,), document.not_a_vector)
    found = schemas.validate_vector(document)
    problems = [str(p) for p in found]
    if isinstance(document, dict):
        steps = document.get("steps")
        if compact.is_compact(document):
            try:
                problems.extend(step_problems(compact.own_steps(document)))
                steps = compact.expand(document)["steps"]
            except compact.CompactError as exc:
                if str(exc).split(":", 1)[0] not in {p.path for p in found}:  # not said twice
                    problems.append(str(exc))
                steps = None
        elif isinstance(steps, list):
            problems.extend(step_problems(steps))
        vector_id = document.get("id")
        pairs = (
            [
                (_sent(s), s["expect"])
                for s in steps
                if isinstance(s, dict) and isinstance(s.get("expect"), dict)
            ]
            if isinstance(steps, list)
            else []
        )
        return FileValidation(
            path,
            vector_id if isinstance(vector_id, str) else None,
            tuple(problems),
            hits=expected_hits(pairs),
        )
    return FileValidation(path, None, tuple(problems))


def validate_all(candidates: Iterable[Candidate]) -> list[FileValidation]:
    """Validate every candidate and flag ids used by more than one file."""
    seen: dict[str, str] = {}
    results: list[FileValidation] = []
    for candidate in candidates:
        verdict = validate_file(candidate)
        vector_id = verdict.vector_id
        if vector_id is not None:
            if vector_id in seen:
                verdict = FileValidation(
                    verdict.path,
                    vector_id,
                    (*verdict.problems, f"duplicate vector id (also in {seen[vector_id]})"),
                    hits=verdict.hits,
                )
            else:
                seen[vector_id] = verdict.path
        results.append(verdict)
    return results
