"""The SPEC.md traceability table: fresh, complete over what the code declares, and it lists a
section nothing guards."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from session_toolset_model.ops import OPS
from session_toolset_proofs.hazards import HAZARDS
from session_toolset_proofs.obligations import OBLIGATIONS
from session_toolset_proofs.traceability import (
    OBSERVATIONS,
    SPEC_OPERATIONS,
    build,
    main,
    markdown,
    spec_sections,
)

REPO = Path(__file__).resolve().parents[2]
SPEC = (REPO / "docs" / "spec" / "SPEC.md").read_text(encoding="utf-8")
DOC = REPO / "docs" / "traceability.md"


def test_the_committed_table_is_fresh() -> None:
    """Regenerate with ``python -m session_toolset_proofs.traceability --out
    docs/traceability.md`` after adding obligations, mutants, hazards, vectors or tests."""
    assert DOC.read_text(encoding="utf-8") == markdown(build(REPO))


def test_check_mode_reports_staleness(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "t.md"
    stale.write_text("old\n")
    assert main(["--root", str(REPO), "--out", str(stale), "--check"]) == 1
    assert "stale" in capsys.readouterr().err
    assert main(["--root", str(REPO), "--out", str(stale)]) == 0
    assert main(["--root", str(REPO), "--out", str(stale), "--check"]) == 0
    assert main(["--root", str(tmp_path)]) == 2


def test_sections_and_invariants_come_from_spec_md() -> None:
    keys = [s.key for s in spec_sections(SPEC)]
    assert keys[:6] == ["1", "1.1", "1.2", "1.3", "1.4", "1.5"]
    assert [k for k in keys if k.startswith("6.")] == [
        "6.no-partial-mutation",
        "6.zero-inheritance",
        "6.drift-denial",
        "6.atomic-batches",
        "6.counters",
    ]


def test_every_obligation_and_hazard_lands_in_a_row() -> None:
    t = build(REPO)
    placed = {n for r in t.rows.values() for n in r.obligations}
    assert placed == {ob.name for ob in OBLIGATIONS}
    assert sorted(h for r in t.rows.values() for h in r.hazards) == sorted(h.name for h in HAZARDS)
    assert t.unknown_keys == []


def _section(key: str) -> str:
    level = "##" if "." not in key else "###"
    m = re.search(rf"^{level} {re.escape(key)}[. ]", SPEC, re.M)
    assert m is not None
    rest = SPEC[m.end() :]
    stop = re.search(r"^#{2,3} ", rest, re.M)
    return rest if stop is None else rest[: stop.start()]


def test_spec_operation_vocabulary_matches_spec_protocol_and_model() -> None:
    for section, name, _, _ in SPEC_OPERATIONS:
        assert name in _section(section), (section, name)
    model = [op for _, _, ops, _ in SPEC_OPERATIONS for op in ops]
    assert sorted(model) == sorted(OPS)
    protocol = (REPO / "docs" / "spec" / "PROTOCOL.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z_]+)`(?: / `([a-z_]+)`)?", protocol, re.M)
    named = {n for pair in rows for n in pair if n}
    listed = {op for *_, ops in SPEC_OPERATIONS for op in ops}
    assert named - listed == set(OBSERVATIONS)


def _fake_root(tmp: Path, spec: str) -> Path:
    (tmp / "docs" / "spec").mkdir(parents=True)
    (tmp / "docs" / "spec" / "SPEC.md").write_text(spec, encoding="utf-8")
    (tmp / "tests").mkdir()
    (tmp / "tests" / "test_x.py").write_text(
        "import pytest\n\npytestmark = [pytest.mark.spec('1.1', '6'), pytest.mark.slow]\n\n\n"
        "def test_a() -> None:\n    pass\n",
        encoding="utf-8",
    )
    vectors = tmp / "src" / "session_toolset_harness" / "vectors" / "g"
    vectors.mkdir(parents=True)
    doc = {"id": "g/v", "tags": ["counters"], "steps": [{"send": {"op": "catalog_insert"}}]}
    (vectors / "v.json").write_text(json.dumps(doc), encoding="utf-8")
    return tmp


def test_a_section_nothing_guards_is_listed(tmp_path: Path) -> None:
    spec = SPEC.replace("## 2. Catalog", "### 1.6 Something new\nA rule.\n\n## 2. Catalog")
    t = build(_fake_root(tmp_path, spec))
    text = markdown(t)
    unguarded = text.split("## Sections nothing guards", 1)[1].split("\n\n", 2)[1]
    assert "- §1.6 Something new" in unguarded
    assert "- §1.1 ToolId" not in unguarded  # the marked test guards it
    assert t.rows["1.1"].tests == {"tests/test_x.py": 1}
    assert t.rows["6.counters"].tests == {"tests/test_x.py": 1}  # "6" = every invariant
    assert sum(t.rows["6.counters"].targeting.values()) == 1  # by its tag
    assert sum(t.rows["2"].targeting.values()) == 1  # by its last op
