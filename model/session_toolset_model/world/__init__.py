"""The expected world: PROTOCOL.md and SPEC.md section 1 and the section 4 alias rule as an
executable specification, over the model's concrete oracle.

This package is the one expected side shared by ``explore``, the model vectors and the proofs'
counterexample vectors.  It is written from SPEC.md and PROTOCOL.md and imports nothing from the
implementation (``session_toolset``): the two meet only in tests and the harness.

- `json_text` - SPEC.md 1.4 / PROTOCOL.md strict JSON input: one request line to a value.
- `digest`    - SPEC.md 1.4 canonical encoding, number text (ryu layout) and SchemaDigest.
- `identity`  - SPEC.md 1.1 ToolId parse and source-aware encoders, 1.2 SessionId, 1.5 grant
                session text.
- `alias`     - SPEC.md 4 wire-name aliases and ``resolve``.
- `fields`    - PROTOCOL.md field validation: presence, JSON type, lookup, parsing, in row order.
- `protocol`  - `World`: every op of PROTOCOL.md answered from the oracle plus the protocol's own
                bookkeeping (named sets and grants, record sources and runtime names).
"""

from .protocol import OutOfScope, World

__all__ = ["OutOfScope", "World"]
