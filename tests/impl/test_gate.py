"""ExecutionGate.authorize (SPEC.md 4): check order, basis, factory calls, no mutation on denial."""

from __future__ import annotations

import pytest

from impl.impl_support import (
    OTHER_SCHEMA,
    CountingFactory,
    builtin,
    catalog_of,
    forged,
    grant_for,
    mcp,
    observe,
    record,
    rejects,
    sid,
)
from session_toolset import (
    WIRE_NAME_MAX_BYTES,
    ActivatedTool,
    AuthorizedToolCall,
    BuiltinRuntime,
    BuiltinSource,
    CatalogGeneration,
    CoreBasis,
    ExactBasis,
    ExecutionGate,
    McpConfig,
    McpSource,
    RegisteredTool,
    ResolvedToolCall,
    SessionToolSet,
    ToolCatalog,
    ToolId,
    ToolRegistry,
    UnknownSource,
    Unverified,
)
from session_toolset.errors import (
    AuthorizationNotActivated,
    AuthorizationNotCataloged,
    AuthorizationSchemaDigestMismatch,
    AuthorizationSourceProvenanceMismatch,
    AuthorizationUnknownTool,
    AuthorizationUntrustedSource,
    ToolAuthorizationError,
)

pytestmark = pytest.mark.spec("4", "6.drift-denial", "6.no-partial-mutation")

BASH = ToolId.builtin("bash")
LOOKUP = ToolId.mcp("srv", "lookup")
FETCH = ToolId.mcp("srv", "fetch")
DYN = ToolId.unclassified("dyn")
SKEW = ToolId.mcp("srv", "skew")
MISSING = ToolId.parse("mcp.srv:missing")


class World:
    """A catalog, a set with core bash + activated lookup, and one counting factory per tool."""

    def __init__(self) -> None:
        self.factories = {
            name: CountingFactory(name) for name in ("bash", "lookup", "fetch", "dyn", "skew")
        }
        f = self.factories
        self.catalog = catalog_of(
            builtin("bash", factory=f["bash"]),
            mcp("srv", "lookup", factory=f["lookup"]),
            mcp("srv", "fetch", factory=f["fetch"]),
            record(DYN, UnknownSource("dyn"), BuiltinRuntime(), factory=f["dyn"]),
            mcp("srv", "skew", provenance=McpConfig("other"), factory=f["skew"]),
        )
        self.set = SessionToolSet.new(sid("s1"), [BASH, DYN, SKEW], self.catalog)
        self.set.activate(grant_for(self.catalog, sid("s1"), LOOKUP), self.catalog)
        self.other = SessionToolSet.default_core_for_catalog(sid("s2"), self.catalog)

    def authorize(self, tool: ToolId) -> AuthorizedToolCall:
        return ExecutionGate.authorize(self.catalog, self.set, ResolvedToolCall.for_tool(tool))

    def denied(self, expected: type[ToolAuthorizationError], tool: ToolId) -> str:
        err = rejects(
            expected,
            lambda: self.authorize(tool),
            catalogs=[self.catalog],
            sets=[self.set, self.other],
            factories=self.factories.values(),
        )
        assert err.payload() == {"tool": tool.text}
        assert len(err.message.encode("utf-8")) < 512
        return err.code


def test_factory_not_called_by_cataloging_or_activation() -> None:
    w = World()
    assert all(f.calls == 0 for f in w.factories.values())


def test_core_tool_is_authorized_with_core_basis_and_one_factory_call() -> None:
    w = World()
    call = w.authorize(BASH)
    assert call.basis == CoreBasis()
    assert call.resolved.tool_id == BASH
    assert call.implementation == ("bash", 1)
    assert w.factories["bash"].calls == 1
    w.authorize(BASH)
    assert w.factories["bash"].calls == 2
    assert sum(f.calls for f in w.factories.values()) == 2


def test_activated_tool_has_exact_basis_with_the_grant_generation() -> None:
    w = World()
    granted_at = w.catalog.generation
    w.catalog.insert(builtin("unrelated"))  # generation drift alone never denies
    w.catalog.remove(FETCH)
    call = w.authorize(LOOKUP)
    assert call.basis == ExactBasis(granted_at)
    assert w.factories["lookup"].calls == 1


def test_stale_set_core_tool_still_authorized_when_its_record_matches() -> None:
    w = World()
    w.catalog.upsert(FETCH, mcp("srv", "fetch", OTHER_SCHEMA))
    assert w.set.is_stale(w.catalog)
    assert w.authorize(BASH).basis == CoreBasis()


def test_gate_does_not_mutate_on_success() -> None:
    w = World()
    before = observe([w.catalog], [w.set, w.other])
    w.authorize(BASH)
    w.authorize(LOOKUP)
    assert observe([w.catalog], [w.set, w.other]) == before


# --- each denial, and the earlier check winning over a later one ------------------------------


def test_not_cataloged_for_an_unknown_tool() -> None:
    w = World()
    assert w.denied(AuthorizationNotCataloged, MISSING) == "ToolAuthorizationError.NotCataloged"


def test_not_cataloged_beats_a_core_pin() -> None:
    w = World()
    w.catalog.remove(BASH)
    assert w.denied(AuthorizationNotCataloged, BASH) == "ToolAuthorizationError.NotCataloged"


def test_not_cataloged_beats_an_activation() -> None:
    w = World()
    w.catalog.remove(LOOKUP)
    w.denied(AuthorizationNotCataloged, LOOKUP)


def test_core_digest_drift_beats_provenance_drift() -> None:
    w = World()
    w.catalog.upsert(
        BASH, record(BASH, BuiltinSource(), Unverified(), OTHER_SCHEMA, factory=w.factories["bash"])
    )
    code = w.denied(AuthorizationSchemaDigestMismatch, BASH)
    assert code == "ToolAuthorizationError.SchemaDigestMismatch"


def test_activation_digest_drift_beats_provenance_drift() -> None:
    w = World()
    w.catalog.upsert(LOOKUP, record(LOOKUP, McpSource("x", "l"), McpConfig("x"), OTHER_SCHEMA))
    w.denied(AuthorizationSchemaDigestMismatch, LOOKUP)


def test_neither_core_nor_activated_is_not_activated_even_if_untrusted() -> None:
    w = World()
    assert w.denied(AuthorizationNotActivated, FETCH) == "ToolAuthorizationError.NotActivated"
    fresh = SessionToolSet.new(sid("s1"), [], w.catalog)
    for tool in (DYN, SKEW):
        err = rejects(
            AuthorizationNotActivated,
            lambda t=tool: ExecutionGate.authorize(  # type: ignore[misc]
                w.catalog, fresh, ResolvedToolCall.for_tool(t)
            ),
            catalogs=[w.catalog],
            sets=[fresh],
            factories=w.factories.values(),
        )
        assert err.payload() == {"tool": tool.text}


def test_activation_granted_for_another_session_is_not_activated() -> None:
    # Only the low-level constructor can build such a set; the gate must still refuse it,
    # and the session check (step 2) comes before the provenance check (step 3).
    w = World()
    rec = w.catalog.get(LOOKUP)
    assert rec is not None
    foreign = forged("intruder", LOOKUP, w.catalog.generation.value, rec.schema_digest.hex)
    tampered = SessionToolSet(
        sid("s1"), w.catalog.generation, {}, {LOOKUP: ActivatedTool(foreign, Unverified())}, 0
    )
    err = rejects(
        AuthorizationNotActivated,
        lambda: ExecutionGate.authorize(w.catalog, tampered, ResolvedToolCall.for_tool(LOOKUP)),
        catalogs=[w.catalog],
        sets=[tampered],
        factories=w.factories.values(),
    )
    assert err.code == "ToolAuthorizationError.NotActivated"


def test_coherent_imposter_is_a_provenance_mismatch() -> None:
    w = World()
    # same id, identical schema, different but self-consistent source and provenance
    w.catalog.upsert(LOOKUP, record(LOOKUP, McpSource("evil", "lookup"), McpConfig("evil")))
    code = w.denied(AuthorizationSourceProvenanceMismatch, LOOKUP)
    assert code == "ToolAuthorizationError.SourceProvenanceMismatch"
    w.catalog.upsert(BASH, record(BASH, McpSource("evil", "bash"), McpConfig("evil")))
    w.denied(AuthorizationSourceProvenanceMismatch, BASH)


def test_pinned_provenance_check_beats_trust() -> None:
    w = World()
    w.catalog.upsert(LOOKUP, mcp("srv", "lookup", provenance=Unverified()))  # untrusted too
    w.denied(AuthorizationSourceProvenanceMismatch, LOOKUP)


def test_untrusted_core_record_is_denied() -> None:
    w = World()
    code = w.denied(AuthorizationUntrustedSource, DYN)
    assert code == "ToolAuthorizationError.UntrustedSource"


def test_untrusted_after_source_change_with_same_provenance() -> None:
    w = World()
    w.catalog.upsert(LOOKUP, record(LOOKUP, UnknownSource("lookup"), McpConfig("srv")))
    w.denied(AuthorizationUntrustedSource, LOOKUP)


def test_source_provenance_mismatch_from_the_trust_rule() -> None:
    w = World()
    code = w.denied(AuthorizationSourceProvenanceMismatch, SKEW)
    assert code == "ToolAuthorizationError.SourceProvenanceMismatch"


def test_low_level_activation_of_untrusted_tool_is_denied_at_the_gate() -> None:
    w = World()
    s = SessionToolSet.new(sid("s1"), [], w.catalog)
    s.activate(grant_for(w.catalog, sid("s1"), DYN), w.catalog)
    err = rejects(
        AuthorizationUntrustedSource,
        lambda: ExecutionGate.authorize(w.catalog, s, ResolvedToolCall.for_tool(DYN)),
        catalogs=[w.catalog],
        sets=[s],
        factories=w.factories.values(),
    )
    assert err.payload() == {"tool": DYN.text}


def test_counts_after_a_mix_of_denials_and_successes() -> None:
    w = World()
    for tool in (MISSING, FETCH, DYN, SKEW):
        with pytest.raises(ToolAuthorizationError):
            w.authorize(tool)
    assert all(f.calls == 0 for f in w.factories.values())
    w.authorize(LOOKUP)
    w.authorize(LOOKUP)
    w.authorize(BASH)
    assert {k: f.calls for k, f in w.factories.items()} == {
        "bash": 1,
        "lookup": 2,
        "fetch": 0,
        "dyn": 0,
        "skew": 0,
    }


# --- AuthorizedToolCall --------------------------------------------------------------------


def test_authorized_call_cannot_be_constructed_outside_the_gate() -> None:
    resolved = ResolvedToolCall.for_tool(BASH)
    with pytest.raises(TypeError):
        AuthorizedToolCall(object(), resolved, None, CoreBasis())
    with pytest.raises(TypeError):
        AuthorizedToolCall(None, resolved, None, CoreBasis())
    with pytest.raises(TypeError):
        AuthorizedToolCall()  # type: ignore[call-arg]


def test_authorized_call_is_immutable() -> None:
    call = World().authorize(BASH)
    with pytest.raises(AttributeError):
        call.basis = ExactBasis(CatalogGeneration(0))  # type: ignore[misc]
    with pytest.raises(AttributeError):
        call.implementation = "swapped"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        call.extra = 1  # type: ignore[attr-defined]
    assert call.basis == CoreBasis()


def test_authorized_call_attributes_cannot_be_deleted() -> None:
    call = World().authorize(BASH)
    with pytest.raises(AttributeError):
        del call.basis
    assert call.basis == CoreBasis()


# --- wire names ------------------------------------------------------------------------------


def _registry(catalog: ToolCatalog) -> ToolRegistry:
    return ToolRegistry.from_catalog(catalog)


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ("x" * 65536, "x" * 128),
        ("é" * 40000, "é" * 64),
        ("a" + "é" * 40000, "a" + "é" * 63),
        ("€" * 30000, "€" * 42),
        ("𝄞" * 20000, "𝄞" * 32),
        ("ab" + "𝄞" * 20000, "ab" + "𝄞" * 31),
    ],
    ids=["ascii", "2-byte", "2-byte-offset", "3-byte", "4-byte", "4-byte-offset"],
)
def test_huge_wire_name_is_echoed_bounded(wire: str, expected: str) -> None:
    w = World()
    assert WIRE_NAME_MAX_BYTES == 128
    registry = _registry(w.catalog)
    for operation in (
        lambda: ExecutionGate.resolve(registry, wire),
        lambda: ExecutionGate.authorize_wire_call(w.catalog, w.set, registry, wire),
    ):
        err = rejects(
            AuthorizationUnknownTool,
            operation,
            catalogs=[w.catalog],
            sets=[w.set],
            factories=w.factories.values(),
        )
        assert err.code == "ToolAuthorizationError.UnknownTool"
        assert err.wire_name == expected
        assert err.payload() == {"wire_name": expected}
        assert len(err.message.encode("utf-8")) < 512


def test_control_characters_in_wire_name_keep_the_message_bounded() -> None:
    w = World()
    err = rejects(
        AuthorizationUnknownTool,
        lambda: ExecutionGate.resolve(_registry(w.catalog), "\x00\n" * 40000),
        catalogs=[w.catalog],
    )
    assert err.wire_name == "\x00\n" * 64
    assert len(err.message.encode("utf-8")) < 512


def test_authorize_wire_call_resolves_and_authorizes() -> None:
    w = World()
    registry = ToolRegistry(
        [
            RegisteredTool("bash", BASH, builtin=True),
            RegisteredTool("srv.lookup", LOOKUP, builtin=False),
        ]
    )
    call = ExecutionGate.authorize_wire_call(w.catalog, w.set, registry, "srv_lookup")
    assert call.resolved == ResolvedToolCall("srv_lookup", "srv.lookup", LOOKUP)
    assert call.basis == ExactBasis(w.catalog.generation)
    assert w.factories["lookup"].calls == 1
    call2 = ExecutionGate.authorize_wire_call(w.catalog, w.set, registry, "bash")
    assert call2.resolved.tool_id == BASH


def test_wire_call_denial_after_resolution_calls_no_factory() -> None:
    w = World()
    registry = ToolRegistry([RegisteredTool("fetch", FETCH, builtin=False)])
    rejects(
        AuthorizationNotActivated,
        lambda: ExecutionGate.authorize_wire_call(w.catalog, w.set, registry, "fetch"),
        catalogs=[w.catalog],
        sets=[w.set],
        factories=w.factories.values(),
    )


def test_a_64k_runtime_name_resolves_with_bounded_wire_echo() -> None:
    long_name = "r" * 65536
    registry = ToolRegistry([RegisteredTool(long_name, LOOKUP, builtin=False)])
    resolved = ExecutionGate.resolve(registry, long_name)
    assert resolved.tool_id == LOOKUP
    assert resolved.wire_name == "r" * 128
    assert resolved.runtime_name == long_name


def test_resolved_call_for_tool_bounds_the_wire_name() -> None:
    resolved = ResolvedToolCall.for_tool(BASH, wire_name="é" * 1000)
    assert resolved.wire_name == "é" * 64


def test_resolved_call_value_always_holds_a_bounded_wire_name() -> None:
    # SPEC.md 4: ResolvedToolCall's wire name is "bounded to WIRE_NAME_MAX_BYTES".
    resolved = ResolvedToolCall("w" * 1000, "bash", BASH)
    assert len(resolved.wire_name.encode("utf-8")) <= WIRE_NAME_MAX_BYTES
