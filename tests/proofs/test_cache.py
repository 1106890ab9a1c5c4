"""The cache (`cache`): an unchanged run reads every check whole and solves nothing; after a
one-rule edit only the checks that ran the edited function run again, and they re-solve only
the queries it changed; a changed function, constant, solver setting or query never reads a
stale answer; a damaged cache file is only a miss; runs sharing a cache do not damage it."""

from __future__ import annotations

import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import session_toolset_model
from session_toolset_model import sets
from session_toolset_model.enumerate import nodes
from session_toolset_model.profiles import spec_rule
from session_toolset_proofs import cli, report, solve
from session_toolset_proofs.cache import Cache, Deps, Tracer, context_key
from session_toolset_proofs.report import Report, restore, run

REVOKE = ("postcondition.revoke", "counters.schema_generation_advances_by_one.revoke")
STALE = ("functional.is_stale", "drift_denial.stale_iff_generations_differ.is_stale")
PATTERN = re.compile("^(" + "|".join(re.escape(n) for n in (*REVOKE, *STALE)) + ")$")
STALE_RULE = "session_toolset_model.sets:stale"


def _solved(report: Report, names: tuple[str, ...]) -> int:
    return sum(r.solved for r in report.rows if r.name in names)


def _restored(report: Report, names: tuple[str, ...]) -> list[bool]:
    return [r.restored for r in report.rows if r.name in names]


def _off_by_one(alg: Any, v: Any, st: Any, s: Any) -> Any:
    """The edit: "stale" only from a drift of two generations on (one rule, in one helper)."""
    return alg.lt(alg.add(alg.get(s, "catgen"), alg.int_(1)), st.gen)


def _edited_in_place() -> types.CodeType:
    """`sets.stale` with its last line edited as `_off_by_one`, compiled as the model's own file
    compiles it: the code an edit on disk would load."""
    source = inspect.getsource(spec_rule(sets.stale))
    body = '    return alg.not_(alg.eq(alg.get(s, "catgen"), st.gen))\n'
    assert body in source
    edited = source.replace(
        body, '    return alg.lt(alg.add(alg.get(s, "catgen"), alg.int_(1)), st.gen)\n'
    )
    space: dict[str, Any] = {}
    exec(compile(edited, sets.__file__, "exec"), sets.__dict__.copy(), space)
    code: types.CodeType = space["stale"].__code__
    return code


def test_only_the_checks_that_run_the_edited_rule_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Cache(tmp_path)
    cold = run(["per-tool-pinned"], PATTERN, store=store)
    assert cold.ok and _solved(cold, REVOKE) > 0 and _solved(cold, STALE) > 0
    warm = run(["per-tool-pinned"], PATTERN, store=store)
    assert _same(warm, cold) and all(r.restored for r in warm.rows)  # read whole: no query
    assert not any(r.restored for r in cold.rows)
    assert sum(r.reused for r in warm.rows) == 0 and "Z3 answered 0 queries" in warm.summary()

    monkeypatch.setattr(
        spec_rule(sets.stale), "__code__", _edited_in_place()
    )  # same name, new body
    edited = run(["per-tool-pinned"], PATTERN, store=store)
    assert all(_restored(edited, REVOKE))  # revoke never runs the staleness rule
    assert not any(_restored(edited, STALE))  # the checks that ran it run again
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


@pytest.mark.parametrize("setting", ["RLIMIT", "SEED"])
def test_a_changed_solver_setting_misses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str
) -> None:
    pattern = re.compile(r"^functional\.is_stale$")
    store = Cache(tmp_path)
    cold = run(["per-tool-pinned"], pattern, store=store)
    assert cold.ok and not any(r.restored for r in cold.rows)
    monkeypatch.setattr(solve, setting, getattr(solve, setting) + 1)
    changed = run(["per-tool-pinned"], pattern, store=store)
    proof = next(r for r in changed.rows if r.check == "proof")
    assert not any(r.restored for r in changed.rows)  # no check read whole ...
    assert proof.solved > 0 and proof.reused == 0  # ... and its proof's query not reused


def test_what_decides_a_check_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cache.context_key` sees a constant, a table's contents, a function rebound and the
    module-level code of a source file; a function's body is its checks' dependency
    (`cache.Deps`), so editing it leaves the context as it was."""
    base, rule = context_key(), Deps().digest(STALE_RULE)
    assert context_key() == base and rule is not None
    monkeypatch.setattr(solve, "RLIMIT", solve.RLIMIT + 1)
    assert context_key() != base
    monkeypatch.undo()
    monkeypatch.setitem(report.OP_COST, "rebuild", 2.5)
    assert context_key() != base
    monkeypatch.undo()
    monkeypatch.setattr(sets, "stale", _off_by_one)  # rebound: another function
    assert context_key() != base
    monkeypatch.undo()
    monkeypatch.setattr(
        spec_rule(sets.stale), "__code__", _edited_in_place()
    )  # same name, new body
    assert context_key() == base and Deps().digest(STALE_RULE) != rule
    monkeypatch.undo()
    monkeypatch.setattr(
        spec_rule(sets.stale), "__code__", _off_by_one.__code__
    )  # code from elsewhere
    assert context_key() != base
    monkeypatch.undo()
    assert context_key() == base and Deps().digest(STALE_RULE) == rule
    copy = tmp_path / "model"
    shutil.copytree(Path(session_toolset_model.__path__[0]), copy)
    monkeypatch.setattr(session_toolset_model, "__path__", [str(copy)])
    assert context_key() == base  # the same files elsewhere
    rules = copy / "sets.py"
    text = rules.read_text(encoding="utf-8")
    body = '    return alg.not_(alg.eq(alg.get(s, "catgen"), st.gen))\n'
    assert body in text
    rules.write_text(
        text.replace(body, '    return alg.lt(alg.get(s, "catgen"), st.gen)\n'), "utf-8"
    )
    assert context_key() == base  # a function's body: not the context
    rules.write_text(text + "EXTRA = 1\n", encoding="utf-8")
    assert context_key() != base  # module-level code: runs at import


def test_a_check_depends_on_what_the_exploration_ran(tmp_path: Path) -> None:
    """Every stored check that asks the exploration anything (a witness, a counterexample)
    names, besides the functions its own process ran, those the run's parent ran to explore
    before forking (it reads their results); a check that asks it nothing (a proof under a
    profile) does not."""
    run(["per-tool-pinned", "generation-strict"], PATTERN, store=Cache(tmp_path))
    report._forget()
    with Tracer() as tracer:
        nodes()
    explored = tracer.names()
    assert any(n.startswith("session_toolset_model.enumerate:") for n in explored)
    entries = [e for p in tmp_path.rglob("*.json") for e in _unit_entries(p)]
    assert len(entries) == 2 * len(REVOKE + STALE)  # one per obligation and profile
    for entry in entries:
        deps = set(entry["deps"])
        if entry["rows"][0]["profile"] == "per-tool-pinned":
            assert explored <= deps
        else:
            assert not explored <= deps and len(entry["rows"]) == 1
            assert not any(n.startswith("session_toolset_model.enumerate:") for n in deps)
    stale_ran = [STALE_RULE in e["deps"] for e in entries]
    assert sorted(stale_ran) == [False] * 4 + [True] * 4


def _unit_entries(path: Path) -> list[dict[str, Any]]:
    doc: Any = json.loads(path.read_text(encoding="utf-8"))
    return list(doc.get("entries", [])) if isinstance(doc, dict) else []


def test_a_damaged_cache_file_is_a_miss(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, out = tmp_path / "cache", tmp_path / "cold.json"
    argv = ["-k", "is_stale.pure", "--cache-dir", str(store), "--quiet"]
    assert cli.main([*argv, "--json", str(out)]) == 0
    files = sorted(p for p in store.rglob("*.json"))
    assert len(files) > 3
    damage: list[Callable[[bytes], bytes]] = [
        lambda b: b[: len(b) // 2],  # truncated
        lambda b: b"\xff\xfe\x00garbage",  # not text
        lambda b: b'{"entries": [{"deps": {"x": 1}, "rows": 7}, 3]}',  # the wrong shape
        lambda b: b'{"status": "maybe", "values": []}',
        lambda b: b"",
    ]
    for i, path in enumerate(files):
        path.write_bytes(damage[i % len(damage)](path.read_bytes()))
    capsys.readouterr()
    again = tmp_path / "again.json"
    assert cli.main([*argv, "--json", str(again)]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "Traceback" not in captured.out
    assert _rows(again) == _rows(out)
    assert restore({"rows": [{"name": 1}]}, [0]) is None
    garbage: list[Any] = [None, [], {"rows": []}, {"rows": [{"name": "x"}]}, {"rows": "x"}]
    for doc in garbage:
        assert restore(doc, [0]) is None


def _rows(path: Path) -> list[tuple[str, str, str, str]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [(r["name"], r["profile"], r["check"], r["result"]) for r in doc["rows"]]


def test_runs_sharing_a_cache_and_an_edit_on_disk(tmp_path: Path) -> None:
    """Two `prove` processes fill one cache at once without damaging it; an edit of the rule
    in the model's source file (a copy of the model) runs its checks again, and they fail;
    undoing the edit reads them whole again."""
    model = tmp_path / "model"
    shutil.copytree(
        Path(session_toolset_model.__path__[0]),
        model / "session_toolset_model",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    env = {**os.environ, "PYTHONPATH": str(model)}
    where = [sys.executable, "-c", "import session_toolset_model as m; print(m.__file__)"]
    used = subprocess.run(where, env=env, text=True, capture_output=True, check=True).stdout
    assert Path(used.strip()).is_relative_to(model)  # the copy, not the installed model
    store = tmp_path / "cache"
    argv = [sys.executable, "-m", "session_toolset_harness.cli", "prove", "-k", "is_stale"]
    argv += ["--cache-dir", str(store), "--quiet"]

    def prove(*extra: str) -> subprocess.Popen[str]:
        return subprocess.Popen([*argv, *extra], env=env, text=True, stdout=subprocess.PIPE)

    both = [prove("--json", str(tmp_path / name)) for name in ("a.json", "b.json")]
    assert [p.wait(timeout=300) for p in both] == [0, 0]
    assert _rows(tmp_path / "a.json") == _rows(tmp_path / "b.json")
    assert not list(store.rglob(".tmp-*"))  # every write finished or was never started

    def output() -> tuple[int, str]:
        done = subprocess.run(argv, env=env, text=True, capture_output=True, timeout=300)
        return done.returncode, done.stdout

    warm = output()
    assert warm[0] == 0 and "Z3 answered 0 queries" in warm[1], warm
    rules = model / "session_toolset_model" / "sets.py"
    text = rules.read_text(encoding="utf-8")
    body = '    return alg.not_(alg.eq(alg.get(s, "catgen"), st.gen))\n'
    assert body in text
    rules.write_text(
        text.replace(body, '    return alg.lt(alg.get(s, "catgen"), alg.int_(0))\n'), "utf-8"
    )
    edited = output()
    assert edited[0] == 1 and re.search(r"functional\.is_stale .* proof +refuted", edited[1])
    assert "Z3 answered 0 queries" not in edited[1], edited
    rules.write_text(text, encoding="utf-8")
    undone = output()
    assert undone[0] == 0 and "Z3 answered 0 queries" in undone[1], undone
