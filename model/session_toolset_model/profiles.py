"""Variants of the one definition: gate drift-rule profiles and mutants.

A `Variant` is a Python-level parameter of every transition.  Profiles are alternative rules a
spec author may want to compare; mutants are deliberate single-rule breakages used to show that
every proof obligation can fail (non-vacuity).  Each mutant is a small branch inside the
definition, never a second copy of it.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PROFILE = "per-tool-pinned"

PROFILES: dict[str, str] = {
    "per-tool-pinned": "SPEC.md: per-tool digest and provenance pins, trust checked",
    "per-tool-digest": "per-tool digest check only: no provenance pin (SPEC.md step 3 skipped)",
    "generation-strict": "any catalog generation drift denies every call until the set is rebuilt",
}

MUTANTS: dict[str, str] = {
    "insert_dup_overwrites": "catalog insert overwrites the record, then reports DuplicateToolId",
    "upsert_drops_before_check": "upsert drops `replaced` even when it then fails DuplicateToolId",
    "remove_before_generation_check": "remove drops the record even when the generation is spent",
    "rebase_overflow_sticks": "rebase_past sets the generation to MAX when it overflows",
    "rebase_uses_prior": "rebase_past uses prior+1, ignoring the current generation",
    "unchecked_generation": "checked_next never fails: the generation passes 2^64-1",
    "generation_wraps": "checked_next wraps to 0 at 2^64-1",
    "catalog_absorbs_staleness": "catalog mutations refresh every set's catalog_generation",
    "set_new_partial": "new() stores the set before reporting UnknownCoreTool",
    "fresh_set_inherits": "a fresh set keeps the activations of the set it replaces",
    "one_set_per_session": "storing a fresh set drops every other set of the same session",
    "activate_resets_schemagen": "activation sets schema_generation to 1 instead of advancing it",
    "rebuild_resets_schemagen": "a carry-forward rebuild restarts schema_generation at 0",
    "stale_off_by_one": "is_stale ignores a drift of exactly one generation",
    "is_stale_absorbs": "is_stale refreshes the set's catalog_generation",
    "no_session_check": "activate skips the SessionMismatch check",
    "activate_skips_generation": "activate skips StaleGeneration and StaleSnapshot",
    "core_activation_overlap": "activate skips the AlreadyCore check",
    "activate_bumps_before_validate": "activate advances schema_generation before validating",
    "activation_by_session": "activation writes to every set of the same session",
    "batch_partial": "a rejected batch keeps the grants before the failing one",
    "batch_bumps_before_validate": "activate_many advances schema_generation even when rejected",
    "schema_gen_per_grant": "activate_many advances schema_generation once per grant",
    "revoke_bumps_on_reject": "revoke advances schema_generation even when rejected",
    "revoke_decrements": "revoke decrements schema_generation",
    "rebuild_ignores_provenance": "rebuild carries activations whose provenance drifted",
    "rebuild_wrong_reason": "rebuild reports a removed record as drifted",
    "rebuild_touches_source": "rebuild into another name also bumps the old set",
    "gate_ignores_digest": "the gate skips the schema digest comparison",
    "gate_ignores_trust": "the gate skips the source trust check (step 4)",
    "gate_checks_grant_generation": "the gate's grant cover also compares the generation",
    "gate_factory_on_denial": "the gate calls the factory before its checks",
    "gate_absorbs_staleness": "a successful call refreshes the set's catalog_generation",
    "issue_grant_calls_factory": "grant issuance calls the record's factory",
    "unauthorized_model_activates": "model-initiated activation ignores the authority value",
    "model_issuance_partial": "model-initiated activation applies grants issued before a failure",
    "reset_rewinds_generation": "reset rewinds the catalog generation below 0 (an unchecked 0 - 1)",
    # single-rule bugs each refuted by a named obligation (tests/proofs/test_named_bugs.py)
    "upsert_identical_no_advance": "an upsert storing an identical record returns ok, no advance",
    "rebase_to_prior": "rebase_past(prior) with prior above the current value sets it to prior",
    "revoke_keeps_schemagen": "revoke_exact does not advance schema_generation",
    "activate_keeps_schemagen": "activate does not advance schema_generation",
    "already_activated_session_wide": "AlreadyActivated also looks at other sets of the session",
    "checked_next_early": "checked_next fails at 2^64-2, one value early",
    "z3_first_index_strict": "Z3 side definition of first_index says k < n instead of k <= n",
    "z3_first_occ_any": "Z3 side definition of seq_first_index picks any occurrence, not the first",
    # further realistic single-rule bugs of the same kind
    "remove_absent_advances": "remove of an absent tool advances the generation",
    "batch_replaces_activations": "a successful batch replaces the set's activations by the batch",
    "revoke_core_session_wide": "revoke_exact reports CoreTool when any set of the session has "
    "the tool in its core",
    "revoke_checks_activation_first": "revoke_exact checks NotActivated before CoreTool",
    "route_fresh_when_retained": "route builds a fresh default set even when a set is retained",
    "default_core_includes_unverified": "default_core_for_catalog also pins Unverified records",
    # refuted only by the batch outcome obligations (`postcondition.activate_many` and `_model`)
    "bulk_already_activated_session_wide": "in batches of at least two, AlreadyActivated also "
    "looks at other sets of the session",
}


@dataclass(frozen=True)
class Variant:
    """Which profile the gate follows and which mutant (if any) is switched on."""

    profile: str = DEFAULT_PROFILE
    mutant: str | None = None

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile}")
        if self.mutant is not None and self.mutant not in MUTANTS:
            raise ValueError(f"unknown mutant {self.mutant}")

    def has(self, mutant: str) -> bool:
        return self.mutant == mutant


DEFAULT = Variant()
