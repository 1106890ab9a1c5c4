"""Collecting the guards of every SPEC.md section from what the code declares (`build`)."""

from __future__ import annotations

import ast
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from session_toolset_model.ops import OPS, outcomes_for
from session_toolset_model.profiles import DEFAULT

from ..hazards import HAZARDS
from ..mutants import MUTANTS
from ..obligations import EXPECTED_PROFILE_REFUTATIONS, OBLIGATIONS
from .spec import (
    MODEL_ONLY,
    OBSERVATIONS,
    SPEC_OPERATIONS,
    Section,
    op_section,
    slug,
    spec_sections,
)


@dataclass
class Row:
    obligations: list[str] = field(default_factory=list)
    mutants: set[str] = field(default_factory=set)
    profiles: set[str] = field(default_factory=set)
    reach: int = 0
    hazards: list[str] = field(default_factory=list)
    targeting: Counter[str] = field(default_factory=Counter)
    exercising: int = 0
    tests: dict[str, int] = field(default_factory=dict)

    @property
    def guarded(self) -> bool:
        return bool(self.obligations or self.targeting or self.tests or self.reach)


def _vector_files(root: Path) -> Iterable[tuple[str, dict[str, Any]]]:
    """Each vector under ``root`` with the requests it sends: a compact vector (one with
    ``setup``) sends ``hello``, ``reset`` and its setups' steps (the corpus's ``setups.json``)
    before its own."""
    setups_file = root.parent / "corpus" / "setups.json"
    setups = json.loads(setups_file.read_text(encoding="utf-8")) if setups_file.exists() else {}
    for path in sorted(root.rglob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and "steps" in doc:
            if "setup" in doc:
                names = [doc["setup"]] if isinstance(doc["setup"], str) else doc["setup"]
                first = [{"send": {"op": "hello"}}, {"send": {"op": "reset"}}]
                first += [step for name in names for step in setups[name]["steps"]]
                doc = {**doc, "steps": first + doc["steps"]}
            yield path.relative_to(root).parts[0], doc


def _ops(doc: dict[str, Any]) -> list[str]:
    """The op names a vector sends (raw ``send_line``/``send_hex`` steps have none)."""
    out = []
    for s in doc["steps"]:
        send = s.get("send")
        if isinstance(send, dict) and isinstance(send.get("op"), str):
            out.append(send["op"])
    return out


def _vector_keys(
    doc: dict[str, Any], obligation_keys: dict[str, set[str]]
) -> tuple[set[str], set[str]]:
    """(targeted keys, exercised keys) of one vector."""
    ops = _ops(doc)
    acting = [o for o in ops if o not in OBSERVATIONS]
    exercised = {k for o in acting if (k := op_section(o)) is not None}
    targeted: set[str] = set()
    if acting and (k := op_section(acting[-1])) is not None:
        targeted.add(k)
    for tag in doc.get("tags", []):
        kind, _, value = tag.partition(":")
        if kind == "obligation":
            targeted |= obligation_keys.get(value, set())
        elif kind == "spec":
            targeted.add(value)
        elif not value and tag in INVARIANT_TAGS:
            targeted.add(f"6.{tag}")
    return targeted, exercised


INVARIANT_TAGS = frozenset(
    {"no-partial-mutation", "zero-inheritance", "drift-denial", "atomic-batches", "counters"}
)
"""Corpus tags that name a section 6 invariant (the corpus groups' own vocabulary)."""


def _marked_tests(tests: Path, all_keys: list[str]) -> dict[str, tuple[list[str], int]]:
    """Test module (relative path) -> (declared keys, number of test functions)."""
    out = {}
    for path in sorted(tests.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        keys: list[str] = []
        count = 0
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                count += 1
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
            ):
                keys += _spec_args(node.value)
        if "all" in keys:
            keys = list(all_keys)
        if "6" in keys:  # section 6's content is its bullets: "6" means every invariant
            keys = [k for k in keys if k != "6"] + [k for k in all_keys if k.startswith("6.")]
        keys = list(dict.fromkeys(keys))
        out[path.relative_to(tests.parent).as_posix()] = (keys, count)
    return out


def _spec_args(value: ast.expr) -> list[str]:
    calls = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
    keys: list[str] = []
    for call in calls:
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "spec"
        ):
            keys += [
                a.value
                for a in call.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
    return keys


@dataclass
class Table:
    sections: list[Section]
    rows: dict[str, Row]
    ops: dict[str, Row]
    spec_ops: dict[str, Row]
    unknown_keys: list[str]
    """Keys declared by a test, hazard or vector tag that are not SPEC.md sections."""
    unmarked: list[str]
    """Test modules with no ``spec`` marker (PROTOCOL.md, harness and tooling tests)."""
    unused_mutants: list[str]


def build(root: Path) -> Table:
    spec_text = (root / "docs" / "spec" / "SPEC.md").read_text(encoding="utf-8")
    sections = spec_sections(spec_text)
    keys = [s.key for s in sections]
    rows: dict[str, Row] = {k: Row() for k in [*keys, MODEL_ONLY]}
    ops: dict[str, Row] = {o: Row() for o in OPS}
    spec_ops: dict[str, Row] = {name: Row() for _, name, _, _ in SPEC_OPERATIONS}
    unknown: set[str] = set()

    def row(key: str) -> Row | None:
        if key in rows:
            return rows[key]
        unknown.add(key)
        return None

    obligation_keys: dict[str, set[str]] = {}
    for ob in OBLIGATIONS:
        mine = set()
        if ob.op is not None:
            k = op_section(ob.op)
            if k is None:  # the transition's module no longer names its section: say so
                unknown.add(f"op {ob.op} (its module names no SPEC.md section)")
            else:
                mine.add(k)
        inv = f"6.{slug(ob.invariant)}"
        if inv in rows:
            mine.add(inv)
        elif ob.invariant in ("inductive invariant", "Z3 interpretation"):
            mine.add(MODEL_ONLY)  # the proofs' own lemmas: the invariant, the side definitions
        elif ob.invariant == "transition postcondition":
            pass  # a transition's SPEC.md sentence: its op's section (above), no section 6 row
        else:  # an invariant name SPEC.md section 6 does not have: say so, never guess
            unknown.add(f"invariant {ob.invariant!r} of {ob.name}")
        obligation_keys[ob.name] = mine
        profiles = {p for p, names in EXPECTED_PROFILE_REFUTATIONS.items() if ob.name in names}
        targets = [r for k in mine if (r := row(k)) is not None]
        if ob.op is not None:
            targets.append(ops[ob.op])
        for r in targets:
            r.obligations.append(ob.name)
            r.mutants |= set(ob.refuted_by)
            r.profiles |= profiles
    for name, op_def in OPS.items():
        n = len(outcomes_for(op_def, DEFAULT))
        ops[name].reach = n
        if (k := op_section(name)) is not None and (r := row(k)) is not None:
            r.reach += n
    for h in HAZARDS:
        if (r := row(h.section)) is not None:
            r.hazards.append(h.name)
    vectors = root / "src" / "session_toolset_harness" / "vectors"
    for group, doc in _vector_files(vectors):
        targeted, exercised = _vector_keys(doc, obligation_keys)
        for k in targeted:
            if (r := row(k)) is not None:
                r.targeting[group] += 1
        for k in exercised:
            if (r := row(k)) is not None:
                r.exercising += 1
        for sent_op in set(_ops(doc)):
            if sent_op in ops:
                ops[sent_op].exercising += 1
    for group, doc in _vector_files(vectors):
        sent = _ops(doc)
        acting = [o for o in sent if o not in OBSERVATIONS]
        for _, name, _, protocol_ops in SPEC_OPERATIONS:
            if set(protocol_ops) & set(sent):
                spec_ops[name].exercising += 1
            if acting and acting[-1] in protocol_ops:
                spec_ops[name].targeting[group] += 1
    for _, name, model_ops, _ in SPEC_OPERATIONS:
        for op in model_ops:
            r = spec_ops[name]
            r.obligations += ops[op].obligations
            r.mutants |= ops[op].mutants
            r.reach += ops[op].reach
    unmarked = []
    for module, (declared, count) in _marked_tests(root / "tests", keys).items():
        if not declared:
            unmarked.append(module)
        for k in declared:
            if (r := row(k)) is not None:
                r.tests[module] = count
    used = {m for ob in OBLIGATIONS for m in ob.refuted_by}
    return Table(
        sections, rows, ops, spec_ops, sorted(unknown), unmarked, sorted(set(MUTANTS) - used)
    )
