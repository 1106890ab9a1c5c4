"""The conformance vector corpus, written as code from SPEC.md and PROTOCOL.md.

``python -m session_toolset_harness.corpus build [--out DIR]`` (re)writes the vector files under
``session_toolset_harness/vectors/<group>/<name>.json``; ``check`` exits 1 when the files on disk
differ from what the builder produces (a hand edit, or a builder change not rebuilt).  Expectations
are hand-reasoned from the specification text; the few values that follow mechanically from a rule
(derived ids, digests, bounded wire-name echoes) are computed by :mod:`.spec`, a small independent
rendering of those rules that never imports the reference implementation.
"""

from __future__ import annotations

from session_toolset_harness.corpus.build import (
    DEFAULT_OUT,
    all_vectors,
    check,
    render,
    write,
)

__all__ = ["DEFAULT_OUT", "all_vectors", "check", "render", "write"]
