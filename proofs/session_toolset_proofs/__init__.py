"""Named, witnessed proof obligations over the model (`session_toolset_model`), checked by Z3.

- `encode`      - arbitrary Z3 states and arguments, and the inductive invariant.
- `obligations` - one named obligation per SPEC.md section 6 invariant and transition, with the
                  mutants that must refute it and the profiles expected to fail it.
- `solve`       - one deterministic solver run (fresh solver, fixed seeds, rlimit budget).
- (not written yet: `reach` for (operation, outcome) reachability traces and `vectors` for
  counterexamples as PROTOCOL.md vectors.)
- `report`, `cli` - `prove` table, JSON and JUnit output, exit code.

Imports the model only, never the implementation.
"""
