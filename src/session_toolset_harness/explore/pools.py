"""Entity pools for model-based exploration: entities whose validity is known by construction.

Valid ToolIds with several (source, provenance) *flavors* each (trusted, untrusted,
provenance-mismatched, coherent imposters, and a same-provenance pair of different source trust),
valid sessions, and hostile ids and sessions with the exact typed error SPEC.md section 1 names,
derived here by hand - a cross-check of the model's world, which computes the same codes itself
(`tests/explore/test_stateful.py`).  Schemas form a small pool of rows of the shared digest
reference.  Random identities beyond the pools come from `strategies`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from session_toolset_model.values import Provenance, Source

MAX_GENERATION: Final = 2**64 - 1


@dataclass(frozen=True)
class Flavor:
    """One (source, provenance) pair a pooled tool can be cataloged with: ``trust`` is SPEC.md's
    verdict for it; ``derives``: the source-aware constructor yields the tool's id."""

    label: str
    source: Source
    provenance: Provenance
    trust: str
    derives: bool


@dataclass(frozen=True)
class PoolTool:
    id: str
    flavors: tuple[Flavor, ...]


_FLAVORS: Final = """
builtin:read trusted builtin//read builtin_runtime/ trusted derives
builtin:read imposter mcp/srv/read mcp_config/srv trusted -
builtin:read unverified builtin//read unverified/ untrusted derives
builtin:read unknown_source unknown//read builtin_runtime/ untrusted -
builtin:bash trusted builtin//bash builtin_runtime/ trusted derives
builtin:bash mismatch builtin//bash extension_manifest/acme mismatch derives
builtin:bash unknown_source unknown//bash builtin_runtime/ untrusted -
ext.acme:lint trusted extension/acme/lint extension_manifest/acme trusted derives
ext.acme:lint mismatch extension/acme/lint extension_manifest/other mismatch derives
ext.acme:lint imposter plugin/pk/lint plugin_config/pk trusted -
ext.acme:lint foreign_source extension/zzz/lint extension_manifest/acme mismatch -
mcp.srv:query trusted mcp/srv/query mcp_config/srv trusted derives
mcp.srv:query unknown_source unknown//query mcp_config/srv untrusted -
mcp.srv:query unverified mcp/srv/query unverified/ untrusted derives
plugin.pk:fmt trusted plugin/pk/fmt plugin_config/pk trusted derives
plugin.pk:fmt mismatch plugin/pk/fmt plugin_config/zz mismatch derives
plugin.pk:fmt foreign_kind mcp/pk/fmt plugin_config/pk mismatch -
unknown:mystery unknown_builtin_prov unknown//mystery builtin_runtime/ untrusted derives
unknown:mystery unverified unknown//mystery unverified/ untrusted derives
unknown:mystery builtin_source builtin//mystery builtin_runtime/ trusted -
"""
"""One flavor a line: tool, label, source ``kind/owner/name``, provenance ``kind/owner``, trust,
whether the source derives the id.  builtin:read and builtin:bash are in the progressive core
list; unknown:mystery has an unknown source: never trusted, yet default core unless
unverified."""


def _tools() -> tuple[PoolTool, ...]:
    flavors: dict[str, list[Flavor]] = {}
    for line in _FLAVORS.split("\n")[1:-1]:
        tool, label, source, provenance, trust, derives = line.split()
        prov = Provenance(*provenance.split("/"))
        flavor = Flavor(label, Source(*source.split("/")), prov, trust, derives == "derives")
        flavors.setdefault(tool, []).append(flavor)
    return tuple(PoolTool(tool, tuple(fs)) for tool, fs in flavors.items())


TOOLS: Final = _tools()
TOOL_IDS: Final = tuple(t.id for t in TOOLS)
"""Every tool also has two flavors with the same provenance and different source trust (the
only change the rebuild's carry condition and the gate's trust step see on their own)."""
TOOL_BY_ID: Final = {t.id: t for t in TOOLS}

SESSIONS: Final = ("s1", "s2", "team/a: b")
"""Valid SessionIds (spaces, `/` and `:` are fine, §1.2)."""

SET_NAMES: Final = ("A", "B", "C")

SCHEMA_TEXTS: Final = (
    '{"type":"object","properties":{"q":{"type":"string"}}}',
    '{"b":2,"a":1}',
    '{"x":1.0}',
)
"""Pooled schemas: rows of the shared digest reference (``reference/digest.json``), so the
digest the SUT returns for each can be checked against the original implementation's value.
Key order is deliberately unsorted in the second, and ``1.0`` is a double in the third."""
SCHEMAS: Final[tuple[Any, ...]] = tuple(json.loads(text) for text in SCHEMA_TEXTS)


def reference_digests() -> dict[str, str]:
    """`schema_key` → the digest the original implementation recorded for each pooled schema."""
    data = json.loads(
        resources.files("session_toolset_harness")
        .joinpath("reference/digest.json")
        .read_text(encoding="utf-8")
    )
    by_text = {row["schema_json"]: row["digest"] for row in data["rows"]}
    return {schema_key(json.loads(text)): by_text[text] for text in SCHEMA_TEXTS}


BOGUS_DIGESTS: Final = ("0" * 64, "not-a-digest")
"""Forged grant digests that match no schema (`forge_grant` takes any string, PROTOCOL.md)."""

HOSTILE_TOOL_IDS: Final[dict[str, tuple[str, dict[str, int]]]] = {
    "": ("ToolIdError.Empty", {}),
    "x" * 201: ("ToolIdError.Oversized", {"actual": 201, "limit": 200}),
    "é" * 101: ("ToolIdError.Oversized", {"actual": 202, "limit": 200}),
    "readonly": ("ToolIdError.MissingNamespace", {}),
    "Builtin:read": ("ToolIdError.InvalidNamespace", {}),
    ":read": ("ToolIdError.InvalidNamespace", {}),
    "-x:read": ("ToolIdError.InvalidNamespace", {}),
    "a" * 65 + ":read": ("ToolIdError.InvalidNamespace", {}),
    "builtin:Read": ("ToolIdError.InvalidName", {}),
    "builtin:": ("ToolIdError.InvalidName", {}),
    "builtin:read:x": ("ToolIdError.InvalidName", {}),
    "builtin: read": ("ToolIdError.InvalidName", {}),
    "builtin:" + "r" * 129: ("ToolIdError.InvalidName", {}),
}
"""Hostile ToolId texts and the `ToolId.parse` error SPEC.md §1.1 gives them (checked in the
order empty, oversized, missing `:`, namespace, name)."""

SESSION_CASES: Final[dict[str, tuple[str, str, dict[str, int]]]] = {
    "": ("Empty", "EmptySessionId", {}),
    "s" * 257: ("Oversized", "OversizedSessionId", {"actual": 257, "limit": 256}),
    "ü" * 129: ("Oversized", "OversizedSessionId", {"actual": 258, "limit": 256}),
    "\n" * 300: ("Oversized", "OversizedSessionId", {"actual": 300, "limit": 256}),
    "a\nb": ("ControlCharacters", "ControlCharacterSessionId", {}),
    "a\rb": ("ControlCharacters", "ControlCharacterSessionId", {}),
    "nul\x00": ("ControlCharacters", "ControlCharacterSessionId", {}),
    "\x1b[0m": ("ControlCharacters", "ControlCharacterSessionId", {}),
    "del\x7f": ("ControlCharacters", "ControlCharacterSessionId", {}),
    "nel\x85": ("ControlCharacters", "ControlCharacterSessionId", {}),
}
HOSTILE_SESSIONS: Final = tuple(SESSION_CASES)


def flavor_of(tool: str, source: Source, provenance: Provenance) -> int | None:
    """The index of the pooled flavor a record of ``tool`` was cataloged with, if any."""
    for index, f in enumerate(TOOL_BY_ID[tool].flavors):
        if f.source == source and f.provenance == provenance:
            return index
    return None


def same_provenance_other_trust(tool: str, flavor: int) -> int | None:
    """A flavor with the same provenance as ``flavor`` but another source trust."""
    here = TOOL_BY_ID[tool].flavors[flavor]
    for index, f in enumerate(TOOL_BY_ID[tool].flavors):
        if f.provenance == here.provenance and f.trust != here.trust:
            return index
    return None


def other_provenance_same_trust(tool: str, flavor: int) -> int | None:
    """A flavor with another provenance than ``flavor`` but the same source trust (the
    provenance condition of a decision flipped alone), else None."""
    here = TOOL_BY_ID[tool].flavors[flavor]
    for index, f in enumerate(TOOL_BY_ID[tool].flavors):
        if f.provenance != here.provenance and f.trust == here.trust:
            return index
    return None


def by_error(cases: Mapping[str, tuple[Any, ...]]) -> dict[str, list[str]]:
    """Hostile texts grouped by the first element of their expected outcome (the error)."""
    groups: dict[str, list[str]] = {}
    for raw, expected in cases.items():
        groups.setdefault(str(expected[0]), []).append(raw)
    return groups


def session_error(raw: str) -> tuple[str, dict[str, int]]:
    """The `SessionId.parse` error of a hostile session (§1.2: empty, oversized, control)."""
    variant, _grant, payload = SESSION_CASES[raw]
    return f"SessionIdError.{variant}", dict(payload)


def grant_session_error(raw: str) -> tuple[str, dict[str, int]]:
    """The grant-construction error of a hostile session (§1.5 maps the SessionId rules)."""
    _variant, grant_variant, payload = SESSION_CASES[raw]
    return f"ActivationGrantError.{grant_variant}", dict(payload)


def schema_key(schema: Any) -> str:
    """A canonical text of a pooled schema, the key of its digest label."""
    return json.dumps(schema, sort_keys=True, separators=(",", ":"))


def derived_id(source: Source) -> str:
    """The source-aware id of a pooled derivable source (SPEC.md 1.1, canonical segments)."""
    prefix = {
        "builtin": "builtin",
        "unknown": "unknown",
        "extension": f"ext.{source.owner}",
        "mcp": f"mcp.{source.owner}",
        "plugin": f"plugin.{source.owner}",
    }[source.kind]
    derived = f"{prefix}:{source.name}"
    flavors = [f for t in TOOLS for f in t.flavors if f.derives and f.source == source]
    if not flavors:
        raise ValueError(f"source {source} is not a pooled derivable source")
    return derived
