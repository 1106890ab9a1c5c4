"""Adapters with injected transport faults, for the explorer's pipelining tests."""
