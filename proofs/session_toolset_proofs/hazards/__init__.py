"""Hazards: what SPEC.md does not promise, each shown with a minimal trace (or proved).

`definitions` lists the candidate properties (`source` and `wire` the two outside the model),
`probes` holds their final operations and violation predicates, `search` finds minimal traces
from ``reset``, `queries` states the properties in Z3, `check`
confirms or proves them, `changes` sweeps every kind of catalog change, `vectors` turns each
trace into a replayable vector and `report` renders the result (``prove --hazards``).
"""

from __future__ import annotations

from .check import Result, UnderProfile, check_hazard, check_under
from .definitions import HAZARDS as MODEL_HAZARDS
from .definitions import Hazard
from .source import HAZARD as SOURCE_HAZARD
from .wire import HAZARD as WIRE_HAZARD

HAZARDS: tuple[Hazard, ...] = (*MODEL_HAZARDS, SOURCE_HAZARD, WIRE_HAZARD)


def check_all() -> list[Result]:
    """Every hazard, in definition order."""
    return [check_hazard(h) for h in HAZARDS]


def under_profiles(profiles: list[str]) -> dict[str, list[UnderProfile]]:
    """Every model hazard re-checked under each of ``profiles`` (the source-swap and wire
    hazards lie outside the model, so no profile changes them)."""
    return {h.name: [check_under(h, p) for p in profiles] for h in MODEL_HAZARDS}


__all__ = [
    "HAZARDS",
    "Hazard",
    "Result",
    "UnderProfile",
    "check_all",
    "check_hazard",
    "check_under",
    "under_profiles",
]
