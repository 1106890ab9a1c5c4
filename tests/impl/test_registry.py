"""ToolRegistry (SPEC.md 4 "resolve"): API-safe aliases, collisions, and resolution order."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from impl.impl_support import builtin, catalog_of, mcp, record, rejects
from session_toolset import (
    ExecutionGate,
    McpConfig,
    McpSource,
    RegisteredTool,
    ResolvedToolCall,
    ToolId,
    ToolRegistry,
)
from session_toolset.errors import AuthorizationUnknownTool

pytestmark = pytest.mark.spec("4")


def _tid(n: int) -> ToolId:
    return ToolId.parse(f"t:tool{n:04d}")


def spec_aliases(tools: list[RegisteredTool]) -> dict[str, ToolId]:
    """SPEC.md section 4's alias rule, written from the text."""

    def key(t: RegisteredTool) -> tuple[int, bytes, bytes]:
        return (0 if t.builtin else 1, t.runtime_name.encode("utf-8"), t.tool_id.text.encode())

    taken: dict[str, ToolId] = {}
    for tool in sorted(tools, key=key):
        base = "".join(
            ch if (ch.isascii() and (ch.isalnum() or ch in "_-")) else "_"
            for ch in tool.runtime_name
        )
        base = base.encode("utf-8")[:64].decode("utf-8")
        alias = base
        n = 2
        while alias in taken:
            suffix = f"_{n}"
            alias = base[: 64 - len(suffix)] + suffix
            n += 1
        taken[alias] = tool.tool_id
    return taken


def test_alias_replaces_unsafe_characters() -> None:
    reg = ToolRegistry([RegisteredTool("srv.look up/é:x", _tid(1), builtin=False)])
    assert reg.aliases() == {"srv_look_up___x": _tid(1)}
    assert reg.resolve("srv_look_up___x").tool_id == _tid(1)


def test_safe_characters_are_kept() -> None:
    reg = ToolRegistry([RegisteredTool("Az09_-", _tid(1), builtin=False)])
    assert reg.aliases() == {"Az09_-": _tid(1)}


def test_builtins_get_aliases_first() -> None:
    # "b x" < "b.x" byte-wise, but the builtin "b.x" still gets the plain alias.
    reg = ToolRegistry(
        [
            RegisteredTool("b x", _tid(1), builtin=False),
            RegisteredTool("b.x", _tid(2), builtin=True),
        ]
    )
    assert reg.aliases() == {"b_x": _tid(2), "b_x_2": _tid(1)}


def test_byte_order_within_a_group_and_numbered_suffixes() -> None:
    reg = ToolRegistry(
        [
            RegisteredTool("a/b", _tid(1), builtin=False),  # 0x2f
            RegisteredTool("a b", _tid(2), builtin=False),  # 0x20
            RegisteredTool("a.b", _tid(3), builtin=False),  # 0x2e
            RegisteredTool("a_b", _tid(4), builtin=False),  # 0x5f
        ]
    )
    assert reg.aliases() == {
        "a_b": _tid(2),
        "a_b_2": _tid(3),
        "a_b_3": _tid(1),
        "a_b_4": _tid(4),
    }


def test_ties_by_tool_id() -> None:
    reg = ToolRegistry(
        [
            RegisteredTool("same", _tid(9), builtin=False),
            RegisteredTool("same", _tid(3), builtin=False),
        ]
    )
    assert reg.aliases() == {"same": _tid(3), "same_2": _tid(9)}


def test_alias_is_cut_to_64_bytes_and_suffix_cuts_the_base() -> None:
    names = ["a" * 100 + c for c in "bcdefghijklm"]  # 12 names sharing a 64-byte base
    reg = ToolRegistry([RegisteredTool(n, _tid(i), builtin=False) for i, n in enumerate(names)])
    aliases = reg.aliases()
    assert aliases["a" * 64] == _tid(0)
    assert aliases["a" * 62 + "_2"] == _tid(1)
    assert aliases["a" * 62 + "_9"] == _tid(8)
    assert aliases["a" * 61 + "_10"] == _tid(9)
    assert aliases["a" * 61 + "_12"] == _tid(11)
    assert all(len(a.encode()) <= 64 for a in aliases)
    assert len(aliases) == 12


def test_suffix_skips_an_alias_already_taken() -> None:
    # "x_2" (a real runtime name) is handed out before the second "x" collides.
    reg = ToolRegistry(
        [
            RegisteredTool("x", _tid(1), builtin=True),
            RegisteredTool("x_2", _tid(2), builtin=True),
            RegisteredTool("x", _tid(3), builtin=False),
        ]
    )
    assert reg.aliases() == {"x": _tid(1), "x_2": _tid(2), "x_3": _tid(3)}


def test_alias_match_beats_runtime_name_match() -> None:
    # "foo.bar" < "foo_bar", so the tool named "foo.bar" owns alias "foo_bar".
    reg = ToolRegistry(
        [
            RegisteredTool("foo_bar", _tid(1), builtin=False),
            RegisteredTool("foo.bar", _tid(2), builtin=False),
        ]
    )
    assert reg.resolve("foo_bar") == ResolvedToolCall("foo_bar", "foo.bar", _tid(2))
    assert reg.resolve("foo_bar_2") == ResolvedToolCall("foo_bar_2", "foo_bar", _tid(1))
    assert reg.resolve("foo.bar") == ResolvedToolCall("foo.bar", "foo.bar", _tid(2))


def test_runtime_name_resolves_when_no_alias_matches() -> None:
    reg = ToolRegistry([RegisteredTool("srv:lookup", _tid(5), builtin=False)])
    assert reg.resolve("srv:lookup").tool_id == _tid(5)
    assert reg.resolve("srv_lookup").tool_id == _tid(5)


@pytest.mark.parametrize("reverse", [False, True])
def test_shared_runtime_name_resolves_to_the_first_in_alias_order(reverse: bool) -> None:
    # SPEC.md 4: several live tools may share a runtime name; the raw name resolves to the first
    # of them in alias order (builtins first, then runtime-name bytes, ties by ToolId).  The
    # name holds an unsafe character, so no alias equals it and the runtime-name rule decides.
    tools = [
        RegisteredTool("srv.x", _tid(9), builtin=False),
        RegisteredTool("srv.x", _tid(2), builtin=False),
        RegisteredTool("srv.x", _tid(5), builtin=True),
        RegisteredTool("srv.x", _tid(1), builtin=False),
    ]
    reg = ToolRegistry(reversed(tools) if reverse else tools)
    assert reg.aliases() == {
        "srv_x": _tid(5),
        "srv_x_2": _tid(1),
        "srv_x_3": _tid(2),
        "srv_x_4": _tid(9),
    }
    assert reg.resolve("srv.x") == ResolvedToolCall("srv.x", "srv.x", _tid(5))


def test_shared_runtime_name_without_builtins_resolves_to_the_smallest_tool_id() -> None:
    reg = ToolRegistry(
        [
            RegisteredTool("a b", ToolId.parse("mcp.z:t"), builtin=False),
            RegisteredTool("a b", ToolId.parse("ext.q:t"), builtin=False),
            RegisteredTool("a.b", ToolId.parse("ext.a:t"), builtin=False),
        ]
    )
    # "a b" < "a.b" byte-wise: both "a b" tools come first, "ext.q:t" < "mcp.z:t" among them
    assert reg.alias_of(ToolId.parse("ext.q:t")) == "a_b"
    assert reg.resolve("a b").tool_id == ToolId.parse("ext.q:t")
    assert reg.resolve("a.b").tool_id == ToolId.parse("ext.a:t")


def test_wire_text_never_selects_the_identity_it_spells() -> None:
    bash = ToolId.builtin("bash")
    reg = ToolRegistry(
        [
            RegisteredTool("builtin:bash", _tid(7), builtin=False),  # an impostor runtime name
            RegisteredTool("bash", bash, builtin=True),
        ]
    )
    assert reg.resolve("builtin:bash").tool_id == _tid(7)
    assert reg.resolve("builtin_bash").tool_id == _tid(7)
    assert reg.resolve("bash").tool_id == bash


@pytest.mark.parametrize("wire", ["", "nope", "BASH", "bash ", " bash", "bash_2", "b_x_3"])
def test_unknown_wire_names(wire: str) -> None:
    reg = ToolRegistry([RegisteredTool("bash", ToolId.builtin("bash"), builtin=True)])
    with pytest.raises(AuthorizationUnknownTool) as info:
        reg.resolve(wire)
    assert info.value.code == "ToolAuthorizationError.UnknownTool"
    assert info.value.payload() == {"wire_name": wire}


def test_from_catalog_uses_runtime_names_and_builtin_sources() -> None:
    lookup = ToolId.mcp("srv", "lookup")
    catalog = catalog_of(
        record(lookup, McpSource("srv", "lookup"), McpConfig("srv"), runtime_name="bash"),
        builtin("bash"),
        mcp("srv", "fetch"),
    )
    reg = ToolRegistry.from_catalog(catalog)
    assert reg.aliases() == {
        "builtin_bash": ToolId.builtin("bash"),
        "bash": lookup,
        "mcp_srv_fetch": ToolId.mcp("srv", "fetch"),
    }
    resolved = ExecutionGate.resolve(reg, "bash")
    assert resolved == ResolvedToolCall("bash", "bash", lookup)
    rejects(AuthorizationUnknownTool, lambda: reg.resolve("mcp.srv:nope"), catalogs=[catalog])


_names = st.text(
    alphabet=st.sampled_from([*"ab_-. :/AZ0", "\u00e9", "\U0001d11e"]),
    min_size=0,
    max_size=70,
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(_names, st.booleans()), min_size=1, max_size=12),
)
def test_random_registries_match_the_spec_and_aliases_resolve_to_their_tool(
    entries: list[tuple[str, bool]],
) -> None:
    tools = [RegisteredTool(name, _tid(i), builtin=b) for i, (name, b) in enumerate(entries)]
    reg = ToolRegistry(tools)
    expected = spec_aliases(tools)
    assert reg.aliases() == expected
    assert len(expected) == len(tools)  # every tool has exactly one alias
    by_id = {t.tool_id: t for t in tools}
    for alias, tool_id in expected.items():
        assert len(alias.encode("utf-8")) <= 64
        assert re.fullmatch(r"[A-Za-z0-9_-]*", alias)
        resolved = reg.resolve(alias)
        assert resolved.tool_id == tool_id
        assert resolved.runtime_name == by_id[tool_id].runtime_name
    order = list(expected.values())  # SPEC.md alias order: the order aliases were handed out
    for tool in tools:
        # a runtime name resolves to the tool whose alias it is, else to the first tool in
        # alias order that carries it as its runtime name — never a third
        resolved = reg.resolve(tool.runtime_name)
        owner = expected.get(tool.runtime_name)
        if owner is None:
            owner = next(t for t in order if by_id[t].runtime_name == tool.runtime_name)
        assert resolved.tool_id == owner
