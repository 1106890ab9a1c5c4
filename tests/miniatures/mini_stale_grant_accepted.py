"""Broken miniature: activate does not compare the grant's generation with the catalog's
(StaleGeneration is never raised).

Caught by ``activate/each-error`` (a grant for an older generation activates).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import patch_check_grant, run_script

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "activate/each-error"


def patch() -> contextlib.AbstractContextManager[None]:
    return patch_check_grant(check_generation=False)


if __name__ == "__main__":
    run_script(patch)
