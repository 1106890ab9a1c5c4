"""The cache (`cache`): an unchanged run reads every check whole and solves nothing, a one-rule
edit re-solves only the queries it changes, and a changed query or changed code never reads a
stale answer."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import session_toolset_model
from session_toolset_model import sets
from session_toolset_model.profiles import spec_rule
from session_toolset_proofs import cli, report, solve
from session_toolset_proofs.cache import Cache, code_key
from session_toolset_proofs.report import Report, restore, run

REVOKE = ("postcondition.revoke", "counters.schema_generation_advances_by_one.revoke")
STALE = ("functional.is_stale", "drift_denial.stale_iff_generations_differ.is_stale")
PATTERN = re.compile("^(" + "|".join(re.escape(n) for n in (*REVOKE, *STALE)) + ")$")


def _solved(report: Report, names: tuple[str, ...]) -> int:
    return sum(r.solved for r in report.rows if r.name in names)


def _off_by_one(alg: Any, v: Any, st: Any, s: Any) -> Any:
    """The edit: "stale" only from a drift of two generations on (one rule, in one helper)."""
    return alg.lt(alg.add(alg.get(s, "catgen"), alg.int_(1)), st.gen)


def test_only_the_edited_rules_queries_are_solved_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Cache(tmp_path)
    cold = run(["per-tool-pinned"], PATTERN, store=store)
    assert cold.ok and _solved(cold, REVOKE) > 0 and _solved(cold, STALE) > 0
    warm = run(["per-tool-pinned"], PATTERN, store=store)
    assert _same(warm, cold) and all(r.restored for r in warm.rows)  # read whole: no query
    assert not any(r.restored for r in cold.rows)
    assert sum(r.reused for r in warm.rows) == 0 and "Z3 answered 0 queries" in warm.summary()

    monkeypatch.setattr(sets, "stale", _off_by_one)
    edited = run(["per-tool-pinned"], PATTERN, store=store)
    assert not any(r.restored for r in edited.rows)  # the code changed: every check runs
    assert _solved(edited, REVOKE) == 0  # revoke's queries do not mention staleness
    proofs = {r.name: r for r in edited.rows if r.check == "proof"}
    for name in STALE:  # the changed queries are solved again: no stale "proved"
        assert proofs[name].result == "refuted" and proofs[name].solved > 0, name
    assert not edited.ok
    again = run(["per-tool-pinned"], PATTERN, store=store)  # the edit, read whole: still refuted
    assert _same(again, edited) and all(r.restored for r in again.rows)

    monkeypatch.undo()  # the rule as it was: the first run's rows again, read whole
    undone = run(["per-tool-pinned"], PATTERN, store=store)
    assert _same(undone, cold) and all(r.restored for r in undone.rows) and undone.ok


def _same(a: Report, b: Report) -> bool:
    def key(r: report.Row) -> tuple[Any, ...]:
        return (r.name, r.profile, r.check, r.result, r.expected, r.basis, r.trace, r.concrete)

    return [key(r) for r in a.rows] == [key(r) for r in b.rows]


def test_the_code_key_sees_a_changed_constant_datum_or_source_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What decides a check whole (`cache.code_key`): a constant, a table's contents and the
    bytes of a source file not yet reloaded each change it; putting them back restores it."""
    base = code_key()
    assert code_key() == base
    monkeypatch.setattr(solve, "RLIMIT", solve.RLIMIT + 1)
    assert code_key() != base
    monkeypatch.undo()
    monkeypatch.setattr(spec_rule(sets.stale), "__code__", _off_by_one.__code__)  # new body
    assert code_key() != base
    monkeypatch.undo()
    monkeypatch.setitem(report.OP_COST, "rebuild", 2.5)
    assert code_key() != base
    monkeypatch.undo()
    assert code_key() == base
    copy = tmp_path / "model"
    shutil.copytree(Path(session_toolset_model.__path__[0]), copy)
    monkeypatch.setattr(session_toolset_model, "__path__", [str(copy)])
    assert code_key() == base  # the same bytes elsewhere
    rules = copy / "sets.py"
    rules.write_text(rules.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    assert code_key() != base


def test_an_unreadable_stored_check_is_run_again(tmp_path: Path) -> None:
    store = Cache(tmp_path)
    cold = run(["per-tool-pinned"], PATTERN, store=store)
    stored = [p for p in tmp_path.rglob("*.json") if '"rows"' in p.read_text(encoding="utf-8")]
    assert len(stored) == len(REVOKE + STALE)  # one per obligation: its every row
    for path in stored:
        path.write_text('{"rows": [{"name": 1}]}', encoding="utf-8")
    again = run(["per-tool-pinned"], PATTERN, store=store)
    assert _same(again, cold) and not any(r.restored for r in again.rows)
    garbage: list[Any] = [None, [], {"rows": []}, {"rows": [{"name": "x"}]}, {"rows": "x"}]
    for doc in garbage:
        assert restore(doc, [0]) is None


def test_a_key_ignores_fresh_numbering_only() -> None:
    store = Cache(Path("unused"))
    text = "(declare-fun k!{0} () Int)\n(assert (let (($x{1} (< k!{0} 3))) $x{1}))"
    same = store.key(text.format(7, 31), 100, 1, None) == store.key(text.format(2, 5), 100, 1, None)
    assert same
    changed = text.format(7, 31).replace("3)", "4)")
    assert store.key(changed, 100, 1, None) != store.key(text.format(7, 31), 100, 1, None)
    assert store.key(text.format(7, 31), 200, 1, None) != store.key(
        text.format(7, 31), 100, 1, None
    )


def test_an_unusable_cache_dir_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert cli.main(["-k", "is_stale.pure", "--cache-dir", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("session-toolset prove: error: cannot use")
