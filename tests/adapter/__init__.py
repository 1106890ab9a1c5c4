"""Tests of the PROTOCOL.md adapter: recorded walkthroughs, malformed input, the process."""
