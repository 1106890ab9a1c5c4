"""The source-swap hazard: a record's *source* is not pinned, only its digest and provenance.

The model abstracts a record's source to its trust (`state`: digest, provenance, trust), so two
records that differ only in the source - e.g. the same MCP server's ``lookup`` re-pointed to its
``delete_all`` - are the same model record: the model cannot even state this hazard, and the
gate's definition (which reads only digest, provenance and trust) makes the outcome a matter of
construction.  The search finds the model trace (an identical-record upsert, then a call); the
vector (`vectors`) gives the upsert a different ``server_tool_name`` with the same server,
provenance and schema, so the reference implementation shows what SPEC.md allows: the call is
authorized and the factory of the swapped record runs.
"""

from __future__ import annotations

from collections.abc import Iterator

from session_toolset_model.enumerate import T0, Action, upsert
from session_toolset_model.state import State

from .definitions import Hazard
from .search import Domain, Ran

SWAPPED_SUFFIX = "-swapped"
"""Appended to the server tool name of the upserted record in the vector."""


def _probe(st: State, d: Domain) -> Iterator[list[Action]]:
    """Replace a set's tool by a record the model sees as identical, then call it."""
    for n in d.sets:
        s = st.sets[n]
        if s is None:
            continue
        for t in d.tools:
            rec = st.catalog[t]
            if rec is None or rec.trust != "trusted" or (s.core[t] is None and s.acts[t] is None):
                continue
            yield [upsert(t, t, rec.digest, "trusted"), Action.of("authorize", name=n, tool=t)]


def _violates(steps: list[Ran]) -> bool:
    return all(r.result.code == "ok" for r in steps)


HAZARD = Hazard(
    "gate.source_swap_within_provenance",
    "the gate denies a tool whose record's source changed (pins identify the source)",
    "4",
    "pinned provenance ≠ record's current provenance → `SourceProvenanceMismatch(id)`",
    "gate.soundness's goal strengthened from 'digest and provenance equal the pins' to 'the "
    "record is the one pinned'; catalog change 'upsert the same schema from another tool of the "
    "same server' (outside the model: it abstracts a source to its trust)",
    "open question",
    "a provenance names a server, not its tool: re-pointing an id to another tool of the same "
    "server with an identical schema is authorized through the old pin, and the new record's "
    "factory runs",
    "refuted",
    Domain((T0,), ("A",), ("trusted",)),
    _probe,
    _violates,
)
