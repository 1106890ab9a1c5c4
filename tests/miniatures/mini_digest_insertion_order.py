"""Broken miniature: the schema digest is SHA-256 of plain JSON text in key insertion order (not
the canonical, sorted, length-framed encoding).

Caught by ``digest/key-order`` (the same object with reordered keys gets another digest).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import replaced, run_script
from session_toolset.digest import SchemaDigest
from session_toolset.json_value import JsonValue

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "digest/key-order"


def _of(cls: type[SchemaDigest], value: JsonValue) -> SchemaDigest:
    # FAULT: non-canonical JSON text.
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return cls(hashlib.sha256(text.encode("utf-8")).hexdigest())


def patch() -> contextlib.AbstractContextManager[None]:
    return replaced(SchemaDigest, "of", classmethod(_of))


run_script(patch, __name__)
