"""Model-based exploration: seeded generators (`draw`) drive an implementation and the model
package's expected world (`session_toolset_model.world`) side by side (`machine`,
`protocol_rules`, `macros`),
through PROTOCOL.md (`sut`); ``session-toolset explore`` is `cli`."""
