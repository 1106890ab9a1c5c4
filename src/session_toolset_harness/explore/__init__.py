"""Model-based exploration: Hypothesis drives an implementation and the model's oracle side by
side (`machine`), through PROTOCOL.md (`sut`, `bridge`); ``session-toolset explore`` is `cli`."""
