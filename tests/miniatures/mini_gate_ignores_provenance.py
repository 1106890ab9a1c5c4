"""Broken miniature: the execution gate skips the pinned-provenance comparison (step 3), so a
coherent imposter (same id and schema, different self-consistent source and provenance) is
authorized.

Caught by ``gate/coherent-imposter`` (the imposter is authorized instead of
SourceProvenanceMismatch).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import patch_authorize, run_script

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "gate/coherent-imposter"


def patch() -> contextlib.AbstractContextManager[None]:
    return patch_authorize(check_provenance=False)


if __name__ == "__main__":
    run_script(patch)
