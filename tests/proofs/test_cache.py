"""The cache of Z3 answers (`cache`): an unchanged run solves nothing, a one-rule edit
re-solves only the queries it changes, and a changed query never reads a stale answer."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from session_toolset_model import sets
from session_toolset_proofs import cli
from session_toolset_proofs.cache import Cache
from session_toolset_proofs.report import Report, run

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
    assert [(r.name, r.check, r.result) for r in warm.rows] == [
        (r.name, r.check, r.result) for r in cold.rows
    ]
    assert sum(r.solved for r in warm.rows) == 0 and "Z3 answered 0 queries" in warm.summary()

    monkeypatch.setattr(sets, "stale", _off_by_one)
    edited = run(["per-tool-pinned"], PATTERN, store=store)
    assert _solved(edited, REVOKE) == 0  # revoke's queries do not mention staleness
    proofs = {r.name: r for r in edited.rows if r.check == "proof"}
    for name in STALE:  # the changed queries are solved again: no stale "proved"
        assert proofs[name].result == "refuted" and proofs[name].solved > 0, name
    assert not edited.ok


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
