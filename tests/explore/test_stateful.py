"""The stateful machine against the reference implementation, in-process, under the selected
profile (``SESSION_TOOLSET_PROFILE``: dev, ci (default) or nightly)."""

from __future__ import annotations

import pytest
from session_toolset_model.world import World

from session_toolset_harness.explore import pools, report
from session_toolset_harness.explore.run import explore, profile_from_env
from session_toolset_harness.explore.sut import AdapterSut, InProcessSut, reference_adapter_argv

pytestmark = pytest.mark.spec("2", "3", "4", "5", "6")


def test_reference_implementation_agrees_with_the_model() -> None:
    _name, profile = profile_from_env()
    result = explore(InProcessSut(), examples=profile.examples, steps=profile.steps)
    assert result.error is None
    assert result.failure is None, result.failure.reason
    assert result.steps > profile.examples  # the run did explore
    assert sum(result.coverage.values()) == result.steps  # every step is counted once
    assert result.conditions.decisions  # the model's decisions were recorded


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


def test_the_world_answers_every_hostile_pool_entry_as_derived_by_hand() -> None:
    """The pools' hostile texts carry the SPEC.md 1.1/1.2/1.5 error derived by hand; the model
    package's world (written separately) must give exactly those codes and payloads."""
    world = World()
    for raw, (code, payload) in pools.HOSTILE_TOOL_IDS.items():
        assert world.handle({"op": "catalog_remove", "id": raw}) == {
            "ok": False,
            "error": code,
            **payload,
        }
    for raw in pools.HOSTILE_SESSIONS:
        code, payload = pools.session_error(raw)
        assert world.handle({"op": "session_id_parse", "raw": raw}) == {
            "ok": False,
            "error": code,
            **payload,
        }
        code, payload = pools.grant_session_error(raw)
        forge = {
            "op": "forge_grant",
            "name": "g",
            "session": raw,
            "tool": "builtin:read",
            "generation": 0,
            "digest": "x",
        }
        assert world.handle(forge) == {"ok": False, "error": code, **payload}


def test_the_world_computes_the_pooled_digests_the_original_recorded() -> None:
    world = World()
    for schema in pools.SCHEMAS:
        reply = world.handle({"op": "digest", "schema": schema})
        assert reply["digest"] == pools.reference_digests()[pools.schema_key(schema)]


def test_required_pairs_are_model_outcomes() -> None:
    from session_toolset_model.ops import OPS

    for op, code in report.required_pairs():
        assert op in report.PROTOCOL_ONLY or code in OPS[op].outcomes
