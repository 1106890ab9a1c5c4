"""Trace validation: a runtime's recorded log checked against the model."""
