"""The conformance vector corpus: hand-written vectors as data, with named setups.

Each hand-written vector is one compact file ``session_toolset_harness/vectors/<group>/<name>.json``
(:mod:`session_toolset_harness.conform.compact` expands it); ``setups.json`` beside this module
holds the named setups.  ``python -m session_toolset_harness.corpus check`` checks their layout,
``build`` rewrites it, ``expand OUT`` writes the corpus in PROTOCOL.md's expanded form.
"""

from __future__ import annotations

from session_toolset_harness.corpus.build import (
    DEFAULT_OUT,
    check,
    expand_all,
    render,
    write,
)

__all__ = ["DEFAULT_OUT", "check", "expand_all", "render", "write"]
