"""Broken miniature: the gate calls the record's factory before running its checks, so denied calls
still acquire the implementation.

Caught by ``gate/authorized-basis-and-factory`` (factory_calls counts a denied call).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``miniatures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miniatures._support import patch_authorize, run_script

#: A vector of the corpus that must fail against this miniature.
CAUGHT_BY = "gate/authorized-basis-and-factory"

patch = functools.partial(patch_authorize, factory_first=True)

run_script(patch, __name__)
