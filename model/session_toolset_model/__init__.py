"""The abstract state machine of SPEC.md sections 2-5, written once over an algebra.

`session_toolset_model` never imports the reference implementation (`session_toolset`): the two
meet only in tests, so their agreement is evidence rather than an echo.

Layout, one concept per module:

- `algebra`    - the small interface every transition is written against (If/And/Eq/maps/seqs).
- `concrete`   - the interpretation over plain Python values (the executable oracle's engine).
- `z3_interp`  - the interpretation over Z3 terms on uninterpreted sorts (the proofs' engine).
- `outcomes`   - every outcome code, exactly PROTOCOL.md's dotted names.
- `state`      - the abstract world: catalog records, generation, factory counters, tool sets.
- `profiles`   - gate drift-rule profiles and helper overrides (variants of one definition).
- `catalog`, `sets`, `gate`, `host` - the transitions of SPEC.md sections 2-5.
- `ops`        - the operation table (name, arguments, possible outcomes) used by proofs and tests.
- `oracle`     - the typed concrete API (strings in, ``(code, payload)`` out, ``observe()``).
- `enumerate`  - the bounded enumerator: reachable states, shortest traces, small alphabets.
- `world`      - the expected world: PROTOCOL.md, SPEC.md section 1 and the section 4 alias rule
                 as an executable specification over the oracle (the one expected side of
                 explore, the model vectors and the proofs' counterexample vectors).

Outside the state-machine definition (and so outside the proofs), but specified executably in
`world`: ToolId and SessionId parsing and encoding (SPEC.md 1.1, 1.2), SchemaDigest computation
(1.4), grant session text validation (1.5), wire-name aliases and `resolve` (section 4).  Not
specified anywhere executable: message texts (only their bound is checked).  The
`catalog_set_generation` test seam is offered by the oracle outside the definition.
"""
