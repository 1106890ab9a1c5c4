"""The functional specification (`session_toolset_proofs.functional`): its declarative modules
import nothing from the model's transitions, the model equals it for every transition, its case
splits cover every pre-state, and each bug kind only a functional statement catches is refuted
by the named `functional.*` obligation."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import z3  # type: ignore[import-untyped]
from session_toolset_model.ops import OPS
from session_toolset_model.profiles import DEFAULT
from session_toolset_proofs import functional
from session_toolset_proofs.functional import SPECS, SPLITS
from session_toolset_proofs.functional import obligation as fo
from session_toolset_proofs.functional.common import BOUND
from session_toolset_proofs.mutants import MUTANTS
from session_toolset_proofs.obligations import OBLIGATIONS
from session_toolset_proofs.report import run
from session_toolset_proofs.solve import _solver, check
from session_toolset_proofs.steps import step

pytestmark = pytest.mark.spec("2", "3", "4", "5")

BY_NAME = {ob.name: ob for ob in OBLIGATIONS}
PACKAGE = Path(functional.__file__).parent

ALLOWED_MODULES = {"__future__", "collections.abc", "contextvars", "dataclasses", "typing", "z3"}
"""Modules a declarative clause may import (besides its own package's declarative modules)."""

Z3_INTERP_NAMES = {
    *("Tool", "Session", "Digest", "Prov", "SetName", "IntS"),
    *("RecOpt", "PinOpt", "ActOpt", "SetOpt", "GrantS"),
    *("OUTCOME", "TRUST", "REASON", "UNVERIFIED", "PROGRESSIVE", "fresh"),
}
"""What a clause may read from the Z3 interpretation: sorts, record datatypes, the outcome,
trust and drop-reason constants, the two uninterpreted predicates SPEC.md's lists are, and
fresh names.  Not `Z3Algebra` (the interpretation of the transitions' operations), nor anything
of the transition modules (`catalog`, `sets`, `gate`, `host`, `ops`, `algebra`, `state`...)."""


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = []
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                named = [node.module] if node.module else [a.name for a in node.names]
                bad += [f"from .{m}" for m in named if m not in functional.DECLARATIVE]
                continue
            if node.module == "session_toolset_model" and [a.name for a in node.names] == [
                "z3_interp"
            ]:
                aliases.add(node.names[0].asname or "z3_interp")
            elif node.module not in ALLOWED_MODULES:
                bad.append(f"from {node.module}")
        elif isinstance(node, ast.Import):
            bad += [f"import {a.name}" for a in node.names if a.name not in ALLOWED_MODULES]
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr not in Z3_INTERP_NAMES
        ):
            bad.append(f"{node.value.id}.{node.attr}")
    return bad


@pytest.mark.parametrize("module", functional.DECLARATIVE)
def test_declarative_modules_import_nothing_of_the_model_transitions(module: str) -> None:
    assert _violations(PACKAGE / f"{module}.py") == []


def test_the_import_check_catches_a_model_helper(tmp_path: Path) -> None:
    """The check itself fails on what it forbids."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from session_toolset_model.algebra import seq_contains\n"
        "from session_toolset_model import z3_interp as zi\n"
        "from . import obligation\n"
        "x = zi.Z3Algebra\n"
    )
    assert sorted(_violations(probe)) == [
        "from .obligation",
        "from session_toolset_model.algebra",
        "zi.Z3Algebra",
    ]


def test_every_transition_has_a_clause_and_an_obligation() -> None:
    assert set(SPECS) == set(OPS)
    names = {ob.name for ob in OBLIGATIONS if ob.name.startswith("functional.")}
    expected = {f"functional.{n}" for n in OPS if n not in SPLITS}
    expected |= {f"functional.{n}.{c}" for n, cases in SPLITS.items() for c in cases}
    assert names == expected


@pytest.mark.parametrize("opname", sorted(SPLITS))
def test_case_splits_cover_every_pre_state(opname: str) -> None:
    """The cases an operation is proved in are exhaustive: their disjunction is valid under the
    declarative definitions (so the per-case obligations together state the whole function)."""
    s = step(opname, DEFAULT)
    token = BOUND.set(None)
    try:
        e = SPECS[opname](s.pre, s.args)
    finally:
        BOUND.reset(token)
    assert set(e.cases) == set(SPLITS[opname])
    solver = _solver()
    solver.add(*s.premises, *s.alg.defs, *e.defs, z3.Not(z3.Or(*e.cases.values())))
    assert solver.check() == z3.unsat


BUG_KINDS = {
    # the catalog after a successful insert / upsert / remove / rebase_past
    "insert_forgets_record": "functional.catalog_insert",
    "upsert_keeps_replaced": "functional.catalog_upsert",
    "remove_keeps_record": "functional.catalog_remove",
    "rebase_clears_catalog": "functional.catalog_rebase_past",
    # the cores built by set_new, set_progressive_core, route's fallback and rebuild
    "set_new_core_skips_last": "functional.set_new",
    "progressive_core_is_default": "functional.set_progressive_core",
    "route_fallback_progressive": "functional.route",
    "rebuild_core_always_default": "functional.rebuild",
    # rebuild's schema_generation, exactly
    "rebuild_schemagen_always_advances": "functional.rebuild",
    # the gate's basis and denial codes
    "gate_basis_always_core": "functional.authorize",
    "gate_untrusted_as_mismatch": "functional.authorize",
    # issue_grant's grant and error codes
    "issue_grant_next_generation": "functional.issue_grant",
    "issuance_untrusted_as_mismatch": "functional.issue_grant",
    # activate_user's outcome
    "user_issuance_as_bulk": "functional.activate_user",
    # non-interference: a carry-forward rebuild and a route of a retained set read only their
    # source set
    "rebuild_schemagen_from_target": "zero_inheritance.reads_only_its_source.rebuild",
    "route_keeps_target_set": "zero_inheritance.reads_only_its_source.route",
}


@pytest.mark.parametrize(("mutant", "name"), sorted(BUG_KINDS.items()))
def test_bug_kind_is_refuted_by_its_functional_obligation(mutant: str, name: str) -> None:
    assert mutant in MUTANTS and mutant in BY_NAME[name].refuted_by
    assert check(lambda: BY_NAME[name].build(DEFAULT), True).status == "unsat"
    report = run(["per-tool-pinned"], re.compile(f"^{name.replace('.', '[.]')}$"))
    (row,) = [r for r in report.rows if r.check == f"mutant:{mutant}"]
    assert row.result == "refuted" and row.concrete, row


def test_a_slip_in_a_declarative_clause_fails_its_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    """The two formalizations are independent: a clause written wrong (rebase_past advancing
    from ``prior`` alone) is refuted against the model, not silently agreed with."""
    from session_toolset_proofs.functional import catalog

    def wrong(w: object, a: dict[str, object]) -> object:
        e = catalog.rebase_past(w, a)  # type: ignore[arg-type]
        gen = z3.If(e.code == fo.zi.OUTCOME["ok"], a["prior"] + 1, w.gen)  # type: ignore[attr-defined, operator]
        return type(e)(e.code, type(e.post)(e.post.catalog, gen, e.post.calls, e.post.sets))

    monkeypatch.setitem(SPECS, "catalog_rebase_past", wrong)
    build = fo.equal("catalog_rebase_past")
    assert check(lambda: build(DEFAULT), True).status == "sat"
