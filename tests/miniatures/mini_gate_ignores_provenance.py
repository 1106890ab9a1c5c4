"""Broken miniature: the execution gate skips the pinned-provenance comparison (step 3), so a
coherent imposter (same id and schema, different self-consistent source and provenance) is
authorized.

Caught by ``gate/coherent-imposter`` (the imposter is authorized instead of
SourceProvenanceMismatch).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import patch_authorize, run_script

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "gate/coherent-imposter"

patch = functools.partial(patch_authorize, check_provenance=False)

run_script(patch, __name__)
