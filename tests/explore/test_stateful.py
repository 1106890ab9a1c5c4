"""The stateful machine against the reference implementation, in-process, under the selected
profile (``SESSION_TOOLSET_PROFILE``: dev, ci (default) or nightly)."""

from __future__ import annotations

import pytest

from session_toolset_harness.explore import coverage, pools
from session_toolset_harness.explore.bridge import ExpectedWorld, OutOfScope
from session_toolset_harness.explore.run import explore, explore_rounds, profile_from_env
from session_toolset_harness.explore.sut import AdapterSut, InProcessSut, reference_adapter_argv

pytestmark = pytest.mark.spec("2", "3", "4", "5", "6")


def test_reference_implementation_agrees_with_the_model() -> None:
    name, profile = profile_from_env()
    result = explore_rounds(
        InProcessSut(),
        examples=profile.examples,
        steps=profile.steps,
        rounds=profile.rounds,
        min_hits=profile.min_hits,
    )
    assert result.error is None
    assert result.failure is None, result.failure.reason
    assert result.steps > profile.examples  # the run did explore
    short = coverage.missing(result.coverage, profile.min_hits)
    assert not short, f"coverage below the {name} minimum: {short}\n" + coverage.table(
        result.coverage
    )


def test_external_adapter_plumbing() -> None:
    """The same machine through a real child process (the conform client)."""
    sut = AdapterSut(reference_adapter_argv())
    try:
        result = explore(sut, examples=8, steps=15, seed_value=3)
    finally:
        sut.close()
    assert result.error is None and result.failure is None
    assert result.steps > 0
    assert sum(result.coverage.values()) == result.steps


def test_pooled_derivable_sources_derive_the_pooled_id() -> None:
    for tool in pools.TOOLS:
        for flavor in tool.flavors:
            if flavor.derives:
                assert pools.derived_id(flavor.source) == tool.id


def test_pooled_trust_matches_the_model_table() -> None:
    from session_toolset_model.values import source_trust

    for tool in pools.TOOLS:
        for flavor in tool.flavors:
            assert source_trust(flavor.source, flavor.provenance) == flavor.trust, flavor


def test_bridge_refuses_what_it_cannot_answer() -> None:
    world = ExpectedWorld(pools.reference_digests())
    with pytest.raises(OutOfScope):
        world.handle({"op": "tool_id_parse", "raw": "builtin:read"})
    with pytest.raises(OutOfScope):
        world.handle({"op": "issue_grant", "name": "g", "session": "s9", "tool": "builtin:read"})


def test_bridge_answers_hostile_fields_by_hand_derived_codes() -> None:
    world = ExpectedWorld(pools.reference_digests())
    reply = world.handle({"op": "catalog_remove", "id": "é" * 101})
    assert reply == {"ok": False, "error": "ToolIdError.Oversized", "actual": 202, "limit": 200}
    reply = world.handle(
        {
            "op": "forge_grant",
            "name": "g",
            "session": "nel\x85",
            "tool": "builtin:read",
            "generation": 0,
            "digest": "x",
        }
    )
    assert reply == {"ok": False, "error": "ActivationGrantError.ControlCharacterSessionId"}


def test_required_pairs_are_model_outcomes() -> None:
    from session_toolset_model.ops import OPS

    for op, code in coverage.required_pairs():
        assert op in coverage.PROTOCOL_ONLY or code in OPS[op].outcomes
    for op, code in coverage.UNREACHABLE:
        assert code in OPS[op].outcomes
