"""The conformance vector corpus: hand-written vectors as compact data files
(``vectors/<group>/<name>.json``, setups in ``setups.json``) and the derived ones
(`derived`); ``python -m session_toolset_harness.corpus`` checks, builds or expands it."""
