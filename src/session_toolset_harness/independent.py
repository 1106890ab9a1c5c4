"""The model against independent behaviour: the hand-written corpus and the original
implementation's recorded walkthroughs replayed against the model's expected world
(`session_toolset_model.world.World`), a stage of ``check`` and ``prove``.  A step whose answer
SPEC.md leaves open ends its vector as *open* (never a failure).  Generated groups are not
replayed: they are built from this very world or the model's oracle.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from session_toolset_model.world import OutOfScope, World

from .conform import compact
from .conform.matcher import first_difference

GENERATED_GROUPS = frozenset({"model", "model-cex", "hazards", "edge-families"})


@dataclass(frozen=True)
class Disagreement:
    vector_id: str
    step: int
    detail: str


@dataclass
class IndependentReport:
    vectors: int = 0
    steps: int = 0
    open: list[str] = field(default_factory=list)
    disagreements: list[Disagreement] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.disagreements and not self.errors

    def line(self) -> str:
        verdict = "agrees" if self.ok else "DISAGREES"
        text = (
            f"model vs recorded behaviour: {verdict} - {self.vectors} vectors, {self.steps} steps"
            f" replayed, {len(self.disagreements)} differ, {len(self.open)} left open by SPEC.md"
        )
        return text + (f", {len(self.errors)} unreadable" if self.errors else "")

    def failures(self) -> list[str]:
        """One line per disagreement or unreadable vector (empty when the replay agrees)."""
        return [
            f"model disagrees with recorded behaviour: {d.vector_id} step {d.step}: {d.detail}"
            for d in self.disagreements
        ] + [f"unreadable vector: {e}" for e in self.errors]

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, **asdict(self)}


def corpus_dir() -> Path:
    return Path(str(resources.files("session_toolset_harness").joinpath("vectors")))


def reply(world: World, step: dict[str, Any]) -> dict[str, Any]:
    """The expected world's reply to one vector step (``send``, ``send_line`` or ``send_hex``)."""
    if "send_line" in step:
        return world.handle_line(str(step["send_line"]).encode("utf-8"))
    if "send_hex" in step:
        return world.handle_line(bytes.fromhex(str(step["send_hex"])))
    return world.handle(step["send"])


def replay(
    directory: Path | None = None,
    world_factory: Callable[[], World] | None = None,
    *,
    stop_at_first: bool = False,
) -> IndependentReport:
    """Replay every independent vector under ``directory`` (default: the packaged corpus),
    each in a fresh world from ``world_factory`` (default: the SPEC.md world); with
    ``stop_at_first``, stop at the first disagreeing vector."""
    factory = World if world_factory is None else world_factory
    report = IndependentReport()
    root = directory or corpus_dir()
    for path in sorted(root.rglob("*.json")):
        if path.relative_to(root).parts[0] in GENERATED_GROUPS:
            continue
        try:
            doc = compact.expand(json.loads(path.read_text(encoding="utf-8")))
            steps, vector_id = doc["steps"], str(doc.get("id"))
            if not isinstance(steps, list):
                raise TypeError("steps is not a list")
        except (OSError, ValueError, KeyError, TypeError) as err:
            report.errors.append(f"{path.name}: {err}")
            continue
        world = factory()
        report.vectors += 1
        for index, step in enumerate(steps):
            try:
                found = first_difference(step["expect"], reply(world, step))
            except OutOfScope as why:
                report.open.append(f"{vector_id} step {index}: {why}")
                break
            report.steps += 1
            if found is not None:
                detail = f"{found.path}: {found.message}"
                report.disagreements.append(Disagreement(vector_id, index, detail))
                break
        if stop_at_first and report.disagreements:
            break
    return report
