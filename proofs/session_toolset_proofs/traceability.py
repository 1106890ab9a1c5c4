"""SPEC.md traceability: for every section (and section 6 invariant), what would fail if it
changed - obligations, mutants, reachability checks, hazards, vectors and tests.

Nothing here is a hand-kept list of who guards what; every row is derived from what the code
declares:

- obligations: an `Obligation`'s ``op`` names a model transition, whose module states its
  SPEC.md section in its first docstring line (``SPEC.md section 3: ...``), and its
  ``invariant`` names a section 6 bullet; mutants come from each obligation's ``refuted_by``
  and profiles from `EXPECTED_PROFILE_REFUTATIONS`; reachability rows from the op table;
- hazards: their ``section`` field (`hazards`);
- vectors: every vector file of the packaged corpus, by the PROTOCOL.md ops its steps send
  (model ops by their transition's section, the few others by `OTHER_OPS`) and by its tags
  (``obligation:``, ``spec:``, and section 6 invariant names such as ``drift-denial``);
- tests: the ``spec(...)`` marker a test module declares (``pytestmark =
  pytest.mark.spec("3", "6.counters")``; ``"6"`` means every section 6 invariant, ``"all"``
  every key), read with `ast`.

``python -m session_toolset_proofs.traceability --out docs/traceability.md`` writes the table;
``--check`` exits 1 when the file is stale (as does ``tests/proofs/test_traceability.py``).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from session_toolset_model.ops import OPS, outcomes_for
from session_toolset_model.profiles import DEFAULT, MUTANTS

from .hazards import HAZARDS
from .obligations import EXPECTED_PROFILE_REFUTATIONS, OBLIGATIONS

OTHER_OPS = {
    "tool_id_parse": "1.1",
    "tool_id": "1.1",
    "session_id_parse": "1.2",
    "catalog_set_generation": "1.3",
    "digest": "1.4",
    "forge_grant": "1.5",
    "carry_forward_enabled": "3",
    "resolve": "4",
    "authorize_wire": "4",
}
"""PROTOCOL.md ops that are not model transitions, by the SPEC.md section they expose."""

OBSERVATIONS = frozenset({"hello", "reset", "snapshot", "catalog_state", "factory_calls"})
"""Ops that only observe: a vector does not *target* a section through them."""

MODEL_ONLY = "model: inductive invariant"

SPEC_OPERATIONS: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("1.1", "ToolId.parse", (), ("tool_id_parse",)),
    ("1.1", "builtin(name)", (), ("tool_id",)),
    ("1.2", "SessionId.parse", (), ("session_id_parse",)),
    ("1.3", "checked_next()", (), ("catalog_set_generation",)),
    ("1.4", "SchemaDigest", (), ("digest",)),
    ("1.5", "covers(s, t, g, d)", (), ("forge_grant",)),
    ("2", "insert(record)", ("catalog_insert",), ("catalog_insert",)),
    ("2", "upsert(replaced, record)", ("catalog_upsert",), ("catalog_upsert",)),
    ("2", "remove(id)", ("catalog_remove",), ("catalog_remove",)),
    ("2", "rebase_past(prior)", ("catalog_rebase_past",), ("catalog_rebase_past",)),
    ("3", "new(session, core_ids, catalog)", ("set_new",), ("set_new",)),
    (
        "3",
        "default_core_for_catalog(session, catalog)",
        ("set_default_core",),
        ("set_default_core",),
    ),
    (
        "3",
        "progressive_core_for_catalog(session, catalog)",
        ("set_progressive_core",),
        ("set_progressive_core",),
    ),
    ("3", "is_stale(catalog)", ("is_stale",), ("is_stale",)),
    ("3", "activate(grant, catalog)", ("activate",), ("activate",)),
    ("3", "activate_many(grants, catalog)", ("activate_many",), ("activate_many",)),
    ("3", "revoke_exact(id)", ("revoke",), ("revoke",)),
    ("3", "rebuilt_for_catalog(catalog, progressive)", ("rebuild",), ("rebuild",)),
    ("3", "carry_forward_enabled()", (), ("carry_forward_enabled",)),
    ("4", "ExecutionGate.authorize(catalog, set, resolved)", ("authorize",), ("authorize",)),
    ("4", "resolve(registry, wire_name)", (), ("resolve",)),
    ("4", "authorize_wire_call", (), ("authorize_wire",)),
    ("5", "issue_exact_grant(catalog, session, id)", ("issue_grant",), ("issue_grant",)),
    ("5", "activate_exact_for_user(set, catalog, id)", ("activate_user",), ("activate_user",)),
    (
        "5",
        "activate_model_initiated(authority, set, catalog, ids)",
        ("activate_model",),
        ("activate_model",),
    ),
    ("5", "route_session_set(retained, catalog, fallback_session)", ("route",), ("route",)),
    ("5", "SharedSessionToolSet", (), ()),
)
"""SPEC.md's named operations (as written there, in backticks), the model transitions that
state them and the PROTOCOL.md ops that expose them.  This is vocabulary, not a claim of who
guards what: the guards are derived (`build`).  ``tests/proofs/test_traceability.py`` checks
that every name is in its section, every model op is listed once and every PROTOCOL.md op is
listed or an observation."""


@dataclass(frozen=True)
class Section:
    key: str
    title: str


def spec_sections(spec_text: str) -> list[Section]:
    """Headings ``## N.`` / ``### N.M`` and the section 6 bullets ``- **Name**:``."""
    out = []
    in_six = False
    for line in spec_text.splitlines():
        m = re.match(r"^(#{2,3}) (\d+(?:\.\d+)?)\.? (.+)$", line)
        if m:
            out.append(Section(m.group(2), m.group(3).strip()))
            in_six = m.group(2) == "6"
            continue
        b = re.match(r"^- \*\*(.+?)\*\*:", line)
        if in_six and b:
            out.append(Section(f"6.{slug(b.group(1))}", b.group(1)))
    return out


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def op_section(op: str) -> str | None:
    """The SPEC.md section of a PROTOCOL.md / model op (None for observations)."""
    if op in OPS:
        doc = import_module(OPS[op].fn.__module__).__doc__ or ""
        m = re.match(r"SPEC\.md section (\d+(?:\.\d+)?)", doc)
        return m.group(1) if m else None
    return OTHER_OPS.get(op)


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
    for path in sorted(root.rglob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and "steps" in doc:
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
        elif ob.invariant == "inductive invariant":
            mine.add(MODEL_ONLY)
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


def _groups(c: Counter[str]) -> str:
    return ", ".join(f"{g} {n}" for g, n in sorted(c.items())) or "-"


def _families(names: list[str]) -> str:
    """Obligation names grouped by family (``no_partial_mutation.*`` ...), compactly."""
    fams: dict[str, list[str]] = {}
    for n in names:
        head, _, tail = n.rpartition(".")
        fams.setdefault(head or n, []).append(tail if head else "")
    parts = []
    for head, tails in fams.items():
        tails = [t for t in tails if t]
        parts.append(f"`{head}`" + (f" ({', '.join(tails)})" if tails else ""))
    return "; ".join(parts) or "-"


def _rows(t: Table) -> list[Section]:
    """Every section with content of its own (not the headings of 1 and 6), then the model's
    own lemma."""
    return [s for s in t.sections if s.key not in ("1", "6")] + [
        Section(MODEL_ONLY, "the proofs' own lemma")
    ]


def _label(s: Section) -> str:
    if s.key == MODEL_ONLY:
        return s.key
    if s.key.startswith("6."):
        return f"§6 {s.title}"
    return f"§{s.key} {s.title}"


def markdown(t: Table) -> str:
    cmd = "python -m session_toolset_proofs.traceability --out docs/traceability.md"
    out = [
        "# SPEC.md traceability: what fails if a part of SPEC.md changes",
        "",
        f"Generated by `{cmd}`",
        "from what the code declares (see the module docstring of",
        "`proofs/session_toolset_proofs/traceability.py`); `tests/proofs/test_traceability.py`",
        "fails while this file is stale. *Targeting* vectors end in an op of the section or",
        "carry a tag naming it (an obligation's section or invariant, `spec:`, an invariant",
        "name); *exercising* vectors send any op of the section. Tests are counted as the test",
        "modules whose `spec(...)` marker names the section (modules, not functions, so",
        "adding a test to a module leaves this table as it is).",
        "",
        "| SPEC.md | obligations | mutants | profiles | reach checks | hazards | vectors "
        "targeting / exercising | test modules |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in _rows(t):
        r = t.rows[s.key]
        exercising: int | str = r.exercising if s.key[0] != "6" and s.key != MODEL_ONLY else "-"
        out.append(
            f"| {_label(s)} | {len(r.obligations)} | {len(r.mutants)} | {len(r.profiles)} | "
            f"{r.reach} | {len(r.hazards)} | {sum(r.targeting.values())} / {exercising} | "
            f"{len(r.tests)} |"
        )
    unguarded = [s for s in t.sections if s.key not in ("1", "6") and not t.rows[s.key].guarded]
    out += ["", "## Sections nothing guards", ""]
    out += [f"- {_label(s)}" for s in unguarded] or ["- none: every section has a guard"]
    no_proof = [s for s in t.sections if s.key not in ("1", "6") and not t.rows[s.key].obligations]
    out += [
        "",
        "Sections without a proof obligation (outside the model; guarded by vectors and tests "
        "only):",
        "",
        *[f"- {_label(s)}" for s in no_proof],
        "",
        "## By SPEC.md operation",
        "",
        "| SPEC.md operation | § | model op | obligations | mutants | reach outcomes | "
        "vectors targeting / sending |",
        "|---|---|---|---|---|---|---|",
    ]
    for section, name, model_ops, _ in SPEC_OPERATIONS:
        r = t.spec_ops[name]
        model = ", ".join(f"`{o}`" for o in model_ops) or "- (not modelled)"
        out.append(
            f"| `{name}` | {section} | {model} | {len(r.obligations)} | {len(r.mutants)} | "
            f"{r.reach} | {sum(r.targeting.values())} / {r.exercising} |"
        )
    bare = [n for _, n, _, _ in SPEC_OPERATIONS if not t.spec_ops[n].guarded]
    out += [
        "",
        "Operations that no obligation covers and no vector targets (sent at most in passing; "
        "only their section's tests guard them): " + (", ".join(f"`{n}`" for n in bare) or "none"),
    ]
    out += ["", "## Details", ""]
    for s in _rows(t):
        r = t.rows[s.key]
        out += [f"### {_label(s)}", ""]
        out.append(f"- obligations: {_families(r.obligations)}")
        out.append(f"- mutants: {', '.join(f'`{m}`' for m in sorted(r.mutants)) or '-'}")
        if r.profiles:
            out.append(f"- profiles refuting: {', '.join(sorted(r.profiles))}")
        out.append(f"- hazards: {', '.join(f'`{h}`' for h in r.hazards) or '-'}")
        out.append(f"- vectors targeting, by group: {_groups(r.targeting)}")
        modules = ", ".join(f"`{m}`" for m in sorted(r.tests)) or "-"
        out.append(f"- tests: {modules}")
        out.append("")
    out += ["## Not tied to a SPEC.md section", ""]
    out.append(
        "Test modules without a `spec` marker (PROTOCOL.md, the harness, tooling): "
        + ", ".join(f"`{m}`" for m in t.unmarked)
    )
    if t.unused_mutants:
        out.append("")
        out.append("Mutants no obligation names: " + ", ".join(f"`{m}`" for m in t.unused_mutants))
    if t.unknown_keys:
        out.append("")
        out.append("Declared keys that are not SPEC.md sections: " + ", ".join(t.unknown_keys))
    return "\n".join(out) + "\n"


def find_root(start: Path) -> Path | None:
    for p in [start, *start.parents]:
        if (p / "docs" / "spec" / "SPEC.md").is_file() and (p / "tests").is_dir():
            return p
    return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m session_toolset_proofs.traceability",
        description="Generate the SPEC.md traceability table (docs/traceability.md).",
    )
    p.add_argument("--root", type=Path, help="repository root (default: found from the cwd)")
    p.add_argument("--out", type=Path, help="write the table here (default: stdout)")
    p.add_argument(
        "--check", action="store_true", help="exit 1 if --out differs from a fresh table"
    )
    args = p.parse_args(argv)
    root = args.root or find_root(Path.cwd())
    if root is None or not (root / "docs" / "spec" / "SPEC.md").is_file():
        print(
            "traceability: no repository root with docs/spec/SPEC.md (use --root)", file=sys.stderr
        )
        return 2
    text = markdown(build(root))
    if args.check:
        if args.out is None:
            print("traceability: --check needs --out", file=sys.stderr)
            return 2
        current = args.out.read_text(encoding="utf-8") if args.out.is_file() else ""
        if current != text:
            print(f"traceability: {args.out} is stale; regenerate it with --out", file=sys.stderr)
            return 1
        return 0
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.write_text(text, encoding="utf-8")
    except OSError as err:
        print(f"traceability: cannot write {args.out}: {err.strerror}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
