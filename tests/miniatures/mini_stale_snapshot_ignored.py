"""Broken miniature: activate does not refuse a stale set (StaleSnapshot is never raised), so a
fresh grant rescues a stale set.

Caught by ``activate/each-error``: a fresh grant activates into a set of an older generation.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import patch_check_grant, run_script

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "activate/each-error"

patch = functools.partial(patch_check_grant, check_snapshot=False)

run_script(patch, __name__)
