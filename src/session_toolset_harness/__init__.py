"""session_toolset_harness: where the reference implementation (`session_toolset`) and the
model (`session_toolset_model`) meet: the ``session-toolset`` console script (`cli`), the main
job (`check`), the conformance runner (`conform`), the vector corpus (`corpus`), model-based
exploration (`explore`) and trace checking (`trace`)."""
