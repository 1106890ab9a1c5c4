"""SPEC.md traceability: for every section (and section 6 invariant), what would fail if it
changed - obligations, mutants, reachability checks, hazards, vectors and tests.

Nothing here is a hand-kept list of who guards what; every row is derived from what the code
declares:

- obligations: an `Obligation`'s ``op`` names a model transition, whose module states its
  SPEC.md section in its first docstring line (``SPEC.md section 3: ...``), and its
  ``invariant`` names a section 6 bullet; mutants come from each obligation's ``refuted_by``
  and profiles from `EXPECTED_PROFILE_REFUTATIONS`; reachability rows from the op table;
- hazards: their ``section`` field (`hazards`);
- vectors: every vector file of the packaged corpus, by the PROTOCOL.md ops its steps send
  (model ops by their transition's section, the few others by `OTHER_OPS`) and by its tags
  (``obligation:``, ``spec:``, and section 6 invariant names such as ``drift-denial``);
- tests: the ``spec(...)`` marker a test module declares (``pytestmark =
  pytest.mark.spec("3", "6.counters")``; ``"6"`` means every section 6 invariant, ``"all"``
  every key), read with `ast`.

``python -m session_toolset_proofs.traceability --out docs/traceability.md`` writes the table;
``--check`` exits 1 when the file is stale (as does ``tests/proofs/test_traceability.py``).
"""

from __future__ import annotations

from .cli import main
from .collect import Row, Table, build
from .render import markdown
from .spec import OBSERVATIONS, OTHER_OPS, SPEC_OPERATIONS, Section, op_section, spec_sections

__all__ = [
    "OBSERVATIONS",
    "OTHER_OPS",
    "SPEC_OPERATIONS",
    "Row",
    "Section",
    "Table",
    "build",
    "main",
    "markdown",
    "op_section",
    "spec_sections",
]
