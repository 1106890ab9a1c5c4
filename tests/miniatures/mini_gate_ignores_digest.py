"""Broken miniature: the execution gate never compares the pinned schema digest with the record's
(digest drift is not denied).

Caught by ``gate/digest-drift`` (a changed schema is authorized instead of SchemaDigestMismatch).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import patch_authorize, run_script

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "gate/digest-drift"

patch = functools.partial(patch_authorize, check_digest=False)

run_script(patch, __name__)
