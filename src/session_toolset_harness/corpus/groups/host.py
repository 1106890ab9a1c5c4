"""SPEC.md 5: issue_exact_grant, activate_exact_for_user and activate_model_initiated."""

from __future__ import annotations

from session_toolset_harness.corpus.dsl import Vector, insert, issue, snapshot, state
from session_toolset_harness.corpus.groups.common import (
    BASH,
    DEPLOY,
    DYN,
    FMT,
    FORGED,
    GREP,
    LOOKUP,
    NOTE,
    SORTED_STANDARD,
    STANDARD_GENERATION,
    standard_catalog,
)

G = "host"
GEN = STANDARD_GENERATION


def _base(vid: str, description: str, tags: tuple[str, ...] = ()) -> Vector:
    v = Vector(f"{G}/{vid}", description, ("host", *tags))
    standard_catalog(v)
    v.ok("set_new", name="H", session="s-h", core=[BASH.id])
    return v


def _untouched(v: Vector) -> None:
    snapshot(v, "H", "s-h", GEN, 0, [BASH], [])
    state(v, GEN, SORTED_STANDARD)


def _issue() -> Vector:
    v = _base(
        "issue-grant",
        "issue_exact_grant: UnknownTool, then source trust; otherwise a grant at the current "
        "generation and digest for any valid session. Pure: no factory call, no set change.",
        ("grant",),
    )
    issue(v, "g", "s-h", LOOKUP, GEN)
    issue(v, "g-any", "no set has this session", FMT, GEN)
    v.fail(
        "issue_grant",
        "GrantIssuanceError.UnknownTool",
        {"tool": "mcp.srv-a:nope"},
        name="x",
        session="s-h",
        tool="mcp.srv-a:nope",
    )
    v.fail(
        "issue_grant",
        "GrantIssuanceError.UntrustedSource",
        {"tool": DYN.id},
        name="x",
        session="s-h",
        tool=DYN.id,
    )
    v.fail(
        "issue_grant",
        "GrantIssuanceError.SourceProvenanceMismatch",
        {"tool": FORGED.id},
        name="x",
        session="s-h",
        tool=FORGED.id,
    )
    # field errors come first: the session, then the tool, are parsed before issuance runs
    v.fail("issue_grant", "SessionIdError.Empty", name="x", session="", tool="mcp.srv-a:nope")
    v.fail(
        "issue_grant",
        "SessionIdError.ControlCharacters",
        name="x",
        session="s\u001b[0m",
        tool=DYN.id,
    )
    v.fail("issue_grant", "ToolIdError.InvalidName", name="x", session="s-h", tool="mcp.srv-a:Nope")
    # the failed issuances named no grant
    v.protocol({"op": "activate", "set": "H", "grant": "x"})
    v.ok("factory_calls", {"calls": 0}, tool=LOOKUP.id)
    _untouched(v)
    # a grant follows the catalog generation
    insert(v, GREP, GEN + 1)
    issue(v, "g2", "s-h", LOOKUP, GEN + 1)
    return v


def _user() -> Vector:
    v = _base(
        "activate-user",
        "activate_exact_for_user: issuance errors as HostActivationError.Issuance.*, then the "
        "batch errors as HostActivationError.Bulk.*; success activates at the current generation.",
    )
    v.fail(
        "activate_user",
        "HostActivationError.Issuance.UnknownTool",
        {"tool": "mcp.srv-a:nope"},
        set="H",
        tool="mcp.srv-a:nope",
    )
    v.fail(
        "activate_user",
        "HostActivationError.Issuance.UntrustedSource",
        {"tool": DYN.id},
        set="H",
        tool=DYN.id,
    )
    v.fail(
        "activate_user",
        "HostActivationError.Issuance.SourceProvenanceMismatch",
        {"tool": FORGED.id},
        set="H",
        tool=FORGED.id,
    )
    v.fail(
        "activate_user",
        "HostActivationError.Bulk.Grant.AlreadyCore",
        {"tool": BASH.id},
        set="H",
        tool=BASH.id,
    )
    _untouched(v)
    v.ok("activate_user", set="H", tool=DEPLOY.id)
    snapshot(v, "H", "s-h", GEN, 1, [BASH], [(DEPLOY, GEN)])
    v.fail(
        "activate_user",
        "HostActivationError.Bulk.Grant.AlreadyActivated",
        {"tool": DEPLOY.id},
        set="H",
        tool=DEPLOY.id,
    )
    insert(v, GREP, GEN + 1)
    v.fail(
        "activate_user",
        "HostActivationError.Bulk.Grant.StaleSnapshot",
        {"set": GEN, "catalog": GEN + 1},
        set="H",
        tool=LOOKUP.id,
    )
    # issuance before bulk: a stale set and an untrusted/unknown tool → the issuance error
    v.fail(
        "activate_user",
        "HostActivationError.Issuance.UntrustedSource",
        {"tool": DYN.id},
        set="H",
        tool=DYN.id,
    )
    v.fail(
        "activate_user",
        "HostActivationError.Issuance.UnknownTool",
        {"tool": "mcp.x:y"},
        set="H",
        tool="mcp.x:y",
    )
    snapshot(v, "H", "s-h", GEN, 1, [BASH], [(DEPLOY, GEN)])
    v.protocol({"op": "activate_user", "set": "nope", "tool": LOOKUP.id})
    v.fail("activate_user", "ToolIdError.Empty", set="H", tool="")
    return v


def _model() -> Vector:
    v = _base(
        "activate-model",
        "activate_model_initiated: without authority nothing happens (ConfirmationRequired before "
        "anything else); confirmed, every grant is issued in request order, then one batch.",
        ("atomic-batches",),
    )
    for tools in [[LOOKUP.id], [], ["mcp.srv-a:nope", DYN.id], [BASH.id, BASH.id]]:
        v.fail(
            "activate_model",
            "HostActivationError.ConfirmationRequired",
            set="H",
            authority="unauthorized",
            tools=tools,
        )
    _untouched(v)
    v.ok("activate_model", {"applied": 0}, set="H", authority="model_confirmed", tools=[])
    _untouched(v)
    # issuance: first failure in request order, nothing applied
    v.fail(
        "activate_model",
        "HostActivationError.Issuance.UnknownTool",
        {"tool": "mcp.srv-a:nope"},
        set="H",
        authority="model_confirmed",
        tools=[LOOKUP.id, "mcp.srv-a:nope", DYN.id],
    )
    v.fail(
        "activate_model",
        "HostActivationError.Issuance.UntrustedSource",
        {"tool": DYN.id},
        set="H",
        authority="model_confirmed",
        tools=[LOOKUP.id, DYN.id, "mcp.srv-a:nope"],
    )
    v.fail(
        "activate_model",
        "HostActivationError.Issuance.SourceProvenanceMismatch",
        {"tool": FORGED.id},
        set="H",
        authority="model_confirmed",
        tools=[FORGED.id, DYN.id],
    )
    # issuance of every grant comes before the batch: an unknown tool after a duplicate wins
    v.fail(
        "activate_model",
        "HostActivationError.Issuance.UnknownTool",
        {"tool": "mcp.srv-a:nope"},
        set="H",
        authority="model_confirmed",
        tools=[LOOKUP.id, LOOKUP.id, "mcp.srv-a:nope"],
    )
    v.fail(
        "activate_model",
        "HostActivationError.Bulk.DuplicateRequest",
        {"tool": LOOKUP.id},
        set="H",
        authority="model_confirmed",
        tools=[LOOKUP.id, NOTE.id, LOOKUP.id],
    )
    v.fail(
        "activate_model",
        "HostActivationError.Bulk.Grant.AlreadyCore",
        {"tool": BASH.id},
        set="H",
        authority="model_confirmed",
        tools=[LOOKUP.id, BASH.id],
    )
    _untouched(v)
    v.ok(
        "activate_model",
        {"applied": 3},
        set="H",
        authority="model_confirmed",
        tools=[NOTE.id, FMT.id, LOOKUP.id],
    )
    snapshot(v, "H", "s-h", GEN, 1, [BASH], [(LOOKUP, GEN), (NOTE, GEN), (FMT, GEN)])
    v.fail(
        "activate_model",
        "HostActivationError.Bulk.Grant.AlreadyActivated",
        {"tool": NOTE.id},
        set="H",
        authority="model_confirmed",
        tools=[DEPLOY.id, NOTE.id],
    )
    insert(v, GREP, GEN + 1)
    v.fail(
        "activate_model",
        "HostActivationError.Bulk.Grant.StaleSnapshot",
        {"set": GEN, "catalog": GEN + 1},
        set="H",
        authority="model_confirmed",
        tools=[DEPLOY.id],
    )
    v.fail(
        "activate_model",
        "HostActivationError.ConfirmationRequired",
        set="H",
        authority="unauthorized",
        tools=[DEPLOY.id],
    )
    snapshot(v, "H", "s-h", GEN, 1, [BASH], [(LOOKUP, GEN), (NOTE, GEN), (FMT, GEN)])
    return v


def _model_fields() -> Vector:
    v = _base(
        "activate-model-field-errors",
        "Field errors come before ConfirmationRequired: a bad tool id, an unknown set name, an "
        "authority that is not one of the two values (authority never comes from model JSON).",
        ("field-errors", "check-order", "protocol"),
    )
    v.fail(
        "activate_model",
        "ToolIdError.InvalidNamespace",
        set="H",
        authority="unauthorized",
        tools=[LOOKUP.id, "Mcp:x"],
    )
    v.fail(
        "activate_model",
        "ToolIdError.MissingNamespace",
        set="H",
        authority="model_confirmed",
        tools=["x"],
    )
    v.protocol({"op": "activate_model", "set": "nope", "authority": "unauthorized", "tools": []})
    for authority in ["confirmed", "MODEL_CONFIRMED", True, None, {"kind": "model_confirmed"}]:
        v.protocol(
            {"op": "activate_model", "set": "H", "authority": authority, "tools": [LOOKUP.id]}
        )
    v.protocol({"op": "activate_model", "set": "H", "tools": [LOOKUP.id]})
    v.protocol(
        {"op": "activate_model", "set": "H", "authority": "model_confirmed", "tools": LOOKUP.id}
    )
    _untouched(v)
    return v


def vectors() -> list[Vector]:
    return [_issue(), _user(), _model(), _model_fields()]
