"""SPEC.md section 4: API-safe aliases of live tools and wire-name resolution.

A registry entry is ``(runtime_name, tool_id, builtin_sourced)``.  Aliases: every character
outside ``[A-Za-z0-9_-]`` becomes ``_``, cut to 64 bytes; handed out to builtin-sourced tools
first, then the others, each group in runtime-name byte order (ties by ToolId); a taken alias
becomes the first free ``base_N`` (N = 2, 3, ...) with the base cut so the whole fits in 64 bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple

ALIAS_MAX: Final = 64
WIRE_NAME_MAX_BYTES: Final = 128
_SAFE: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class Live(NamedTuple):
    runtime_name: str
    tool: str
    builtin: bool


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def bounded(text: str, limit: int = WIRE_NAME_MAX_BYTES) -> str:
    """The longest prefix of at most ``limit`` UTF-8 bytes ending on a character boundary."""
    used = 0
    for index, ch in enumerate(text):
        used += len(_bytes(ch))
        if used > limit:
            return text[:index]
    return text


def base_alias(runtime_name: str) -> str:
    safe = "".join(c if c in _SAFE else "_" for c in runtime_name)
    return safe[:ALIAS_MAX]  # all ASCII now: characters are bytes


def alias_order(entries: Iterable[Live]) -> list[Live]:
    """Builtin-sourced first, then the rest; each by runtime-name bytes, ties by ToolId bytes."""
    return sorted(entries, key=lambda e: (not e.builtin, _bytes(e.runtime_name), _bytes(e.tool)))


def aliases(entries: Iterable[Live]) -> list[tuple[str, Live]]:
    """(alias, entry) in the order aliases are handed out."""
    taken: set[str] = set()
    out: list[tuple[str, Live]] = []
    for entry in alias_order(entries):
        base = base_alias(entry.runtime_name)
        alias = base
        n = 2
        while alias in taken:
            suffix = f"_{n}"
            alias = base[: ALIAS_MAX - len(suffix)] + suffix
            n += 1
        taken.add(alias)
        out.append((alias, entry))
    return out


def resolve(entries: Iterable[Live], wire_name: str) -> tuple[str, Live] | None:
    """The entry a wire name selects: an alias match first, else the first entry (in alias
    order) whose runtime name matches; None when nothing matches.  Returns (alias, entry)."""
    assigned = aliases(entries)
    for alias, entry in assigned:
        if alias == wire_name:
            return alias, entry
    for alias, entry in assigned:
        if entry.runtime_name == wire_name:
            return alias, entry
    return None
