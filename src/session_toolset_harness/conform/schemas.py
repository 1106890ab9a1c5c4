"""Access to the shipped JSON Schemas (draft 2020-12) and validation against them.

The schema files live in ``session_toolset_harness/schemas/`` as package data so other projects can
use them without Python. Here they are loaded once into a ``referencing`` registry so that a single
``$defs`` entry (the request shape of one op, the success reply of one op) can be validated with
readable messages, instead of the unreadable output of a top-level ``oneOf``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

from jsonschema import Draft202012Validator, validators
from jsonschema.protocols import Validator
from referencing import Registry, Resource

from session_toolset_harness.conform.matcher import child_path

SCHEMA_NAMES: Final = ("vector", "request", "reply")
REPORT_SCHEMA_NAMES: Final = tuple(
    f"{command}-report" for command in ("conform", "explore", "prove", "check", "trace")
)
"""The ``--json`` report of each command (`envelope`)."""


@dataclass(frozen=True)
class SchemaProblem:
    """One schema violation: where in the instance, and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@cache
def load_schema(name: str) -> dict[str, Any]:
    """``<name>.schema.json`` of the installed package."""
    package = resources.files("session_toolset_harness")
    text = (package / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _registry() -> Registry[Any]:
    registry: Registry[Any] = Registry()
    for name in (*SCHEMA_NAMES, *REPORT_SCHEMA_NAMES):
        schema = load_schema(name)
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
    return registry


def _is_strict_integer(_checker: object, instance: object) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


# JSON Schema calls 1.0 an integer; PROTOCOL.md does not ("1 is not 1.0"), so neither do we.
_StrictValidator: Any = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_strict_integer),
)


@cache
def _validator(name: str, pointer: str) -> Validator:
    """A validator for the whole schema (empty pointer) or one ``$defs`` entry of it."""
    base = load_schema(name)["$id"]
    target = {"$ref": f"{base}{pointer}"} if pointer else load_schema(name)
    validator: Validator = _StrictValidator(target, registry=_registry())
    return validator


def _problems(validator: Validator, instance: object) -> list[SchemaProblem]:
    found: list[SchemaProblem] = []
    json_instance: Any = instance
    for error in sorted(validator.iter_errors(json_instance), key=lambda e: list(e.absolute_path)):
        path = "$"
        for part in error.absolute_path:
            path = child_path(path, part)
        found.append(SchemaProblem(path, error.message[:500]))
    return found


def request_ops() -> tuple[str, ...]:
    """Every op the request schema knows, in PROTOCOL.md table order."""
    ops: list[str] = load_schema("request")["properties"]["op"]["enum"]
    return tuple(ops)


def validate_vector(document: object) -> list[SchemaProblem]:
    """Problems of a whole vector file against vector.schema.json."""
    return _problems(_validator("vector", ""), document)


def validate_report(name: str, report: object) -> list[SchemaProblem]:
    """Problems of a ``--json`` report against ``<name>.schema.json`` (`REPORT_SCHEMA_NAMES`)."""
    return _problems(_validator(name, ""), report)


def validate_request(request: object) -> list[SchemaProblem]:
    """Problems of one request; the op picks the definition so messages name the real field."""
    if isinstance(request, dict):
        op = request.get("op")
        if isinstance(op, str) and op in request_ops():
            return _problems(_validator("request", f"#/$defs/op_{op}"), request)
    return _problems(_validator("request", ""), request)


def validate_reply(op: object, reply: object) -> list[SchemaProblem]:
    """Problems of one reply to a request with ``op``: the op's success shape or the error shape."""
    if isinstance(reply, dict) and reply.get("ok") is False:
        return _problems(_validator("reply", "#/$defs/error"), reply)
    if isinstance(reply, dict) and reply.get("ok") is True and isinstance(op, str):
        if op in request_ops():
            return _problems(_validator("reply", f"#/$defs/ok_{op}"), reply)
        return [SchemaProblem("$.ok", f"success reply to unknown op {op!r}")]
    return _problems(_validator("reply", ""), reply)
