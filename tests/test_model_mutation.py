"""``tools/mutation/model.py``: how the model's equivalent mutants are argued and scored.

An entry of ``model_equivalent.json`` argues about one exact change (the lines the mutant's diff
removes and adds); it leaves the denominator only for a mutant that survived with exactly that
diff.  These checks need no mutmut and no mutation run: the full check of the entries against
the generated mutants runs before every sample (a stale entry stops the run).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "mutation" / "model.py"

REVIEWED_RULES = {
    "BOUND_NAME",
    "COVERAGE_RECORDER",
    "HARNESS_QUERY",
    "NO_EMPTY_CALL",
    "SAME_TERM",
    "UNREAD_MESSAGE",
}


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    sys.path.insert(0, str(TOOL.parent))
    spec = importlib.util.spec_from_file_location("mutation_model", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _diff(removed: str, added: str) -> str:
    return f"--- a\n+++ b\n@@ -1,1 +1,1 @@\n-    {removed}\n+    {added}"


def test_every_entry_names_a_reviewed_rule_and_the_line_it_argues_about(tool: ModuleType) -> None:
    entries = tool.base.load_equivalent_entries(tool.EQUIVALENT)
    assert entries
    assert tool.base.entry_list_problems(entries) == []
    for entry in entries:
        assert entry["rule"] in REVIEWED_RULES, entry["mutant"]
        path, _, line = entry["where"].rpartition(":")
        source = (ROOT / path).read_text(encoding="utf-8").splitlines()
        assert source[int(line) - 1].strip() == entry["removed"][0], entry["mutant"]


def test_an_entry_applies_only_to_a_survivor_with_exactly_its_change(tool: ModuleType) -> None:
    entry = {
        "mutant": "m.x_f__mutmut_1",
        "where": "model/m.py:1",
        "rule": "SAME_TERM",
        "removed": ["a = 1"],
        "added": ["a = 2"],
        "reason": "same",
    }
    listed = {entry["mutant"]: entry}
    report: dict[str, dict[str, Any]] = {
        "m.x_f__mutmut_1": {"diff": _diff("a = 1", "a = 2")},
        "m.x_f__mutmut_2": {"diff": _diff("a = 1", "a = 2")},  # not listed
    }
    assert tool.equivalent_in(report, listed) == {"m.x_f__mutmut_1"}
    report["m.x_f__mutmut_1"]["diff"] = _diff("a = 1", "a = 3")  # the code moved under it
    assert tool.equivalent_in(report, listed) == set()

    verdicts = {"a": "killed", "b": "killed", "c": "survived", "d": "survived", "e": "timeout"}
    scored = tool.score(verdicts, {"c", "a"})  # a kill is never taken out of the denominator
    assert scored["scored"] == 4 and scored["equivalent"] == ["c"]
    assert scored["non_equivalent"] == 3 and scored["percent_non_equivalent"] == 66.7


def test_a_list_arguing_one_mutant_twice_is_refused(tool: ModuleType, tmp_path: Path) -> None:
    entry = {"mutant": "m", "where": "w:1", "rule": "SAME_TERM", "removed": [], "added": []}
    listed = tmp_path / "model_equivalent.json"
    listed.write_text(json.dumps([{**entry, "reason": "r"}] * 2), encoding="utf-8")
    with pytest.raises(SystemExit, match="2 entries"):
        tool.load_equivalent(listed)


def test_the_committed_samples_are_scored_as_their_verdicts_say(tool: ModuleType) -> None:
    for path in sorted(TOOL.parent.glob("model_sample_seed*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        verdicts = {n: e["prove"]["verdict"] for n, e in data["mutants"].items()}
        same = set(data["prove"]["equivalent"]) if "equivalent" in data["prove"] else None
        again = tool.score(verdicts, same)
        assert again == data["prove"], path.name
