"""Unit tests of the reference implementation, one module per source module."""
