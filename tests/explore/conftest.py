"""Shared helpers for the explore tests: the miniatures and the selected settings profile."""

from __future__ import annotations

import importlib
import pkgutil
import shlex
import sys
from pathlib import Path
from types import ModuleType

import miniatures

MINIATURES_DIR = Path(miniatures.__file__).resolve().parent


def miniature_names() -> list[str]:
    return sorted(
        info.name
        for info in pkgutil.iter_modules(miniatures.__path__)
        if info.name.startswith("mini_")
    )


def miniature(name: str) -> ModuleType:
    return importlib.import_module(f"miniatures.{name}")


def miniature_command(name: str) -> str:
    """The miniature run as an external PROTOCOL.md adapter."""
    return shlex.join([sys.executable, str(MINIATURES_DIR / f"{name}.py")])
