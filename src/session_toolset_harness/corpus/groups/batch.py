"""SPEC.md 3 activate_many(): request-order validation, the first failure decides, zero mutation
on rejection, one schema_generation advance per applied batch."""

from __future__ import annotations

from session_toolset_harness.corpus.dsl import (
    P_BUILTIN,
    P_UNVERIFIED,
    Rec,
    Vector,
    forge,
    insert,
    issue,
    p_ext,
    p_mcp,
    p_plugin,
    snapshot,
    src_builtin,
    src_ext,
    src_mcp,
    src_unknown,
    state,
)
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

G = "batch"
GEN = STANDARD_GENERATION
BAD = "f" * 64


def _base(vid: str, description: str, tags: tuple[str, ...] = ()) -> Vector:
    v = Vector(f"{G}/{vid}", description, ("batch", *tags))
    standard_catalog(v)
    v.ok("set_new", name="B", session="s-b", core=[BASH.id])
    for name, rec in [("lookup", LOOKUP), ("note", NOTE), ("deploy", DEPLOY), ("fmt", FMT)]:
        issue(v, name, "s-b", rec, GEN)
    return v


def _untouched(v: Vector) -> None:
    snapshot(v, "B", "s-b", GEN, 0, [BASH], [])
    state(v, GEN, SORTED_STANDARD)


def _atomic_success() -> Vector:
    v = _base(
        "atomic-success",
        "A batch applies every grant (stored in ToolId order whatever the request order) with "
        "exactly one schema_generation advance; an empty batch returns 0 and changes nothing.",
        ("atomic-batches", "counters"),
    )
    v.ok("activate_many", {"applied": 0}, set="B", grants=[])
    _untouched(v)
    v.ok("activate_many", {"applied": 3}, set="B", grants=["note", "fmt", "lookup"])
    snapshot(v, "B", "s-b", GEN, 1, [BASH], [(LOOKUP, GEN), (NOTE, GEN), (FMT, GEN)])
    v.ok("activate_many", {"applied": 1}, set="B", grants=["deploy"])
    snapshot(v, "B", "s-b", GEN, 2, [BASH], [(DEPLOY, GEN), (LOOKUP, GEN), (NOTE, GEN), (FMT, GEN)])
    v.ok("activate_many", {"applied": 0}, set="B", grants=[])
    snapshot(v, "B", "s-b", GEN, 2, [BASH], [(DEPLOY, GEN), (LOOKUP, GEN), (NOTE, GEN), (FMT, GEN)])
    return v


def _grant_errors() -> Vector:
    v = _base(
        "grant-errors",
        "Every ActivationError inside a batch is reported as BulkActivationError.Grant.<variant> "
        "with the inner payload; the good grants before it are not applied.",
        ("no-partial-mutation", "atomic-batches"),
    )
    forge(v, "x-session", "s-other", NOTE.id, GEN, NOTE.digest)
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.SessionMismatch",
        set="B",
        grants=["lookup", "x-session"],
    )
    _untouched(v)
    forge(v, "x-unknown", "s-b", "mcp.srv-a:nope", GEN, BAD)
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.UnknownTool",
        {"tool": "mcp.srv-a:nope"},
        set="B",
        grants=["lookup", "x-unknown"],
    )
    _untouched(v)
    forge(v, "x-stale", "s-b", NOTE.id, 3, NOTE.digest)
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.StaleGeneration",
        {"grant": 3, "catalog": GEN},
        set="B",
        grants=["lookup", "x-stale"],
    )
    _untouched(v)
    forge(v, "x-digest", "s-b", NOTE.id, GEN, BAD)
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.DigestMismatch",
        {"tool": NOTE.id},
        set="B",
        grants=["lookup", "fmt", "x-digest"],
    )
    _untouched(v)
    issue(v, "x-core", "s-b", BASH, GEN)
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.AlreadyCore",
        {"tool": BASH.id},
        set="B",
        grants=["lookup", "x-core"],
    )
    _untouched(v)
    v.ok("activate_many", {"applied": 1}, set="B", grants=["deploy"])
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.AlreadyActivated",
        {"tool": DEPLOY.id},
        set="B",
        grants=["lookup", "deploy"],
    )
    snapshot(v, "B", "s-b", GEN, 1, [BASH], [(DEPLOY, GEN)])
    insert(v, GREP, GEN + 1)
    issue(v, "fresh", "s-b", NOTE, GEN + 1)
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.StaleSnapshot",
        {"set": GEN, "catalog": GEN + 1},
        set="B",
        grants=["fresh"],
    )
    snapshot(v, "B", "s-b", GEN, 1, [BASH], [(DEPLOY, GEN)])
    return v


def _first_failure_decides() -> Vector:
    v = _base(
        "first-failure-decides",
        "Grants are validated one by one in request order (duplicate, activate checks, source "
        "trust); the first failing grant decides the error, not the most severe one and not the "
        "first in ToolId order.",
        ("check-order", "no-partial-mutation"),
    )
    forge(v, "stale-note", "s-b", NOTE.id, 1, NOTE.digest)
    forge(v, "bad-deploy", "s-b", DEPLOY.id, GEN, BAD)
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.DigestMismatch",
        {"tool": DEPLOY.id},
        set="B",
        grants=["lookup", "bad-deploy", "stale-note"],
    )
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.StaleGeneration",
        {"grant": 1, "catalog": GEN},
        set="B",
        grants=["fmt", "stale-note", "bad-deploy"],
    )
    # Trust of grant 1 is checked before grant 2's activate validation.
    forge(v, "dyn", "s-b", DYN.id, GEN, DYN.digest)
    v.fail(
        "activate_many",
        "BulkActivationError.UntrustedSource",
        {"tool": DYN.id},
        set="B",
        grants=["dyn", "stale-note"],
    )
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.StaleGeneration",
        {"grant": 1, "catalog": GEN},
        set="B",
        grants=["stale-note", "dyn"],
    )
    # The activate validation of a grant comes before its own trust check.
    forge(v, "dyn-bad", "s-b", DYN.id, GEN, BAD)
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.DigestMismatch",
        {"tool": DYN.id},
        set="B",
        grants=["dyn-bad"],
    )
    forge(v, "dyn-stale", "s-b", DYN.id, 2, DYN.digest)
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.StaleGeneration",
        {"grant": 2, "catalog": GEN},
        set="B",
        grants=["dyn-stale"],
    )
    _untouched(v)
    return v


def _duplicates() -> Vector:
    v = _base(
        "duplicate-requests",
        "A tool id seen earlier in the batch is a DuplicateRequest, checked before that grant's "
        "own validation; a failure of an earlier grant still wins.",
        ("check-order", "hostile", "no-partial-mutation"),
    )
    v.fail(
        "activate_many",
        "BulkActivationError.DuplicateRequest",
        {"tool": LOOKUP.id},
        set="B",
        grants=["lookup", "note", "lookup"],
    )
    issue(v, "lookup-2", "s-b", LOOKUP, GEN)
    v.fail(
        "activate_many",
        "BulkActivationError.DuplicateRequest",
        {"tool": LOOKUP.id},
        set="B",
        grants=["lookup", "lookup-2"],
    )
    # The second grant for the tool is invalid in every way; duplicate is checked first.
    forge(v, "lookup-foreign", "s-other", LOOKUP.id, 0, BAD)
    v.fail(
        "activate_many",
        "BulkActivationError.DuplicateRequest",
        {"tool": LOOKUP.id},
        set="B",
        grants=["lookup", "lookup-foreign"],
    )
    # The first grant for the tool fails first.
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.SessionMismatch",
        set="B",
        grants=["lookup-foreign", "lookup"],
    )
    forge(v, "bad-note", "s-b", NOTE.id, GEN, BAD)
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.DigestMismatch",
        {"tool": NOTE.id},
        set="B",
        grants=["bad-note", "lookup", "lookup"],
    )
    v.fail(
        "activate_many",
        "BulkActivationError.DuplicateRequest",
        {"tool": LOOKUP.id},
        set="B",
        grants=["lookup", "lookup", "bad-note"],
    )
    _untouched(v)
    return v


def _source_trust() -> Vector:
    v = Vector(
        f"{G}/source-trust",
        "Source trust table (first matching row wins): Unverified provenance → untrusted; "
        "Unknown source → untrusted; matching pairs → trusted; anything else → provenance "
        "mismatch.",
        ("batch", "source-trust"),
    )
    recs = [
        # (record, expected code or None when trusted)
        (Rec(src_builtin("shady"), P_UNVERIFIED), "BulkActivationError.UntrustedSource"),
        (Rec(src_unknown("ghost"), P_BUILTIN), "BulkActivationError.UntrustedSource"),
        (Rec(src_unknown("ghost2"), P_UNVERIFIED), "BulkActivationError.UntrustedSource"),
        (Rec(src_unknown("ghost3"), p_mcp("s")), "BulkActivationError.UntrustedSource"),
        (Rec(src_mcp("s", "t"), p_mcp("other")), "BulkActivationError.SourceProvenanceMismatch"),
        (Rec(src_ext("e", "t"), p_plugin("e")), "BulkActivationError.SourceProvenanceMismatch"),
        (Rec(src_builtin("b"), p_mcp("s")), "BulkActivationError.SourceProvenanceMismatch"),
        (Rec(src_mcp("s", "u"), P_BUILTIN), "BulkActivationError.SourceProvenanceMismatch"),
        (Rec(src_ext("e", "u"), p_ext("e")), None),
        (Rec(src_mcp("s", "v"), p_mcp("s")), None),
        (Rec(src_builtin("ok"), P_BUILTIN), None),
        (FMT, None),
    ]
    for generation, (rec, _) in enumerate(recs, 1):
        insert(v, rec, generation)
    gen = len(recs)
    v.ok("set_new", name="T", session="s-t", core=[])
    trusted: list[Rec] = []
    for index, (rec, code) in enumerate(recs):
        forge(v, f"g{index}", "s-t", rec.id, gen, rec.digest)
        if code is None:
            trusted.append(rec)
        else:
            v.fail("activate_many", code, {"tool": rec.id}, set="T", grants=[f"g{index}"])
    snapshot(v, "T", "s-t", gen, 0, [], [])
    names = [f"g{i}" for i, (_, code) in enumerate(recs) if code is None]
    v.ok("activate_many", {"applied": len(names)}, set="T", grants=names)
    ordered = sorted(trusted, key=lambda r: r.id.encode())
    snapshot(v, "T", "s-t", gen, 1, [], [(r, gen) for r in ordered])
    return v


def _forged_and_foreign() -> Vector:
    v = _base(
        "forged-and-foreign-grants",
        "Grants forged with the right shape but a foreign session, a guessed digest or a future "
        "generation never activate anything.",
        ("hostile", "no-partial-mutation"),
    )
    forge(v, "foreign", "s-b ", LOOKUP.id, GEN, LOOKUP.digest)
    forge(v, "upper", "S-B", LOOKUP.id, GEN, LOOKUP.digest)
    forge(v, "guess", "s-b", LOOKUP.id, GEN, LOOKUP.digest.upper())
    forge(v, "short", "s-b", LOOKUP.id, GEN, LOOKUP.digest[:63])
    forge(v, "max", "s-b", LOOKUP.id, 2**64 - 1, LOOKUP.digest)
    v.fail(
        "activate_many", "BulkActivationError.Grant.SessionMismatch", set="B", grants=["foreign"]
    )
    v.fail("activate_many", "BulkActivationError.Grant.SessionMismatch", set="B", grants=["upper"])
    for name in ["guess", "short"]:
        v.fail(
            "activate_many",
            "BulkActivationError.Grant.DigestMismatch",
            {"tool": LOOKUP.id},
            set="B",
            grants=[name],
        )
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.StaleGeneration",
        {"grant": 2**64 - 1, "catalog": GEN},
        set="B",
        grants=["max"],
    )
    v.fail("activate", "ActivationError.SessionMismatch", set="B", grant="foreign")
    _untouched(v)
    return v


def _forged_provenance_batch() -> Vector:
    v = _base(
        "provenance-mismatch-batch",
        "A provenance-mismatched record in a batch rejects the whole batch.",
        ("source-trust", "atomic-batches"),
    )
    forge(v, "forged", "s-b", FORGED.id, GEN, FORGED.digest)
    v.fail(
        "activate_many",
        "BulkActivationError.SourceProvenanceMismatch",
        {"tool": FORGED.id},
        set="B",
        grants=["lookup", "note", "forged", "fmt"],
    )
    _untouched(v)
    return v


def vectors() -> list[Vector]:
    return [
        _atomic_success(),
        _grant_errors(),
        _first_failure_decides(),
        _duplicates(),
        _source_trust(),
        _forged_and_foreign(),
        _forged_provenance_batch(),
    ]
