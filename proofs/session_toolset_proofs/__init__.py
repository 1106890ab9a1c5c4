"""Named, witnessed proof obligations over the model (`session_toolset_model`), checked by Z3.

- `encode`      - arbitrary Z3 states and arguments, and the inductive invariant.
- `obligations` - one named obligation per SPEC.md section 6 invariant and transition, with the
                  mutants that must refute it and the profiles expected to fail it.
- `solve`       - one deterministic solver run (fresh solver, fixed seeds, rlimit budget).
- `search`, `pin` - witnesses and counterexamples found by the model's bounded enumerator
                  (`session_toolset_model.enumerate`), confirmed in Z3.
- `reach`       - (operation, outcome) reachability traces, or proofs of unreachability.
- `vectors`     - counterexamples as PROTOCOL.md vectors (`prove --emit-vectors DIR`).
- `report`, `cli` - `prove` table, JSON and JUnit output, exit code; checks split across
                  worker processes (`report.partition`, `--jobs`).

Imports the model only, never the implementation.
"""
