"""The README and docs/ stay what a user needs: short, without development history, with links
that resolve, and every command they show is run, here, by another named test, or by CI.

Commands are the lines of fenced code blocks that start a program (``session-toolset``,
``python``, ``pytest``, ``pip``, ``go``, ``node``, ``mkdir``, ``cp``, ``cd``), after a ``$ ``
prompt and backslash continuations are joined.  ``EXERCISES`` says, for each one, how it is
run; a command shown without an entry there, or an entry no longer shown, fails
``test_every_shown_command_has_an_exercise``.  Commands run here run literally, in a scratch
directory that holds stand-ins for the placeholders the docs use (``./my-adapter``,
``my_adapter.py`` and ``$ADAPTER`` are the reference adapter; ``my-vectors/`` holds the recorded
walkthroughs; ``/tmp/`` is a directory of the scratch one).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from session_toolset_harness.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"

README_MAX_WORDS = 1_200
DOCS_MAX_WORDS = 20_000

HISTORY = re.compile(
    r"\bissue\s+#?\d+"  # issue numbers
    r"|(?<![\w`/])#\d+\b"  # "#41"-style references
    r"|\brt\d+\b"  # red-team round tags
    r"|\bred[- ]team"
    r"|\bon HEAD\b"
    r"|\bdry run"
    r"|\b(?:third|fourth|fifth|sixth|review|speed) round\b"
    r"|\bround \d+\b"
    r"|\b(?:main|commit|tree|revision|baseline|branch) [0-9a-f]{7,40}\b"
    # a bare commit-like id: 7 to 12 hex digits holding a letter and a digit (64-digit schema
    # digests and the `enc-` hex of identifiers are longer, or follow a letter and a hyphen)
    r"|(?<![\w-])(?=[0-9a-f]{0,11}[a-f])(?=[0-9a-f]{0,11}[0-9])[0-9a-f]{7,12}(?![\w-])",
    re.IGNORECASE,
)


def doc_files() -> list[Path]:
    """README.md and every Markdown file under docs/ except the copies in docs/spec/."""
    docs = sorted(p for p in DOCS.rglob("*.md") if "spec" not in p.relative_to(DOCS).parts)
    return [README, *docs]


def words(path: Path) -> int:
    """Words as `wc -w` counts them."""
    return len(path.read_text(encoding="utf-8").split())


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# --- size --------------------------------------------------------------------------------------


def test_readme_is_short() -> None:
    assert words(README) <= README_MAX_WORDS


def test_docs_are_short_in_all() -> None:
    total = sum(words(p) for p in doc_files() if p != README)
    assert total <= DOCS_MAX_WORDS, {rel(p): words(p) for p in doc_files()}


# --- no history --------------------------------------------------------------------------------


def history_hits(text: str) -> list[str]:
    return [
        f"{number}: {line.strip()[:120]}"
        for number, line in enumerate(text.splitlines(), 1)
        if HISTORY.search(line)
    ]


@pytest.mark.parametrize("path", doc_files(), ids=rel)
def test_no_development_history(path: Path) -> None:
    """Issue numbers, review rounds, commit ids, "on HEAD" belong in the changelog, not in a
    user's reference."""
    assert history_hits(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "line",
    [
        "fixed in issue 11",
        "aliases not implemented yet (#41)",
        "found by the red team",
        "rt12 ran it again",
        "measured on HEAD",
        "256 s in the last two CI dry runs",
        "### Fifth round: the prng engine",
        "on main 2d8fe1d",
        "bench_explore.py --baseline 2b9c869",
        "the walk of b0356a5",
    ],
)
def test_the_history_patterns_catch_history(line: str) -> None:
    assert history_hits(line)


@pytest.mark.parametrize(
    "line",
    [
        "`ext.enc-41636d65:deploy`",
        '"digest": "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"',
        "rounds correctly; a round of `ci`; a further round runs with seed S+1",
        "`--shard K/N` with `--jobs 2`; a 128-byte bound; 2^64-1",
    ],
)
def test_the_history_patterns_leave_reference_text_alone(line: str) -> None:
    assert history_hits(line) == []


# --- links -------------------------------------------------------------------------------------

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {slug(m[1]) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def broken_links(path: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists() or (
            anchor and linked.suffix == ".md" and anchor not in anchors(linked)
        ):
            broken.append(target)
    return broken


@pytest.mark.parametrize("path", doc_files(), ids=rel)
def test_every_relative_link_resolves(path: Path) -> None:
    assert broken_links(path) == []


def test_the_link_check_catches_a_missing_file_and_a_missing_anchor(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## A section\n", encoding="utf-8")
    page.write_text(
        "[ok](other.md#a-section) [gone](gone.md) [bad](other.md#no-such) [web](https://x.y)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["gone.md", "other.md#no-such"]


# --- commands ----------------------------------------------------------------------------------

PROGRAM = re.compile(
    r"^(?:[A-Z_]+=\S+ )*(?:session-toolset|python3?|pytest|pip|go|node|mkdir|cp|cd)\b"
)


@dataclass(frozen=True)
class Shown:
    """A command line shown in a fenced block, with the block it stands in."""

    path: Path
    command: str
    block: str
    output: tuple[str, ...]
    """The lines the block prints after this command, when it shows them (``$ `` prompts)."""


def clean(line: str) -> str:
    """A shown line without its prompt and trailing comment, whitespace collapsed."""
    line = line.strip().removeprefix("$ ")
    line = re.sub(r"\s+#\s.*$", "", line)
    return re.sub(r"\s+", " ", line).strip()


def joined(block: str) -> list[str]:
    """The lines of a block, continuations (a trailing backslash, or an indented line after a
    command, as in a synopsis) joined to the line they continue."""
    lines: list[str] = []
    for line in block.replace("\\\n", " ").splitlines():
        if lines and line[:1].isspace() and line.strip():
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return lines


def shown_commands() -> list[Shown]:
    found: list[Shown] = []
    for path in doc_files():
        if path == DOCS / "figures.md":
            continue  # generated: the commands benchmarks/figures.py ran, shown with their output
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"^```([a-z]*)\n(.*?)^```", text, re.S | re.M):
            if m[1] in ("json", "python", "java", "yaml", "text"):
                continue
            lines = joined(m[2])
            prompts = any(line.startswith("$ ") for line in lines)
            for i, line in enumerate(lines):
                if prompts and not line.startswith("$ "):
                    continue
                command = clean(line)
                if not PROGRAM.match(command):
                    continue
                output: list[str] = []
                for after in lines[i + 1 :]:
                    if not prompts or after.startswith("$ "):
                        break
                    output.append(after.strip())
                found.append(Shown(path, command, m[2], tuple(output)))
    return found


@dataclass(frozen=True)
class Exercise:
    """How a shown command is run.

    kind: ``run`` (literally, here, in the scratch directory), ``budget`` (literally, with
    ``extra`` arguments that cut its budget), ``block`` (its whole fenced block as one script,
    where ``needs`` is installed and present), ``synopsis`` (every ``--flag`` it names is in the
    command's ``--help``), ``help`` (the program's ``--help`` exits 0: for runs of minutes),
    ``ci`` (``.ci/run`` runs it), ``test`` (``where`` names the test that runs it), ``pending``
    (another branch adds the command; the integrator replaces the entry after merging).
    """

    kind: str
    status: int = 0
    extra: tuple[str, ...] = ()
    where: str = ""
    needs: tuple[str, ...] = ()


RUN = Exercise("run")
SMALL_PROOF = Exercise("budget", extra=("-k", "invariant.init"))
NODE_BLOCK = Exercise("block", needs=("node", "docs/examples/adapter-skeleton.mjs"))
GO_BLOCK = Exercise("block", needs=("go", "docs/examples/adapter-skeleton.go"))
WORKED_EXAMPLE = Exercise("block")

EXERCISES: dict[str, Exercise] = {
    # README: the two set-up commands are CI's own (.ci/run)
    "python3 -m venv .venv-check && . .venv-check/bin/activate && pip install . && "
    "session-toolset check": Exercise("ci"),
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' -c constraints.txt"
    " && pytest -n 2 --dist loadfile": Exercise("ci"),
    "session-toolset conform": RUN,
    'session-toolset conform --adapter "./my-adapter"': RUN,
    'session-toolset explore --adapter "./my-adapter" --seed 1': RUN,
    # with a small budget (`-k`), and the full runs in benchmarks/figures.py:
    "session-toolset prove --all-profiles": Exercise(
        "test", where="tests/proofs/test_vectors.py::test_cli_emits_vectors_for_a_pattern"
    ),
    "session-toolset prove --hazards": Exercise(
        "test",
        where="tests/proofs/test_hazards.py::test_cli_prints_hazards_and_puts_them_in_the_json",
    ),
    # the whole check runs in CI (.ci/run); its --json report with every stage:
    "session-toolset check --json check.json": Exercise(
        "test", where="tests/harness/test_output.py::test_check_json_holds_both_full_reports"
    ),
    "session-toolset prove --junit prove.xml": SMALL_PROOF,
    'session-toolset conform --adapter "./my-adapter" --junit conform.xml --json conform.json': RUN,
    # README and docs/trace.md: the logs named are stand-ins in the scratch directory
    "session-toolset trace recorded.jsonl": RUN,
    # docs/conformance.md
    'session-toolset conform --adapter "python3 my_adapter.py" '
    "--exclude-tag declared-difference": RUN,
    "session-toolset conform --vectors my-vectors/ -k walkthrough --junit report.xml": RUN,
    "session-toolset conform --validate --vectors my-vectors/": RUN,
    # docs/development.md: the regeneration commands write into the tree; the tests named run
    # them (or their check mode) and fail while the committed files differ
    "SESSION_TOOLSET_PROFILE=nightly pytest tests/explore": Exercise(
        "test",
        where="tests/explore/test_stateful.py::test_reference_implementation_agrees_with_the_model",
    ),
    "python -m session_toolset_harness.corpus build": Exercise(
        "test",
        where="tests/corpus/test_corpus.py::test_check_notices_each_kind_of_problem_and_build_fixes_the_layout",
    ),
    "session-toolset prove --all-profiles --quiet --emit-vectors "
    "src/session_toolset_harness/vectors/model-cex": Exercise(
        "test",
        where="tests/proofs/test_vectors.py::test_packaged_counterexample_vectors_are_up_to_date",
    ),
    "session-toolset prove --hazards --quiet --emit-hazard-vectors "
    "src/session_toolset_harness/vectors/hazards": Exercise(
        "test", where="tests/proofs/test_hazards.py::test_packaged_hazard_vectors_are_up_to_date"
    ),
    "python -m session_toolset_proofs.traceability --out docs/traceability.md": Exercise(
        "test", where="tests/proofs/test_traceability.py::test_the_committed_table_is_fresh"
    ),
    "python tests/corpus/example_scope.py": Exercise(
        "test",
        where="tests/corpus/test_implementers_node_example.py::"
        "test_the_shipped_skip_file_lists_exactly_the_vectors_beyond_the_skeleton",
    ),
    "python benchmarks/figures.py": Exercise("help"),
    # docs/explore.md
    "session-toolset explore [--adapter CMD] [--budget dev|ci|nightly] [--examples N] "
    "[--steps N] [--seed S] [--out FILE] [--no-shrink] [--quiet] [--jobs N] [--shard K/N] "
    "[--json FILE] [--no-pipeline]": Exercise("synopsis"),
    "session-toolset explore --merge REPORT [REPORT ...]": Exercise("synopsis"),
    'session-toolset conform --vectors explore-failure.json --adapter "./my-adapter"': Exercise(
        "test", where="tests/explore/test_cli.py::test_divergence_through_an_external_adapter"
    ),
    "python tools/explore_strength/find_rate.py --seeds 10": Exercise("help"),
    "python tools/explore_strength/shrink_size.py --seeds 5": Exercise("help"),
    # docs/trace.md
    "session-toolset trace session.jsonl": RUN,
    "session-toolset trace --keep-going a.jsonl b.jsonl --json report.json --junit report.xml": RUN,
    'session-toolset conform --adapter "node my-adapter.mjs" --record run.jsonl': Exercise(
        "test", where="tests/trace/test_cli.py::test_adapter_record_and_conform_record_logs_pass"
    ),
    "session-toolset trace run.jsonl": Exercise(
        "test", where="tests/trace/test_cli.py::test_adapter_record_and_conform_record_logs_pass"
    ),
    "session-toolset trace trace.jsonl --keep-going --jobs 2 --junit trace.xml --json trace.json": (
        RUN
    ),
    "session-toolset trace --partial catalog audit.jsonl": RUN,
    "session-toolset trace --strict-replies recorded.jsonl": RUN,
    "session-toolset trace --partial catalog_upsert,catalog_remove --max-hidden 1 --explain "
    "changes.jsonl": RUN,
    "python benchmarks/bench_trace_partial.py --shape recorded --lines 10000 --jobs 2": Exercise(
        "help"
    ),
    # docs/implementers.md
    'session-toolset conform --adapter "python3 docs/examples/adapter-minimal.py" '
    "-k identity/session-id": RUN,
    'session-toolset conform --adapter "python3 docs/examples/adapter-minimal.py" '
    "-k digest/key-order": RUN,
    "mkdir -p my-adapter": NODE_BLOCK,  # both starters' blocks; each is run as a whole below
    "cp docs/examples/adapter-skeleton.mjs my-adapter/": NODE_BLOCK,
    "cd my-adapter": NODE_BLOCK,
    'session-toolset conform --adapter "node adapter-skeleton.mjs" -k digest --skip skeleton': (
        NODE_BLOCK
    ),
    'session-toolset conform --adapter "node adapter-skeleton.mjs" --skip skeleton': NODE_BLOCK,
    "cp docs/examples/adapter-skeleton.go my-adapter/": GO_BLOCK,
    "go build -o adapter adapter-skeleton.go": GO_BLOCK,
    "session-toolset conform --adapter ./adapter --skip skeleton": GO_BLOCK,
    # docs/install.md: its blocks run in order, in fresh virtual environments, in that test
    # (.ci/run sets SESSION_TOOLSET_INSTALL_DOCS=1); the dependency matrix is a CI step
    **{
        command: Exercise(
            "test",
            where="tests/test_install_docs.py::test_every_install_command_of_the_page_runs",
        )
        for command in (
            "python3 -m venv .venv && . .venv/bin/activate",
            "pip install .",
            "session-toolset --version",
            "pip install . -c constraints.txt",
            "pip wheel --no-deps -w dist .",
            "python3 -m venv .venv-wheel && . .venv-wheel/bin/activate",
            "pip install dist/session_toolset-0.2.0-py3-none-any.whl",
            "session-toolset check",
            "python3 -m venv .venv-conform && . .venv-conform/bin/activate",
            "pip install --no-deps dist/session_toolset-0.2.0-py3-none-any.whl",
            'pip install "jsonschema>=4.18.0,<5" "referencing>=0.28.4,<1"',
            'session-toolset conform --adapter "session-toolset adapter" --quiet',
            "pip install -e '.[test]' -c constraints.txt",
        )
    },
    "python3 tools/deps_matrix.py": Exercise("ci"),
    "python -m session_toolset_harness.corpus check": Exercise(
        "test", where="tests/corpus/test_corpus.py::test_module_command_runs"
    ),
    "python -m session_toolset_harness.corpus expand expanded-vectors/": RUN,
    "session-toolset conform --validate": Exercise(
        "test", where="tests/corpus/test_corpus.py::test_runner_validates_the_corpus"
    ),
    'session-toolset conform --adapter "$ADAPTER" --emit-known-failures '
    "conformance-known-failures.txt": RUN,
    'session-toolset conform --adapter "$ADAPTER" --skip conformance-known-failures.txt '
    "--skip-must-fail --junit conformance.xml --json conformance.json": RUN,
    # docs/mutation.md: whole mutation runs take tens of minutes
    "pip install -e '.[mutation]'": Exercise(
        "test", where="tests/test_docs.py::test_the_mutation_extra_exists"
    ),
    "python tools/mutation/run.py --jobs 2 --json build/mutation/report.json": Exercise("help"),
    "python tools/mutation/run.py --suite strength --jobs 2": Exercise("help"),
    "python tools/mutation/run.py --report-only --suite corpus --suite stateful --suite strength "
    "--markdown build/mutation/report.md": Exercise("help"),
    "python tools/mutation/model.py --sample 80 --sample-seed 0 --jobs 2 "
    "--json build/model-mutation.json": Exercise("help"),
    "python tools/mutation/model.py --sample 80 --sample-seed 1 --sample-non-equivalent "
    "--prove-only --jobs 2 --json build/model-mutation-seed1.json": Exercise("synopsis"),
    "python tools/mutation/model.py --survivors build/model-mutation-seed1.json "
    "--json build/rerun.json": Exercise("synopsis"),
    # docs/proofs.md
    "session-toolset prove [--profile P | --all-profiles] [-k PATTERN] [--json FILE] "
    "[--junit FILE] [--jobs N] [--emit-vectors DIR] [--quiet | --verbose]": Exercise("synopsis"),
    # docs/spec-authors.md: the worked example, run with the output it shows
    r"session-toolset prove --all-profiles -k gate.soundness --emit-vectors /tmp/cex "
    "--emit-hazard-vectors /tmp/hz": WORKED_EXAMPLE,
    "session-toolset conform --vectors /tmp/cex /tmp/hz --quiet": WORKED_EXAMPLE,
    'session-toolset conform --adapter "python tests/miniatures/mini_gate_ignores_provenance.py" '
    "--vectors /tmp/cex /tmp/hz": WORKED_EXAMPLE,
}


def test_every_shown_command_has_an_exercise() -> None:
    shown = {s.command for s in shown_commands()}
    assert sorted(shown - EXERCISES.keys()) == [], "shown but never run"
    assert sorted(EXERCISES.keys() - shown) == [], "no longer shown"


def _first(command: str) -> Shown:
    return next(s for s in shown_commands() if s.command == command)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working directory with the stand-ins the docs' commands name."""
    home = tmp_path_factory.mktemp("docs-commands")
    for name in ("docs", "tests", "tools"):
        (home / name).symlink_to(ROOT / name)
    adapter = home / "my-adapter"
    adapter.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m session_toolset.adapter "$@"\n')
    adapter.chmod(0o755)
    (home / "my_adapter.py").write_text(
        "import runpy\nrunpy.run_module('session_toolset.adapter', run_name='__main__')\n"
    )
    walkthroughs = ROOT / "src" / "session_toolset_harness" / "vectors" / "original"
    shutil.copytree(walkthroughs, home / "my-vectors")
    (home / "tmp").mkdir()
    write_trace_logs(home)
    return home


def write_trace_logs(home: Path) -> None:
    """The logs docs/trace.md names: one recorded session, complete, and without its catalog
    lines (``audit.jsonl``) or its catalog changes after start-up (``changes.jsonl``)."""
    spec = importlib.util.spec_from_file_location(
        "partial_support", ROOT / "tests" / "trace" / "partial_support.py"
    )
    assert spec is not None and spec.loader is not None
    support: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(support)
    lines = support.record(support.session("a", ["x", "y"]))
    catalog = frozenset({"catalog_insert", "catalog_upsert", "catalog_remove"})
    logs = {
        "audit.jsonl": support.without(lines, catalog),
        "changes.jsonl": support.without(lines, frozenset({"catalog_upsert", "catalog_remove"})),
    }
    for name in ("session", "a", "b", "recorded", "trace"):
        logs[f"{name}.jsonl"] = lines
    for name, kept in logs.items():
        (home / name).write_text(
            "".join(json.dumps({"request": x.request, "reply": x.reply}) + "\n" for x in kept),
            encoding="utf-8",
        )


def sandbox_env() -> dict[str, str]:
    """This interpreter's environment first on PATH; ``$ADAPTER`` the reference adapter."""
    bin_dir = str(Path(sys.executable).parent)
    return {
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "ADAPTER": f"{sys.executable} -m session_toolset.adapter",
    }


def shell(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``script`` in bash, in the sandbox's environment."""
    env = {**os.environ, **sandbox_env()}
    script = script.replace("/tmp/", f"{cwd}/tmp/")
    return subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def _run_here(
    command: str,
    exercise: Exercise,
    scratch: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A ``session-toolset`` line runs in this process, as the shell would split it (the
    console script is ``cli.main``: this saves an interpreter per command); others in bash."""
    if not command.startswith("session-toolset ") and command != "session-toolset":
        extra = " ".join(shlex.quote(a) for a in exercise.extra)
        done = shell(f"{command} {extra}".strip(), scratch)
        assert done.returncode == exercise.status, done.stdout[-2000:] + done.stderr[-2000:]
        return
    for name, value in sandbox_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(scratch)
    argv = shlex.split(os.path.expandvars(command.replace("/tmp/", f"{scratch}/tmp/")))
    status = cli_main([*argv[1:], *exercise.extra])
    out, err = capsys.readouterr()
    assert status == exercise.status, out[-2000:] + err[-2000:]
    assert "Traceback" not in err


_BLOCKS: dict[str, dict[str, subprocess.CompletedProcess[str]]] = {}


def _printed(text: str) -> str:
    """An output line as compared: whitespace collapsed, a summary's timing left out."""
    return re.sub(r" in \d+(\.\d+)? s$", "", re.sub(r"\s+", " ", text).strip())


def _run_block(shown: Shown, exercise: Exercise, home: Path) -> None:
    """Run the whole block once, in a directory of its own: a script stops at its first failing
    line; a block with ``$`` prompts runs each command in order and is compared with the output it
    shows (a run that shows a FAIL line must exit 1)."""
    for need in exercise.needs:
        if "/" in need and not (ROOT / need).exists():
            pytest.skip(f"{need} is not in this tree")
        if "/" not in need and shutil.which(need) is None:
            pytest.skip(f"`{need}` is not installed")
    blocks = [s for s in shown_commands() if s.block == shown.block]
    if shown.block not in _BLOCKS:
        home.mkdir()
        for name in ("docs", "tests", "tools"):
            (home / name).symlink_to(ROOT / name)
        (home / "tmp").mkdir()
        if not shown.output and not any(s.output for s in blocks):
            done = shell("set -e\n" + "\n".join(joined(shown.block)), home)
            _BLOCKS[shown.block] = {s.command: done for s in blocks}
        else:
            _BLOCKS[shown.block] = {s.command: shell(s.command, home) for s in blocks}
    done = _BLOCKS[shown.block][shown.command]
    printed = [_printed(line) for line in done.stdout.splitlines()]
    for line in shown.output:
        assert _printed(line) in printed, (line, printed)
    failing = any(line.startswith("FAIL ") for line in shown.output)
    status = 1 if failing else 0
    assert done.returncode == status, done.stdout[-2000:] + done.stderr[-2000:]


def _help(command: str) -> None:
    parts = shlex.split(command)
    argv = [sys.executable, *parts[1:3]] if parts[1] == "-m" else [sys.executable, parts[1]]
    done = subprocess.run(
        [*argv, "--help"], cwd=ROOT, capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]


def _synopsis(command: str) -> None:
    parts = shlex.split(command)
    if parts[0] == "session-toolset":
        argv = [sys.executable, "-m", "session_toolset_harness.cli", parts[1]]
    else:
        argv = [sys.executable, *parts[1:4]]
    done = subprocess.run(
        [*argv, "--help"], cwd=ROOT, capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for flag in re.findall(r"--[a-z][a-z-]*", command):
        assert flag in done.stdout, flag


def _elsewhere(where: str) -> None:
    path, _, name = where.partition("::")
    assert (ROOT / path).exists(), path
    assert re.search(rf"^def {re.escape(name)}\(", (ROOT / path).read_text(), re.M), where


def _in_ci(command: str) -> None:
    ci = (
        (ROOT / ".ci" / "run")
        .read_text(encoding="utf-8")
        .replace("pip install -q ", "pip install ")
    )
    for part in command.split(" && "):
        assert part in ci, part


@pytest.mark.parametrize("command", sorted(EXERCISES), ids=lambda c: c[:70])
def test_every_shown_command_runs(
    command: str,
    scratch: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    exercise = EXERCISES[command]
    if exercise.kind in ("run", "budget"):
        _run_here(command, exercise, scratch, monkeypatch, capsys)
    elif exercise.kind == "block":
        _run_block(_first(command), exercise, scratch / f"block-{abs(hash(command))}")
    elif exercise.kind == "help":
        _help(command)
    elif exercise.kind == "synopsis":
        _synopsis(command)
    elif exercise.kind == "test":
        _elsewhere(exercise.where)
    elif exercise.kind == "ci":
        _in_ci(command)
    else:
        assert exercise.kind == "pending"
        pytest.skip("added by another branch with its own tests; replace when merged")


def test_the_mutation_extra_exists() -> None:
    """`pip install -e '.[mutation]'` (docs/mutation.md) needs the extra to declare mutmut."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(d.startswith("mutmut") for d in project["optional-dependencies"]["mutation"])


# --- figures -----------------------------------------------------------------------------------


def test_figures_page_is_the_one_benchmarks_figures_writes() -> None:
    """docs/figures.md is generated: it carries the script's header and the output of every
    command the script runs (regenerate with `python benchmarks/figures.py`)."""
    spec = importlib.util.spec_from_file_location("figures", ROOT / "benchmarks" / "figures.py")
    assert spec is not None and spec.loader is not None
    figures: Any = importlib.util.module_from_spec(spec)
    sys.modules["figures"] = figures  # dataclasses look their module up while being defined
    try:
        spec.loader.exec_module(figures)
    finally:
        del sys.modules["figures"]
    page = (DOCS / "figures.md").read_text(encoding="utf-8")
    assert page.startswith("# Figures\n\nGenerated by `python benchmarks/figures.py`")
    for command in figures.COMMANDS:
        assert f"$ {command.shown}\n" in page, command.shown
    for line in figures.corpus_lines():
        assert line in page, "the corpus changed: regenerate docs/figures.md"
