"""Broken miniature: the execution gate never compares the pinned schema digest with the record's
(digest drift is not denied).

Caught by ``gate/digest-drift`` (a changed schema is authorized instead of SchemaDigestMismatch).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import patch_authorize, run_script

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "gate/digest-drift"


def patch() -> contextlib.AbstractContextManager[None]:
    return patch_authorize(check_digest=False)


if __name__ == "__main__":
    run_script(patch)
