"""session_toolset_harness — the conformance and verification harness around SPEC.md.

It is where the reference implementation (:mod:`session_toolset`) and the model
(:mod:`session_toolset_model`) meet, so it may import both:

* :mod:`.cli` — the ``session-toolset`` console script (check, prove, conform, explore, adapter)
* :mod:`.check` — the main job: proofs + conformance, one summary, one exit code
* :mod:`.conform` — the PROTOCOL.md runner, reports, schemas and coverage
* :mod:`.corpus` — the packaged vector corpus (``vectors/``): setups, layout, expansion
* :mod:`.explore` — model-based random testing of any adapter against the model's oracle
"""
