"""The packaged corpus's layout: hand-written vectors are compact files laid out one step per
line (`render`), checked (`check`) and rewritten (`write`) with the derived groups (`derived`),
and expandable to PROTOCOL.md's form for other runners (`expand_all`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from session_toolset_harness.conform import compact
from session_toolset_harness.conform.jsonio import JsonTextError, parse_strict
from session_toolset_harness.conform.validate import step_problems
from session_toolset_harness.corpus import derived

#: The packaged corpus directory (the runner's default ``--vectors``).
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "vectors"
#: The named setups of the compact vectors.
SETUPS = Path(__file__).resolve().parent / "setups.json"

#: Directories derived elsewhere: recorded from the original implementation, and the proofs'
#: counterexamples and hazard traces (``session-toolset prove --emit-vectors`` /
#: ``--emit-hazard-vectors``).
FOREIGN_DIRS = frozenset({"original", "model-cex", "hazards"})
#: Directories that are not hand-written: the foreign ones and the builder's derived groups.
NOT_HAND_WRITTEN = FOREIGN_DIRS | frozenset(derived.GROUPS)

#: The top-level keys of a compact vector file, in their written order.
KEY_ORDER = ("protocol", "id", "description", "tags", "setup", "steps")
#: The keys of one step, in their written order.
STEP_ORDER = ("send", "send_line", "send_hex", "expect")


def _line(value: object) -> str:
    return json.dumps(value, ensure_ascii=True)


def _ordered(value: Mapping[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    """``value`` with the keys of ``order`` first, in that order; any other key after them."""
    first = {key: value[key] for key in order if key in value}
    return {**first, **{key: item for key, item in value.items() if key not in first}}


def _steps(steps: list[Any], indent: str) -> str:
    lines = [
        indent + _line(_ordered(step, STEP_ORDER) if isinstance(step, dict) else step)
        for step in steps
    ]
    return "[\n" + ",\n".join(lines) + "\n" + indent[:-2] + "]"


def render(document: Mapping[str, Any]) -> str:
    """The canonical text of a compact vector file: one top-level key and one step per line
    (keys it does not know are kept, after the known ones, for :func:`check` to report)."""
    parts = [
        f"  {_line(key)}: "
        + (_steps(value, "    ") if key == "steps" and isinstance(value, list) else _line(value))
        for key, value in _ordered(document, KEY_ORDER).items()
    ]
    return "{\n" + ",\n".join(parts) + "\n}\n"


def render_setups(setups: Mapping[str, Any]) -> str:
    """The canonical text of ``setups.json``: per setup its description, then one step a line."""
    blocks = [
        f'  {_line(name)}: {{\n    "description": {_line(entry["description"])},\n'
        f'    "steps": {_steps(entry["steps"], "      ")}\n  }}'
        for name, entry in setups.items()
    ]
    return "{\n" + ",\n".join(blocks) + "\n}\n"


def hand_written(out: Path = DEFAULT_OUT) -> list[Path]:
    """The hand-written vector files under ``out`` (outside the derived directories)."""
    if not out.is_dir():
        return []
    return [
        p
        for p in sorted(out.rglob("*.json"))
        if p.relative_to(out).parts[0] not in NOT_HAND_WRITTEN and len(p.relative_to(out).parts) > 1
    ]


def _derived(out: Path, fix: bool = False) -> list[tuple[Path, str]]:
    """Each file under the derived groups of ``out`` that is not what `derived` writes, with
    why (missing, differs, not produced); with ``fix``, each is written anew or deleted."""
    files = derived.files()
    found: list[tuple[Path, str]] = []
    for relative, text in sorted(files.items()):
        target = out / relative
        if not target.exists():
            found.append((relative, "missing"))
        elif target.read_text(encoding="utf-8") != text:
            found.append((relative, "differs from the builder"))
    groups = [out / group for group in derived.GROUPS if (out / group).is_dir()]
    on_disk = {p.relative_to(out) for group in groups for p in group.rglob("*.json")}
    found += [(p, "not produced by the builder") for p in sorted(on_disk - set(files))]
    for relative, _ in found if fix else []:
        target = out / relative
        if relative not in files:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(files[relative], encoding="utf-8")
    return found


def _read(path: Path) -> object:
    return parse_strict(path.read_text(encoding="utf-8"))


def check(out: Path = DEFAULT_OUT) -> list[str]:
    """What is wrong with the hand-written files under ``out``, ``setups.json`` (shape, ids,
    expansion, layout) and the derived groups (not what `derived` writes); empty when nothing."""
    problems = _setup_problems() + [f"{why}: {path}" for path, why in _derived(out)]
    for path in hand_written(out):
        relative = path.relative_to(out)
        try:
            document = _read(path)
        except (OSError, UnicodeDecodeError, JsonTextError) as exc:
            problems.append(f"unreadable: {relative}: {exc}")
            continue
        if not compact.is_compact(document):
            problems.append(f"not a compact vector (no setup): {relative}")
            continue
        assert isinstance(document, dict)
        if f"{document.get('id')}.json" != relative.as_posix():
            problems.append(f"id {document.get('id')!r} does not match the path: {relative}")
        try:
            compact.expand(document)
        except compact.CompactError as exc:
            problems.append(f"does not expand: {relative}: {exc}")
            continue
        steps = document["steps"]
        if set(document) - set(KEY_ORDER) or any(
            not isinstance(s, dict) or set(s) - set(STEP_ORDER) for s in steps
        ):
            problems.append(f"unknown keys: {relative}")
        elif render(document) != path.read_text(encoding="utf-8"):
            problems.append(f"not in the canonical layout: {relative}")
    return problems


def _setup_problems() -> list[str]:
    """Problems of ``setups.json``: shape, layout, and each setup step as ``--validate`` sees a
    step of a vector."""
    try:
        text = SETUPS.read_text(encoding="utf-8")
        setups = parse_strict(text)
    except (OSError, UnicodeDecodeError, JsonTextError) as exc:
        return [f"unreadable: {SETUPS.name}: {exc}"]
    shape = compact.setup_problem(setups)
    if shape is not None:
        return [f"{SETUPS.name}: {shape}"]
    assert isinstance(setups, dict)
    problems: list[str] = []
    if render_setups(setups) != text:
        problems.append(f"not in the canonical layout: {SETUPS.name}")
    for name, entry in setups.items():
        try:
            steps = compact.expand_values(entry["steps"], "$.steps")
        except compact.CompactError as exc:
            problems.append(f"{SETUPS.name}: setup {name!r}: {exc}")
            continue
        problems.extend(f"{SETUPS.name}: setup {name!r}: {p}" for p in step_problems(steps))
    return problems


def write(out: Path = DEFAULT_OUT) -> list[Path]:
    """Rewrite the hand-written files under ``out`` (and ``setups.json``) in the canonical
    layout, keeping every key, and regenerate the derived groups; returns the files changed.
    Hand-written files that do not parse, or are not compact, are left for :func:`check`."""
    changed = [out / path for path, _ in _derived(out, fix=True)]
    for path in [SETUPS, *hand_written(out)]:
        try:
            document = _read(path)
        except (OSError, UnicodeDecodeError, JsonTextError):
            continue
        if path == SETUPS and compact.setup_problem(document) is None:
            text = render_setups(cast(dict[str, Any], document))
        elif path != SETUPS and compact.is_compact(document):
            text = render(cast(dict[str, Any], document))
        else:
            continue
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


def expand_all(source: Path, out: Path) -> list[Path]:
    """Write every vector file under ``source`` to the same place under ``out`` in PROTOCOL.md's
    expanded form (files already expanded are copied).  Raises :class:`compact.CompactError`
    (naming the file) for a compact vector that does not expand."""
    written: list[Path] = []
    for path in sorted(source.rglob("*.json")):
        target = out / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        document = _read(path)
        if compact.is_compact(document):
            assert isinstance(document, dict)
            try:
                text = compact.render_expanded(compact.expand(document))
            except compact.CompactError as exc:
                raise compact.CompactError(f"{path}: {exc}") from None
            target.write_text(text, encoding="utf-8")
        else:
            target.write_bytes(path.read_bytes())
        written.append(target)
    return written
