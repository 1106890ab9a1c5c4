"""Every handler reads its request fields in the order PROTOCOL.md's row lists them, and only them.

Vectors can observe field order only where two faults answer differently (``fields/order-*``);
where every fault of two fields answers ``Protocol`` (``activate``'s set and grant, say) the order
is invisible through the protocol.  This test looks from inside: it hands each handler a complete,
valid request whose mapping records every key the handler looks at, and compares that sequence
with the row of ``docs/spec/PROTOCOL.md`` (parsed here, so a changed row fails the test).  That
each field is also *finished* (parsed) before the next is read is what ``fields/order-*`` check.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import pytest

from adapter.adapter_support import send
from session_toolset.adapter import World
from session_toolset.adapter.fields import Request
from session_toolset.adapter.ops import HANDLERS
from session_toolset.errors import SessionToolsetError

PROTOCOL_MD = Path(__file__).resolve().parents[2] / "docs" / "spec" / "PROTOCOL.md"
_ROW = re.compile(r"^\| (`[a-z_]+`(?: / `[a-z_]+`)*) \| ([^|]*) \|")
_NAME = re.compile(r"`([a-z_]+)`")


def row_fields() -> dict[str, list[str]]:
    """op → request fields in row order: backticked names outside parentheses, before any ';'."""
    rows: dict[str, list[str]] = {}
    for line in PROTOCOL_MD.read_text(encoding="utf-8").splitlines():
        found = _ROW.match(line)
        if found is None:
            continue
        cell = found.group(2)
        while re.search(r"\([^()]*\)", cell):
            cell = re.sub(r"\([^()]*\)", "", cell)  # explanations, never fields
        names = list(dict.fromkeys(_NAME.findall(cell.split(";", 1)[0])))
        for op in _NAME.findall(found.group(1)):
            rows[op] = names
    # "`replaced` (ID or null) + the `catalog_insert` fields"
    upsert = rows["catalog_upsert"]
    at = upsert.index("catalog_insert")
    rows["catalog_upsert"] = upsert[:at] + rows["catalog_insert"] + upsert[at + 1 :]
    return rows


class Recording(dict[str, Any]):
    """A request mapping that remembers which keys were looked at, in order."""

    def __init__(self, fields: dict[str, Any]) -> None:
        super().__init__(fields)
        self.seen: list[str] = []

    def _see(self, key: object) -> None:
        if isinstance(key, str) and key not in self.seen:
            self.seen.append(key)

    def __contains__(self, key: object) -> bool:
        self._see(key)
        return super().__contains__(key)

    def __getitem__(self, key: str) -> Any:
        self._see(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self._see(key)
        return super().get(key, default)


BUILTIN = {"kind": "builtin", "name": "zz"}
RUNTIME = {"kind": "builtin_runtime"}
RECORD = {
    "source": BUILTIN,
    "provenance": RUNTIME,
    "schema": {},
    "id": "builtin:zz",
    "runtime_name": "zz",
    "summary": "s",
    "tags": ["t"],
}

#: A complete request (every listed field, optional ones included) for every op but hello/reset.
VALID: dict[str, dict[str, Any]] = {
    "tool_id_parse": {"raw": "a:b"},
    "tool_id": {"source": BUILTIN},
    "session_id_parse": {"raw": "s"},
    "digest": {"schema": {}},
    "catalog_insert": RECORD,
    "catalog_upsert": {"replaced": None, **RECORD},
    "catalog_remove": {"id": "builtin:bash"},
    "catalog_rebase_past": {"prior": 1},
    "catalog_set_generation": {"value": 1},
    "catalog_state": {},
    "factory_calls": {"tool": "builtin:bash"},
    "issue_grant": {"name": "g2", "session": "s", "tool": "builtin:bash"},
    "forge_grant": {
        "name": "f",
        "session": "s",
        "tool": "builtin:bash",
        "generation": 1,
        "digest": "00",
    },
    "set_new": {"name": "N", "session": "s", "core": ["builtin:bash"]},
    "set_default_core": {"name": "N", "session": "s"},
    "set_progressive_core": {"name": "N", "session": "s"},
    "activate": {"set": "A", "grant": "g"},
    "activate_many": {"set": "A", "grants": ["g"]},
    "activate_user": {"set": "A", "tool": "builtin:bash"},
    "activate_model": {"set": "A", "authority": "model_confirmed", "tools": ["builtin:bash"]},
    "revoke": {"set": "A", "tool": "builtin:bash"},
    "rebuild": {"set": "A", "into": "R", "progressive": True, "carry_forward": False},
    "route": {"set": "A", "into": "R", "fallback_session": "s"},
    "is_stale": {"set": "A"},
    "snapshot": {"set": "A"},
    "resolve": {"wire_name": "bash"},
    "authorize": {"set": "A", "tool": "builtin:bash", "wire_name": "bash"},
    "authorize_wire": {"set": "A", "wire_name": "bash"},
    "carry_forward_enabled": {"env": "1"},
}


def world() -> World:
    w = World()
    for request in [
        {
            "op": "catalog_insert",
            "source": {"kind": "builtin", "name": "bash"},
            "provenance": RUNTIME,
            "schema": {},
        },
        {"op": "set_new", "name": "A", "session": "s", "core": []},
        {"op": "forge_grant", "name": "g", "session": "s", "tool": "builtin:bash"}
        | {"generation": 1, "digest": "00"},
    ]:
        assert send(w, request)["ok"] is True
    return w


def test_the_table_and_the_handlers_name_the_same_ops() -> None:
    assert set(row_fields()) == set(HANDLERS)
    assert set(VALID) | {"hello", "reset"} == set(HANDLERS)


@pytest.mark.parametrize("op", sorted(VALID))
def test_handler_reads_the_row_fields_in_row_order(op: str) -> None:
    expected = row_fields()[op]
    assert list(VALID[op]) == expected  # the request above is written in row order too
    fields = Recording(VALID[op])
    with contextlib.suppress(SessionToolsetError):  # operation errors come after the fields
        HANDLERS[op](world(), Request(fields))
    assert fields.seen == expected


@pytest.mark.parametrize("op", ["hello", "reset"])
def test_ops_without_fields_read_none(op: str) -> None:
    assert row_fields()[op] == []
    fields = Recording({"set": "A", "raw": 1})
    HANDLERS[op](world(), Request(fields))
    assert fields.seen == []
