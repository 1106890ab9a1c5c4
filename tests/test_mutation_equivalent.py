"""CI check: ``tools/mutation/equivalent.json`` still describes mutants of the current tree.

Each entry argues that one mutant cannot be told from the original; the argument is about the
exact lines the mutant removes and adds.  When the source moves, mutmut's mutant of that name
changes or disappears and the argument is about code that is not there any more.  This test
generates the mutants (mutmut's generation step only, no test runs: seconds) and fails on any
entry that no longer matches, so a change cannot silently keep a stale justification; the fix is
to re-argue the entry against the new diff, or drop it and let the next mutation run score the
mutant (docs/mutation.md).
"""

from __future__ import annotations

import collections
import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip(
    "mutmut",
    reason="mutmut is not installed (it is the 'mutation' extra, not part of 'test'): this "
    "check of tools/mutation/equivalent.json runs after pip install -e '.[test,mutation]'",
)

TOOL = Path(__file__).resolve().parents[1] / "tools" / "mutation" / "run.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_run", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_run"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, Path, dict[str, str]]:
    """The mutants of the current tree, generated once for this module."""
    run = _tool()
    work = tmp_path_factory.mktemp("mutants")
    mutants: dict[str, str] = run.generate_mutants(work)
    assert len(mutants) > 1000  # every module of src/session_toolset was mutated
    return run, work, mutants


Generated = tuple[ModuleType, Path, dict[str, str]]


def test_every_equivalent_entry_matches_a_mutant_of_the_current_tree(generated: Generated) -> None:
    run, work, mutants = generated
    entries = run.load_equivalent()
    assert len(entries) > 100  # the file was found and read
    assert run.equivalence_problems(entries, work, mutants) == []


def test_the_equivalent_list_has_no_duplicates_and_one_reason_per_rule() -> None:
    run = _tool()
    entries = run.load_equivalent_entries()
    assert len(entries) > 100
    assert run.entry_list_problems(entries) == []


def test_every_where_reads_the_first_line_its_mutant_removes(generated: Generated) -> None:
    # Independent of the tool's own line arithmetic: the source line the entry names is the
    # first line the recorded diff removes.
    run, _, _ = generated
    root = TOOL.parents[2]
    for entry in run.load_equivalent_entries():
        path, _, line = entry["where"].rpartition(":")
        source = (root / path).read_text(encoding="utf-8").splitlines()
        assert source[int(line) - 1].strip() == entry["removed"][0], entry["mutant"]


def test_a_moved_or_missing_mutant_is_reported(generated: Generated) -> None:
    run, work, mutants = generated
    name, entry = next(iter(sorted(run.load_equivalent().items())))
    gone = "session_toolset.nowhere.x_gone__mutmut_1"
    entries = {name: dict(entry, added=["return 'something else'"]), gone: entry}
    problems = run.equivalence_problems(entries, work, mutants)
    assert len(problems) == 2
    assert problems[0].startswith(f"{name}: the mutant now changes ")
    assert problems[1] == f"{gone}: no such mutant of the current tree"


def test_a_stale_where_is_reported(generated: Generated) -> None:
    run, work, mutants = generated
    name, entry = next(iter(sorted(run.load_equivalent().items())))
    path, _, line = entry["where"].rpartition(":")
    moved = dict(entry, where=f"{path}:{int(line) + 1}")
    problems = run.equivalence_problems({name: moved}, work, mutants)
    assert problems == [
        f"{name}: the mutant is at {entry['where']}, the entry says {moved['where']}"
    ]


def test_duplicates_and_rule_mistakes_are_reported() -> None:
    run = _tool()
    first, second = run.load_equivalent_entries()[:2]
    assert first["rule"] == second["rule"]
    twice = dict(first)
    same_change = dict(first, mutant=first["mutant"] + "_again")
    other_reason = dict(second, reason="another argument")
    lower = dict(second, mutant="m", where="w", rule="wording")
    problems = run.entry_list_problems([first, twice, same_change, other_reason, lower])
    change = json.dumps([first["where"], first["removed"], first["added"]])
    assert problems == [
        f"{first['mutant']}: 2 entries",
        f"the change {change} has 3 entries",
        "m: rule 'wording' is not an upper-case name",
        f"rule {first['rule']}: 2 different reasons",
    ]


def test_mutants_are_listed_from_names_or_from_a_report(tmp_path: Path) -> None:
    run = _tool()
    names = tmp_path / "names.txt"
    names.write_text("a.x_f__mutmut_1\n\n  a.x_f__mutmut_2  \n", encoding="utf-8")
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"survivors": [{"name": "b.x_g__mutmut_3"}]}), encoding="utf-8")
    assert run._listed_mutants(names) == {"a.x_f__mutmut_1", "a.x_f__mutmut_2"}
    assert run._listed_mutants(report) == {"b.x_g__mutmut_3"}


# The reviewed rules: each rule's reason (its SHA-256, first 12 hex digits) and how many mutants it
# covers.  An equivalence claim is an argument a reviewer has read; a new rule, a rewritten
# reason, or an entry moved from one rule to another (two counts change) must show up as a change
# to this table in review, not only as a change to the JSON file.
REVIEWED_RULES: dict[str, tuple[str, int]] = {
    "AUTHORIZE_NAMES": ("5722c6dc441d", 8),
    "BRANCH": ("7bb4fac9d0b2", 1),
    "BUILTIN_NAME": ("136035b54d47", 4),
    "CACHE": ("ad63368e410a", 1),
    "CARRY_ENV": ("b9359653cf25", 1),
    "CAST": ("eef415f7f9b7", 4),
    "CODEC": ("8de0f210b40c", 9),
    "COPYSIGN": ("fb7d424ce23c", 3),
    "DIGITS": ("6031872c8a8f", 5),
    "DUMPS": ("ce8516fbc46c", 5),
    "FALSY": ("5933f5111737", 1),
    "INTERNAL": ("941f92719a1b", 4),
    "LABEL": ("921f280abdaa", 12),
    "NESTING_PRESCAN": ("37b6d225e218", 16),
    "PAIRS_HOOK": ("0fe838c71efa", 2),
    "PERFORMANCE": ("b0b792dc7732", 1),
    "SENTINEL": ("3ad6ff6d6046", 8),
    "SORT_KEY": ("fdfac1cbba0a", 2),
    "STDERR_NONE": ("744ab9b38e13", 1),
    "STRIP": ("60b6c9482018", 2),
    "SUMMARY_TAGS": ("4416017b59dc", 4),
    "UNREACHABLE_NUMBER": ("672a425879f0", 2),
    "UNREACHABLE_VALUEERROR": ("42a6e776b417", 1),
    "UPSERT": ("8b98da02b204", 1),
    "WORDING": ("8ab679c8a322", 148),
    "WRONG_ARGS": ("f60fd878abe8", 18),
}


def test_equivalence_rules_are_the_reviewed_ones() -> None:
    run = _tool()
    entries = run.load_equivalent_entries()
    counts = collections.Counter(entry["rule"] for entry in entries)
    found = {
        entry["rule"]: (
            hashlib.sha256(entry["reason"].encode()).hexdigest()[:12],
            counts[entry["rule"]],
        )
        for entry in entries
    }
    assert found == REVIEWED_RULES
