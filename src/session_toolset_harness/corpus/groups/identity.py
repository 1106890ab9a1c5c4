"""SPEC.md 1.1 ToolId, 1.2 SessionId and 1.5 grant construction (session text only)."""

from __future__ import annotations

from session_toolset_harness.corpus.dsl import (
    Vector,
    src_builtin,
    src_ext,
    src_mcp,
    src_plugin,
    src_unknown,
)
from session_toolset_harness.corpus.spec import enc

G = "identity"


def _parse_order() -> Vector:
    v = Vector(
        f"{G}/tool-id-parse-order",
        "ToolId.parse checks empty, then over 200 bytes, then the ':' , then the namespace, then "
        "the name: each case violates a later rule too, so only the first rule may answer.",
        ("check-order", "tool-id"),
    )
    v.fail("tool_id_parse", "ToolIdError.Empty", raw="")
    # 201 bytes, no ':' and an upper-case namespace: Oversized wins.
    v.fail("tool_id_parse", "ToolIdError.Oversized", {"actual": 201, "limit": 200}, raw="A" * 201)
    v.fail(
        "tool_id_parse",
        "ToolIdError.Oversized",
        {"actual": 201, "limit": 200},
        raw="Bad:" + "X" * 197,
    )
    # Multi-byte: 2 + 2*100 = 202 bytes but only 102 characters.
    v.fail(
        "tool_id_parse",
        "ToolIdError.Oversized",
        {"actual": 202, "limit": 200},
        raw="a:" + "\u00e9" * 100,
    )
    # 200 bytes exactly is not oversized; the name (198 bytes) is over its 128 budget.
    v.fail("tool_id_parse", "ToolIdError.InvalidName", raw="a:" + "b" * 198)
    v.fail("tool_id_parse", "ToolIdError.MissingNamespace", raw="NoColonHere")
    v.fail("tool_id_parse", "ToolIdError.MissingNamespace", raw="builtin-bash")
    # Bad namespace and bad name: the namespace is checked first.
    v.fail("tool_id_parse", "ToolIdError.InvalidNamespace", raw="Builtin:Bash")
    v.fail("tool_id_parse", "ToolIdError.InvalidNamespace", raw=":bash")
    v.fail("tool_id_parse", "ToolIdError.InvalidName", raw="builtin:")
    # A second ':' lands in the name and fails there.
    v.fail("tool_id_parse", "ToolIdError.InvalidName", raw="a:b:c")
    v.fail("tool_id_parse", "ToolIdError.InvalidNamespace", raw="_a:b")
    return v


def _parse_canonical() -> Vector:
    v = Vector(
        f"{G}/tool-id-parse-verbatim",
        "Valid ids are kept verbatim; parsing never lowercases, trims or sanitizes.",
        ("tool-id", "hostile"),
    )
    for raw in ["builtin:bash", "0:9", "a-b.c_d:e.f-g_h", "a:enc-zz", "sha-x:sha-y", "a.:b-"]:
        v.ok("tool_id_parse", {"id": raw}, raw=raw)
    for raw in [" a:b", "a :b", "\ta:b", "-a:b", ".a:b"]:
        v.fail("tool_id_parse", "ToolIdError.InvalidNamespace", raw=raw)
    for raw in ["a:b ", "a:b\n", "a: b"]:
        v.fail("tool_id_parse", "ToolIdError.InvalidName", raw=raw)
    for raw in ["a:_b", "a:-b", "a:B", "a:b/c", "a:\u00e9", "a:b\u0000", "a:b\u0085"]:
        v.fail("tool_id_parse", "ToolIdError.InvalidName", raw=raw)
    for raw in ["\u00e9:b", "A:b", "a/b:c", "a\u001b:b"]:
        v.fail("tool_id_parse", "ToolIdError.InvalidNamespace", raw=raw)
    return v


def _segment_limits() -> Vector:
    v = Vector(
        f"{G}/tool-id-segment-limits",
        "Namespace at most 64 bytes, name at most 128 bytes, whole id at most 200 bytes.",
        ("tool-id", "boundary"),
    )
    longest = "n" * 64 + ":" + "m" * 128  # 193 bytes, the longest valid id
    v.ok("tool_id_parse", {"id": longest}, raw=longest)
    v.fail("tool_id_parse", "ToolIdError.InvalidNamespace", raw="n" * 65 + ":m")
    v.fail("tool_id_parse", "ToolIdError.InvalidName", raw="n:" + "m" * 129)
    v.fail("tool_id_parse", "ToolIdError.InvalidNamespace", raw="n" * 65 + ":" + "m" * 129)
    v.ok("tool_id_parse", {"id": "n" * 64 + ":m"}, raw="n" * 64 + ":m")
    v.ok("tool_id_parse", {"id": "n:" + "m" * 128}, raw="n:" + "m" * 128)
    # Oversized is reported before the namespace/name budgets, with the byte count.
    v.fail(
        "tool_id_parse",
        "ToolIdError.Oversized",
        {"actual": 65536, "limit": 200},
        raw="x" * 65536,
    )
    return v


def _constructors() -> Vector:
    v = Vector(
        f"{G}/tool-id-constructors",
        "Source-aware constructors: prefixes, verbatim canonical segments, enc- hex of raw bytes.",
        ("tool-id",),
    )
    cases = [
        (src_builtin("bash"), "builtin:bash"),
        (src_builtin("Bash"), "builtin:enc-42617368"),
        (src_builtin(""), "builtin:enc-"),
        (src_builtin("enc-x"), "builtin:enc-656e632d78"),
        (src_builtin("sha-x"), "builtin:enc-7368612d78"),
        (src_builtin("\u00e9"), "builtin:enc-c3a9"),
        (src_builtin("a b"), "builtin:enc-612062"),
        (src_unknown("Dyn Tool"), "unknown:enc-44796e20546f6f6c"),
        (src_unknown("dyn"), "unknown:dyn"),
        (src_ext("acme.ext", "deploy"), "ext.acme.ext:deploy"),
        (src_ext("Acme", "deploy"), "ext.enc-41636d65:deploy"),
        (src_mcp("srv-a", "lookup"), "mcp.srv-a:lookup"),
        (src_mcp("srv a", "Look Up"), "mcp.enc-7372762061:enc-4c6f6f6b205570"),
        (src_plugin("p1", "fmt"), "plugin.p1:fmt"),
        (src_plugin("", ""), "plugin.enc-:enc-"),
    ]
    for source, expected in cases:
        v.ok("tool_id", {"id": expected}, source=source)
    return v


def _budgets() -> Vector:
    v = Vector(
        f"{G}/tool-id-encoding-budgets",
        "Segment budgets (extension/mcp 60, plugin 57, names 128): canonical kept up to the "
        "budget, enc- while the hex fits, sha- (40 hex of SHA-256) beyond.",
        ("tool-id", "boundary"),
    )
    exact = [
        # canonical at and over the budget
        (src_ext("e" * 60, "t"), "ext." + "e" * 60 + ":t"),
        (src_mcp("s" * 60, "t"), "mcp." + "s" * 60 + ":t"),
        (src_plugin("p" * 57, "t"), "plugin." + "p" * 57 + ":t"),
        (src_builtin("b" * 128), "builtin:" + "b" * 128),
        # enc- exactly fitting: 4 + 2*28 = 60, 4 + 2*26 = 56 <= 57, 4 + 2*62 = 128
        (src_ext("E" * 28, "t"), "ext.enc-" + "45" * 28 + ":t"),
        (src_plugin("P" * 26, "t"), "plugin.enc-" + "50" * 26 + ":t"),
        (src_builtin("B" * 62), "builtin:enc-" + "42" * 62),
    ]
    for source, expected in exact:
        v.ok("tool_id", {"id": expected}, source=source)
    # Beyond the budget: sha- computed from the rule by the builder.
    computed = [
        (src_ext("e" * 61, "t"), "ext." + enc("e" * 61, 60) + ":t"),
        (src_mcp("s" * 61, "t"), "mcp." + enc("s" * 61, 60) + ":t"),
        (src_plugin("p" * 58, "t"), "plugin." + enc("p" * 58, 57) + ":t"),
        (src_ext("E" * 29, "t"), "ext." + enc("E" * 29, 60) + ":t"),
        (src_plugin("P" * 27, "t"), "plugin." + enc("P" * 27, 57) + ":t"),
        (src_builtin("b" * 129), "builtin:" + enc("b" * 129, 128)),
        (src_builtin("B" * 63), "builtin:" + enc("B" * 63, 128)),
        (src_unknown("\u00e9" * 1000), "unknown:" + enc("\u00e9" * 1000, 128)),
    ]
    for source, expected in computed:
        assert "sha-" in expected
        v.ok("tool_id", {"id": expected}, source=source)
    return v


def _session_rules() -> Vector:
    v = Vector(
        f"{G}/session-id-rules",
        "SessionId.parse: empty, then over 256 bytes, then control characters; no trimming.",
        ("session-id", "check-order", "boundary"),
    )
    v.fail("session_id_parse", "SessionIdError.Empty", raw="")
    v.ok("session_id_parse", raw="s" * 256)
    v.fail(
        "session_id_parse", "SessionIdError.Oversized", {"actual": 257, "limit": 256}, raw="s" * 257
    )
    v.fail(
        "session_id_parse",
        "SessionIdError.Oversized",
        {"actual": 258, "limit": 256},
        raw="\u00e9" * 129,
    )
    # Oversized and containing a control character: size is checked first.
    v.fail(
        "session_id_parse",
        "SessionIdError.Oversized",
        {"actual": 300, "limit": 256},
        raw="\n" * 300,
    )
    for raw in [" ", " s ", "a/b:c", "s-1", "\u00e9\u4e2d\U0001f600", "\u2028", "\u200b", "\u00a0"]:
        v.ok("session_id_parse", raw=raw)
    return v


def _session_controls() -> Vector:
    v = Vector(
        f"{G}/session-id-control-characters",
        "Every C0 control, DEL and every C1 control (incl. U+0085, NUL, ESC) is refused.",
        ("session-id", "hostile"),
    )
    controls = [chr(c) for c in range(0x20)] + ["\u007f"] + [chr(c) for c in range(0x80, 0xA0)]
    for char in controls:
        v.fail("session_id_parse", "SessionIdError.ControlCharacters", raw=f"s{char}x")
    v.fail("session_id_parse", "SessionIdError.ControlCharacters", raw="\u0000")
    return v


def _grant_sessions() -> Vector:
    v = Vector(
        f"{G}/grant-session-rules",
        "forge_grant validates only the session text, with the SessionId rules mapped to "
        "ActivationGrantError; any digest string and any generation are accepted.",
        ("grant", "session-id", "hostile"),
    )
    fields = {"tool": "mcp.srv-a:lookup", "generation": 0, "digest": "x"}
    v.fail("forge_grant", "ActivationGrantError.EmptySessionId", name="g", session="", **fields)
    v.fail(
        "forge_grant",
        "ActivationGrantError.OversizedSessionId",
        {"actual": 257, "limit": 256},
        name="g",
        session="s" * 257,
        **fields,
    )
    for char in ["\n", "\r", "\u0000", "\u001b", "\u007f", "\u0085"]:
        v.fail(
            "forge_grant",
            "ActivationGrantError.ControlCharacterSessionId",
            name="g",
            session=f"s{char}",
            **fields,
        )
    # The failed forge_grant calls named no grant.
    v.ok("set_new", name="S", session="s", core=[])
    v.protocol({"op": "activate_many", "set": "S", "grants": ["g"]})
    grant = {"session": "s 1/x:y", "tool": "mcp.srv-a:lookup", "generation": 0, "digest": ""}
    v.ok("forge_grant", {"grant": grant}, name="g", **grant)
    grant = {
        "session": "s" * 256,
        "tool": "a:b",
        "generation": 2**64 - 1,
        "digest": "not hex at all \u00e9",
    }
    v.ok("forge_grant", {"grant": grant}, name="g2", **grant)
    # Field errors: the tool is parsed strictly.
    v.fail(
        "forge_grant",
        "ToolIdError.MissingNamespace",
        name="g3",
        session="s",
        tool="nocolon",
        generation=0,
        digest="x",
    )
    return v


def vectors() -> list[Vector]:
    return [
        _parse_order(),
        _parse_canonical(),
        _segment_limits(),
        _constructors(),
        _budgets(),
        _session_rules(),
        _session_controls(),
        _grant_sessions(),
    ]
