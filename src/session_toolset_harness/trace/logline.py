"""One recorded line of a trace log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RecordedLine:
    """One line of a log: its 1-based line number, the request sent and the reply observed."""

    line: int
    request: dict[str, Any]
    reply: dict[str, Any]
