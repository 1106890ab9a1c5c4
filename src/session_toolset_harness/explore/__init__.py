"""Model-based exploration: seeded generators (`draw`) drive an implementation and the model
package's expected world (`session_toolset_model.world`) side by side (`machine`, drawing from
`strategies`, `pools` and `protocol_rules`), through PROTOCOL.md (`sut`); ``session-toolset
explore`` is `cli`."""
